package gate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
)

const pipe = `version: 1
name: pipe
nodes:
  score:
    type: const
    with:
      value: {status: pass, summary: scored, data: {x: 1}}
    contract:
      output: schemas/score.json
  act:
    type: transform
    input: {x: "${{ nodes.score.output.data.x }}"}
    with: {program: '{status: "pass", summary: "acted"}'}
    contract:
      input: {type: object, required: [x], properties: {x: {type: integer}}}
`

const (
	scoreInt    = `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}}}}`
	scoreString = `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}}}`
)

// repo makes a git repository holding dags/pipe.yaml and its contract at main, then writes
// the files of now over it; it returns the dags directory.
func repo(t *testing.T, now map[string]string) string {
	t.Helper()
	return repoAt(t, nil, now)
}

// repoAt is repo with the files of base written over those at main.
func repoAt(t *testing.T, base, now map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	write := func(files map[string]string) {
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=seam", "-c", "user.email=seam@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	write(map[string]string{"dags/pipe.yaml": pipe, "dags/schemas/score.json": scoreInt})
	write(base)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write(now)
	return filepath.Join(dir, "dags")
}

// loader loads with the built-in node types, counting the loads.
func loader(loads *int) func(context.Context, string, []byte, func(string) ([]byte, error)) (*dag.DAG, error) {
	types := nodes.Builtin()
	return func(ctx context.Context, path string, src []byte, read func(string) ([]byte, error)) (*dag.DAG, error) {
		*loads++
		return dag.LoadBytes(ctx, path, src, dag.LoadOptions{Types: types, ReadFile: read})
	}
}

// TestRun judges changes through Config: each loads through Config.Load, and the stored
// outputs are asked for the nodes whose output contract changed only.
func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		now     map[string]string
		policy  lint.Policy
		codes   []string // of Report.All
		loads   int
		stored  []string // the nodes Stored is asked about
		failure string   // the file of the one failure
	}{
		{name: "unchanged", loads: 1},
		{name: "a property no consumer reads", loads: 2, stored: []string{"score"},
			now: map[string]string{"dags/schemas/score.json": strings.Replace(scoreInt, `"integer"}`, `"integer"}, "note": {"type": "string"}`, 1)}},
		{name: "broken", loads: 2, stored: []string{"score"}, codes: []string{lint.CodeWeakened, lint.CodeType},
			now: map[string]string{"dags/schemas/score.json": scoreString}},
		{name: "weakening turned off", loads: 2, stored: []string{"score"}, codes: []string{lint.CodeType},
			now:    map[string]string{"dags/schemas/score.json": scoreString},
			policy: lint.Policy{Severity: map[string]string{lint.CodeWeakened: "off"}}},
		{name: "new file", loads: 2, codes: []string{lint.CodeType},
			now: map[string]string{"dags/new.yaml": strings.Replace(pipe, "schemas/score.json", "schemas/new.json", 1), "dags/schemas/new.json": scoreString}},
		{name: "does not load now", loads: 1, codes: []string{dag.CodeUnknownType}, failure: "pipe.yaml",
			now: map[string]string{"dags/pipe.yaml": strings.Replace(pipe, "type: const", "type: nope", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dags := repo(t, tt.now)
			loads := 0
			var asked []string
			rep, err := Run(context.Background(), Config{
				Against: "main", Paths: []string{dags}, Policy: tt.policy, Load: loader(&loads), MaxFileSize: 1 << 20,
				Stored: func(_ context.Context, name string, ids []string, _ func(string, []byte)) error {
					if name != "pipe" {
						t.Errorf("stored outputs of %q", name)
					}
					asked = append(asked, ids...)
					return nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, f := range rep.All {
				codes = append(codes, f.Code)
			}
			if !slices.Equal(codes, tt.codes) {
				t.Errorf("codes %v, want %v", codes, tt.codes)
			}
			if loads != tt.loads {
				t.Errorf("%d loads, want %d", loads, tt.loads)
			}
			if !slices.Equal(asked, tt.stored) {
				t.Errorf("stored outputs asked of %v, want %v", asked, tt.stored)
			}
			switch {
			case tt.failure == "" && len(rep.Failures) > 0:
				t.Errorf("failures %v", rep.Failures)
			case tt.failure != "" && (len(rep.Failures) != 1 || filepath.Base(rep.Failures[0].File) != tt.failure):
				t.Errorf("failures %v, want %s", rep.Failures, tt.failure)
			case tt.failure != "" && len(rep.Findings) > 0:
				t.Errorf("a failure's errors are in Findings: %v", rep.Findings)
			}
		})
	}
}

// TestRunStoredError checks that a run store that cannot be read is the DAG's failure, never
// a clean result.
func TestRunStoredError(t *testing.T) {
	dags := repo(t, map[string]string{"dags/schemas/score.json": scoreString})
	loads := 0
	rep, err := Run(context.Background(), Config{
		Against: "main", Paths: []string{dags}, Load: loader(&loads), MaxFileSize: 1 << 20,
		Stored: func(context.Context, string, []string, func(string, []byte)) error {
			return errors.New("store down")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Err.Error(), "--against-store: store down") {
		t.Fatalf("failures %v", rep.Failures)
	}
	if len(rep.Findings) != 0 || len(rep.All) != 1 || rep.All[0].Code != lint.CodeStoreUnreadable {
		t.Errorf("findings %v, all %v", rep.Findings, rep.All)
	}
}

// TestRunFailures checks the gate's own codes for the files it cannot judge: each is a
// failure, with one error finding on the file, and nothing in Findings.
func TestRunFailures(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte("version: 1\nname: outside\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 4096
	tests := []struct {
		name   string
		base   map[string]string // over repo's at main
		paths  func(dags string) []string
		policy lint.Policy
		code   string
		file   string // the failure's, its base name
	}{
		{name: "outside the repository", code: lint.CodeOutsideRepo, file: "outside.yaml",
			paths: func(dags string) []string { return []string{filepath.Join(dags, "pipe.yaml"), outside} }},
		{name: "over the limit at the revision", code: lint.CodeRevUnreadable, file: "pipe.yaml",
			base: map[string]string{"dags/pipe.yaml": "# " + strings.Repeat("x", limit) + "\n" + pipe}},
		{name: "consumer not fetched", code: lint.CodeConsumerUnusable, file: "all@main",
			policy: lint.Policy{Consumers: []lint.Consumer{{Repo: "file:///nowhere/at/all", Ref: "main", Mount: "vendor"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dags := repoAt(t, tt.base, map[string]string{"dags/pipe.yaml": pipe})
			paths := []string{dags}
			if tt.paths != nil {
				paths = tt.paths(dags)
			}
			loads := 0
			rep, err := Run(context.Background(), Config{Against: "main", Paths: paths, Policy: tt.policy, Load: loader(&loads), MaxFileSize: limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Failures) != 1 || filepath.Base(rep.Failures[0].File) != tt.file {
				t.Fatalf("failures %v, want one of %s", rep.Failures, tt.file)
			}
			if len(rep.All) != 1 || rep.All[0].Code != tt.code || rep.All[0].Severity != lint.SeverityError || rep.All[0].Pos.File != rep.Failures[0].File {
				t.Errorf("findings %+v, want one %s on %s", rep.All, tt.code, rep.Failures[0].File)
			}
			if len(rep.Findings) != 0 {
				t.Errorf("judged findings %v", rep.Findings)
			}
		})
	}
}

// TestRunErrors checks what stops the gate before it judges anything.
func TestRunErrors(t *testing.T) {
	dags := repo(t, nil)
	loads := 0
	tests := []struct {
		against string
		paths   []string
		want    string
	}{
		{":dags", []string{dags}, `want a revision (main) or REV:path, not ":dags"`},
		{"main:", []string{dags}, `want a revision (main) or REV:path, not "main:"`},
		{"main:dags", []string{dags, dags}, "name exactly one path"},
		{"nope", []string{dags}, "no such revision"},
		{"main", []string{filepath.Join(dags, "schemas")}, "holds no DAG file"},
		{"main:dgas", []string{dags}, "--against main:dgas: dgas names nothing at main: check the path, as it was at main"},
		{"main:../dags", []string{dags}, "--against main:../dags: ../dags must be a path inside the repository, relative to its root"},
		{"main:/etc", []string{dags}, "--against main:/etc: /etc must be a path inside the repository, relative to its root"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), Config{Against: tt.against, Paths: tt.paths, Load: loader(&loads), MaxFileSize: 1 << 20})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--against %s %v: %v, want %q", tt.against, tt.paths, err, tt.want)
		}
	}
}

// TestConsumerUnanswered: a consumer repository that never answers stops the gate's wait
// for it at its timeout, and one that asks for credentials gets no prompt: either is a
// failure that says why, and the gate goes on.
func TestConsumerUnanswered(t *testing.T) {
	done := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-done }))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(done) })
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(private.Close)
	tests := []struct {
		name     string
		consumer lint.Consumer
		want     string
	}{
		{"never answers", lint.Consumer{Repo: silent.URL + "/c.git", Ref: "main", Mount: "vendor", Timeout: "1s"},
			"consumer " + silent.URL + "/c.git@main: no answer within 1s; raise timeout in its policy entry if it is only slow"},
		{"asks for credentials", lint.Consumer{Repo: private.URL + "/c.git", Ref: "main", Mount: "vendor"},
			"terminal prompts disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dags := repoAt(t, nil, map[string]string{"dags/pipe.yaml": pipe})
			loads := 0
			rep, err := Run(context.Background(), Config{Against: "main", Paths: []string{dags},
				Policy: lint.Policy{Consumers: []lint.Consumer{tt.consumer}}, Load: loader(&loads), MaxFileSize: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Err.Error(), tt.want) {
				t.Fatalf("failures %v, want one saying %q", rep.Failures, tt.want)
			}
		})
	}
}
