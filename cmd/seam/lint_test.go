package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintExamples lints every dags/lint-*.yaml and checks its exact output and exit code:
// a compatible chain, and one example per incompatibility rule. A new example needs an
// entry here.
func TestLintExamples(t *testing.T) {
	tests := map[string]struct {
		code int
		want string
	}{
		"lint-compatible.yaml": {0, "no problems\n"},
		"lint-incompatible.yaml": {1, `dags/lint-incompatible.yaml:24:5: error SEAM-E301 edge recommend → prioritise: INCOMPATIBLE — prioritise requires 'priority' but recommend does not produce it.
  witness: {"recommendations":[],"status":"pass","summary":"a"}
  fix: add 'priority' to recommend's output contract, or put a transform node between them.
1 error, 0 warnings
`},
		"lint-type-mismatch.yaml": {1, `dags/lint-type-mismatch.yaml:27:5: error SEAM-E302 edge rate → escalate: INCOMPATIBLE — rate may produce a string for 'score', a type escalate does not accept.
  witness: {"score":"low"}
  fix: make the types of 'score' agree in both contracts, or put a transform node between them.
1 error, 0 warnings
`},
		"lint-constraint.yaml": {1, `dags/lint-constraint.yaml:28:5: error SEAM-E303 edge classify → route: INCOMPATIBLE — classify may produce "question" for 'label', which route's constraints reject.
  witness: {"label":"question"}
  fix: narrow 'label' in classify's output contract to fit route's contract.input, or widen that contract.
1 error, 0 warnings
`},
		"lint-optional.yaml": {1, `dags/lint-optional.yaml:31:22: error SEAM-E311 notify reads nodes.triage.output.data.assignee, but triage may deliver an output without it; the run fails then
  witness: {"data":{"priority":"low"},"status":"pass","summary":"a"}
  fix: require 'data.assignee' in triage's output contract, or guard the read: ` + "`has(nodes.triage.output.data.assignee) ? nodes.triage.output.data.assignee : <default>`" + `
1 error, 0 warnings
`},
		// GitHub's own schema says merged_at is null when a pull request closes unmerged.
		"lint-github-pull-request.yaml": {1, `dags/lint-github-pull-request.yaml:14:5: error SEAM-E302 edge params → announce: INCOMPATIBLE — params may produce null for 'merged_at', a type announce does not accept.
  witness: {"merged_at":null,"number":0,"title":""}
  fix: make the types of 'merged_at' agree in both contracts, or put a transform node between them.
1 error, 0 warnings
`},
	}
	files, err := filepath.Glob("../../dags/lint-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no lint examples in dags/: %v", err)
	}
	// Paths print as given: run from the repository root, as the docs show.
	t.Chdir("../..")
	getenv := func(k string) string {
		if k == "SEAM_LANG" {
			return "en"
		}
		return ""
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			tt, ok := tests[name]
			if !ok {
				t.Fatalf("no expectation for dags/%s: add one to this test", name)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"lint", "dags/" + name}, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != tt.code || stdout.String() != tt.want || stderr.Len() != 0 {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, tt.code, &stdout, tt.want, &stderr)
			}
		})
	}
}

// TestUseColour checks when text output is coloured.
func TestUseColour(t *testing.T) {
	tests := []struct {
		mode, noColor, term string
		want                bool
	}{
		{"always", "", "", true},
		{"always", "1", "", true}, // asked for explicitly
		{"never", "", "", false},
		{"auto", "", "", false}, // not a terminal
		{"auto", "1", "", false},
		{"auto", "", "dumb", false},
	}
	for _, tt := range tests {
		e := &env{getenv: func(k string) string {
			switch k {
			case "NO_COLOR":
				return tt.noColor
			case "TERM":
				return tt.term
			}
			return ""
		}}
		if got := useColour(e, &bytes.Buffer{}, tt.mode); got != tt.want {
			t.Errorf("mode %s NO_COLOR=%q TERM=%q: %v, want %v", tt.mode, tt.noColor, tt.term, got, tt.want)
		}
	}
}
