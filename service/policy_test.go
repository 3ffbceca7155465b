package service

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/lint"
)

// TestStartPolicy: a policy file, named by Options.PolicyFile or $SEAM_POLICY (read through
// Getenv, as seam serve and seam mcp build their service), lets a DAG whose break it accepts
// start; any other break, and a policy that does not parse, refuse it.
func TestStartPolicy(t *testing.T) {
	dir := t.TempDir()
	d := load(t, dir, "greet.yaml", greetDAG)
	params := map[string]any{"name": "al"}
	// The break's fingerprint, as the gate prints it.
	fs := lint.Policy{Accept: []lint.Accepted{{Fingerprint: "0123456789abcdef", Reason: "r"}}}.AcceptIn(d.File, lint.Lint(t.Context(), d, lint.Options{Params: params}), "en")
	if len(fs) != 1 || fs[0].Fingerprint == "" {
		t.Fatalf("findings: %+v", fs)
	}
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	accepts := write("accepts.yaml", fmt.Sprintf("accept:\n  - {fingerprint: %s, reason: names of 2 letters from v2 on}\n", fs[0].Fingerprint))
	other := write("other.yaml", "accept:\n  - {fingerprint: 0123456789abcdef, reason: another}\n")
	bad := write("bad.yaml", "accept: [{fingerprint: 0123456789abcdef}]\n")
	tests := []struct {
		name       string
		file, env  string
		err        string // "" when the run starts
		wantLintEr bool
	}{
		{name: "accepted, by the option", file: accepts},
		{name: "accepted, by $SEAM_POLICY", env: accepts},
		{name: "the option wins over $SEAM_POLICY", file: other, env: accepts, wantLintEr: true, err: "not run: lint found 1 error"},
		{name: "another break accepted", env: other, wantLintEr: true, err: "not run: lint found 1 error"},
		{name: "a policy that does not parse", file: bad, err: "policy " + bad + ": policy file: accept[0]: say why the break is accepted (reason)"},
		{name: "no policy file", file: filepath.Join(dir, "nowhere.yaml"), err: "policy " + filepath.Join(dir, "nowhere.yaml") + ": "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "SEAM_POLICY" {
					return tt.env
				}
				return ""
			}
			s := New(Options{Lang: "en", Logger: slog.New(slog.DiscardHandler), Getenv: getenv, PolicyFile: tt.file})
			t.Cleanup(s.Close)
			var warned []error
			run, err := s.Start(t.Context(), d, Request{Params: params, Warn: func(w error) { warned = append(warned, w) }})
			var le *LintError
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Start: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Start: %v, want %q", err, tt.err)
			case tt.err != "" && errors.As(err, &le) != tt.wantLintEr:
				t.Fatalf("Start: %T, a LintError: %v", err, tt.wantLintEr)
			case tt.err != "":
				return
			}
			run.Wait() //nolint:errcheck // the run breaks at run time, as the policy knows
			var lw *LintWarnings
			if len(warned) != 1 || !errors.As(warned[0], &lw) || lw.Accepted != 1 || lw.Count != 0 ||
				lw.Error() != "0 lint warnings; breaks accepted by the policy: 1 (seam lint "+d.File+" shows them)" {
				t.Fatalf("warnings: %v", warned)
			}
		})
	}
}
