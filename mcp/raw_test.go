package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMCPRawVsMinimal checks that raw returns everything and minimal only what the next call
// needs, for data and for error details.
func TestMCPRawVsMinimal(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		field    string // in data, or error.details for failures
		minimal  bool   // whether the field is in the minimal answer
		rawField bool   // whether it is in the raw one
	}{
		{"lint findings", "lint_dag", map[string]any{"path": "dags/lint-incompatible.yaml"}, "findings", false, true},
		{"lint first errors", "lint_dag", map[string]any{"path": "dags/lint-incompatible.yaml"}, "first", true, false},
		{"diagnostics", "lint_dag", map[string]any{"path": "broken.yaml"}, "diagnostics", false, true},
		{"first diagnostics", "lint_dag", map[string]any{"path": "broken.yaml"}, "errors", true, false},
		{"run nodes", "run_dag", map[string]any{"path": "dags/fan-in.yaml", "wait": true}, "started", false, true},
		{"run counts", "run_dag", map[string]any{"path": "dags/fan-in.yaml", "wait": true}, "problems", true, false},
		{"stored attempts", "get_run", map[string]any{"id": "latest"}, "attempts", false, true},
		{"violation keywords", "validate_output", map[string]any{"value": 1, "schema": map[string]any{"type": "string"}}, "count", true, true},
		{"compat rule", "check_compatibility", map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "integer"}}, "rule", false, true},
		{"list dags descriptions", "list_dags", map[string]any{}, "count", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, raw := range []bool{false, true} {
				args := map[string]any{"raw": raw}
				for k, v := range tc.args {
					args[k] = v
				}
				r := call(t, cs, tc.tool, args)
				part := r.data()
				if errCode(r) != "" {
					part, _ = r.env["error"].(map[string]any)["details"].(map[string]any)
				}
				_, has := part[tc.field]
				if want := tc.rawField; !raw {
					want = tc.minimal
					if has != want {
						t.Errorf("minimal: has %q = %v, want %v: %v", tc.field, has, want, part)
					}
				} else if has != want {
					t.Errorf("raw: has %q = %v, want %v: %v", tc.field, has, want, part)
				}
			}
		})
	}
}

// TestMCPInvalidArguments checks that arguments breaking a tool's input schema are refused
// before the tool runs, as an error result the model can read: a misspelt name gets the name
// it likely meant, a value outside a closed set gets the set.
func TestMCPInvalidArguments(t *testing.T) {
	cs := serveLang(t, testRoot(t), "en")
	tests := []struct {
		name string
		tool string
		args map[string]any
		msg  string
	}{
		{"wrong type", "lint_dag", map[string]any{"path": 3}, "path"},
		{"unknown argument", "get_run", map[string]any{"id": "x", "verbose": true},
			`arguments: "verbose" is not an argument: the tool takes id, raw`},
		{"misspelt argument", "list_runs", map[string]any{"stauts": "failed"},
			`arguments: "stauts" is not an argument; did you mean "status"?`},
		{"missing required", "check_compatibility", map[string]any{"a": map[string]any{}},
			`arguments: "b" is missing (the tool's input schema describes it)`},
		{"run status", "list_runs", map[string]any{"status": "failing"},
			`arguments: status "failing": want one of running, waiting, success, warn, failed, canceled`},
		{"run status of another type", "list_runs", map[string]any{"status": 3},
			`arguments: status 3: want one of running, waiting, success, warn, failed, canceled`},
		{"execution status", "list_executions", map[string]any{"status": "failed"},
			`arguments: status "failed": want one of canceled, error, running, success, waiting`},
		{"profile", "validate_workflow", map[string]any{"workflow": badWorkflow("w"), "profile": "lenient"},
			`arguments: profile "lenient": want one of minimal, runtime, ai-friendly, strict`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if msg := r.env["message"].(string); errCode(r) != CodeInvalidArgument || !strings.HasPrefix(msg, "arguments: ") || !strings.Contains(msg, tc.msg) {
				t.Errorf("got %v, want invalid_argument naming %s", r.env, tc.msg)
			}
		})
	}
	// An optional argument given empty is absent, closed set or not.
	if r := call(t, cs, "list_runs", map[string]any{"status": ""}); errCode(r) != "" {
		t.Errorf("status \"\": %v", r.env)
	}
}

// TestMCPClosedSets checks that arguments taking one of a closed set of values declare it as
// the input schema's enum, and that required arguments are the schema's required.
func TestMCPClosedSets(t *testing.T) {
	cs := serveLang(t, testRoot(t), "en")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tool := range res.Tools {
		schemas[tool.Name] = tool.InputSchema.(map[string]any)
	}
	tests := []struct {
		tool, arg string
		enum      []any
	}{
		{"list_runs", "status", []any{"running", "waiting", "success", "warn", "failed", "canceled"}},
		{"list_executions", "status", []any{"canceled", "error", "running", "success", "waiting"}},
		{"validate_workflow", "profile", []any{"minimal", "runtime", "ai-friendly", "strict"}},
	}
	for _, tc := range tests {
		p, _ := schemas[tc.tool]["properties"].(map[string]any)[tc.arg].(map[string]any)
		if !reflect.DeepEqual(p["enum"], tc.enum) {
			t.Errorf("%s %s: enum %v, want %v", tc.tool, tc.arg, p["enum"], tc.enum)
		}
	}
	for tool, want := range map[string][]any{"explain_node": {"run", "node"}, "check_compatibility": {"a", "b"}, "cancel_run": {"id"}} {
		if got := schemas[tool]["required"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: required %v, want %v", tool, got, want)
		}
	}
}

// TestMCPServerOptions checks the tools a server offers without a store and in read-only
// mode, and that raw defaults to false in every input schema.
func TestMCPServerOptions(t *testing.T) {
	root := testRoot(t)
	t.Run("no store", func(t *testing.T) {
		cs := connect(t, root, false)
		tests := []struct {
			tool string
			args map[string]any
		}{
			{"get_run", map[string]any{"id": "latest"}},
			{"list_runs", map[string]any{}},
		}
		for _, tc := range tests {
			r := call(t, cs, tc.tool, tc.args)
			if errCode(r) != CodeNoStore || !strings.Contains(r.env["message"].(string), "no run store: start it with --store") {
				t.Errorf("%s: %v", tc.tool, r.env)
			}
		}
	})
	t.Run("read-only", func(t *testing.T) {
		cs := connectWith(t, Options{Root: root, ReadOnly: true})
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != 14 { // list_approvals, get_approval, list_schedules, next_fires and schedule_history read too
			t.Errorf("%d tools, want 14", len(res.Tools))
		}
		for _, tool := range res.Tools {
			if tool.Name == "run_dag" || !tool.Annotations.ReadOnlyHint {
				t.Errorf("read-only server offers %s (readOnly %v)", tool.Name, tool.Annotations.ReadOnlyHint)
			}
			raw, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)["raw"].(map[string]any)
			if raw["type"] != "boolean" || raw["default"] != false {
				t.Errorf("%s: raw is %v, want a boolean defaulting to false", tool.Name, raw)
			}
		}
	})
}

func TestMCPNewServerErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no types", Options{Root: t.TempDir()}, "mcp server: no node types given"},
		{"missing root", Options{Root: filepath.Join(t.TempDir(), "nope"), Types: builtinTypes}, "mcp server: root "},
		{"root is a file", Options{Root: file, Types: builtinTypes}, "not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewServer(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestMCPListRunsPages checks that list_runs pages with next_cursor, and that raw runs carry
// their params and times.
func TestMCPListRunsPages(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	for _, who := range []string{"ada", "bob"} {
		if r := call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "wait": true, "params": map[string]any{"who": who}}); errCode(r) != "" {
			t.Fatalf("run: %v", r.env)
		}
	}
	page1 := call(t, cs, "list_runs", map[string]any{"limit": 1, "raw": true}).data()
	cursor, _ := page1["next_cursor"].(string)
	if cursor == "" || num(page1, "count") != 1 {
		t.Fatalf("first page %v: want one run and a cursor", page1)
	}
	run1 := page1["runs"].([]any)[0].(map[string]any)
	if run1["params"].(map[string]any)["who"] != "bob" || run1["started"] == nil {
		t.Errorf("raw run %v: want the newest run's params and start", run1)
	}
	page2 := call(t, cs, "list_runs", map[string]any{"limit": 1, "cursor": cursor}).data()
	run2 := page2["runs"].([]any)[0].(map[string]any)
	if run2["id"] == run1["id"] || run2["status"] != "success" {
		t.Errorf("second page %v after %v", run2, run1)
	}
	if _, has := run2["params"]; has {
		t.Errorf("minimal run carries params: %v", run2)
	}
}
