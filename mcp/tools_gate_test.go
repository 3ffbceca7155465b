package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gateRoot makes a root that is a git repository: dags/pipe.yaml reads schemas/score.json,
// committed on main, then changed so that the edge score → act breaks. It returns the root.
func gateRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	root := filepath.Join(base, "root")
	write := func(name, body string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=seam", "-c", "user.email=seam@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	score := `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["x"], "properties": {"x": {"type": "%s"}}}}}`
	write("dags/pipe.yaml", `version: 1
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
`)
	write("dags/schemas/score.json", strings.Replace(score, "%s", "integer", 1))
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write("dags/schemas/score.json", strings.Replace(score, "%s", "string", 1))
	write("accept.yaml", "accept:\n  - {fingerprint: af08d52b2eed903f, reason: act reads text from v2 on}\nseverity:\n  SEAM-W305: \"off\"\n")
	write("consumers.yaml", "consumers:\n  - {repo: \"file:///elsewhere\", ref: main, mount: vendor}\n")
	write("escape/sub.yaml", "version: 1\nname: escape\nnodes:\n  s:\n    type: dag\n    with: {file: ../../outside.yaml}\n")
	write("../outside.yaml", "version: 1\nname: outside\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n")
	return root
}

// TestMCPLintAgainst calls lint_against through a real client session: the gate's findings,
// minimal and raw, the policy file, the run store, and the root's confinement.
func TestMCPLintAgainst(t *testing.T) {
	root := gateRoot(t)
	withStore := connectWith(t, Options{Root: root, Store: tempStore(t)})
	noStore := connectWith(t, Options{Root: root})
	tests := []struct {
		name    string
		noStore bool
		args    map[string]any
		code    string                               // "" for success
		message string                               // a part of the message
		check   func(t *testing.T, d map[string]any) // the data, or a failure's details
	}{
		{"broken edge", false, map[string]any{"against": "main", "paths": []any{"dags"}}, "", "against main: 1 error, 1 warning, 0 notes",
			func(t *testing.T, d map[string]any) {
				first, _ := d["first"].([]any)
				if len(first) != 2 {
					t.Fatalf("first %v, want the error and the warning", first)
				}
				if f := first[0].(map[string]any); f["code"] != "SEAM-E302" || f["node"] != "act" || f["at"] != "dags/pipe.yaml:12:5" {
					t.Errorf("first finding %v", f)
				}
				if _, has := d["findings"]; has {
					t.Errorf("a minimal answer carries every finding")
				}
			}},
		{"raw", false, map[string]any{"against": "main", "paths": []any{"dags/pipe.yaml"}, "raw": true}, "", "1 error",
			func(t *testing.T, d map[string]any) {
				fs, _ := d["findings"].([]any)
				if len(fs) != 2 {
					t.Fatalf("findings %v", fs)
				}
				f := fs[1].(map[string]any)
				if f["change"] != "newly-incompatible" || f["fingerprint"] != "af08d52b2eed903f" || f["witness"] == nil {
					t.Errorf("finding %v: want the change, the fingerprint and the witness", f)
				}
			}},
		{"policy", false, map[string]any{"against": "main", "paths": []any{"dags"}, "policy": "accept.yaml"}, "", "against main: 0 errors, 0 warnings, 1 note", nil},
		{"stored outputs", false, map[string]any{"against": "main", "paths": []any{"dags"}, "store_runs": 5}, "", "1 error, 1 warning", nil},
		{"no store", true, map[string]any{"against": "main", "paths": []any{"dags"}, "store_runs": 5}, CodeNoStore, "no run store", nil},
		{"store_runs out of range", false, map[string]any{"against": "main", "paths": []any{"dags"}, "store_runs": 1001}, CodeInvalidArgument, "from 1 to 1000, not 1001", nil},
		{"consumers", false, map[string]any{"against": "main", "paths": []any{"dags"}, "policy": "consumers.yaml"}, CodeInvalidArgument, "lint_against does not fetch", nil},
		{"no such revision", false, map[string]any{"against": "nope", "paths": []any{"dags"}}, CodeInvalidArgument, "no such revision", nil},
		{"no paths", false, map[string]any{"against": "main", "paths": []any{}}, CodeInvalidArgument, "paths is empty", nil},
		{"path outside the root", false, map[string]any{"against": "main", "paths": []any{"../outside.yaml"}}, CodeOutsideRoot, "is outside the root", nil},
		{"policy outside the root", false, map[string]any{"against": "main", "paths": []any{"dags"}, "policy": "../outside.yaml"}, CodeOutsideRoot, "is outside the root", nil},
		{"sub-DAG outside the root", false, map[string]any{"against": "main", "paths": []any{"escape"}}, CodeInvalidDAG, "against main: 1 file could not be judged",
			func(t *testing.T, d map[string]any) {
				nj, _ := d["not_judged"].([]any)
				if len(nj) != 1 || nj[0].(map[string]any)["path"] != "escape/sub.yaml" || num(d, "errors") == 0 {
					t.Errorf("details %v: want escape/sub.yaml not judged, and its errors", d)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := withStore
			if tt.noStore {
				cs = noStore
			}
			r := call(t, cs, "lint_against", tt.args)
			msg, _ := r.env["message"].(string)
			if errCode(r) != tt.code || !strings.Contains(msg, tt.message) {
				t.Fatalf("%s %q, want %q with %q: %v", errCode(r), msg, tt.code, tt.message, r.env)
			}
			if tt.check == nil {
				return
			}
			d := r.data()
			if tt.code != "" { // a failure's details are shaped as the data
				e, _ := r.env["error"].(map[string]any)
				d, _ = e["details"].(map[string]any)
			}
			tt.check(t, d)
		})
	}
}
