package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/workspace"
)

// testRoot builds a root holding a copy of the dags/ examples, a DAG with params, a file
// that does not load, and a symbolic link leading out of the root. It returns the root.
func testRoot(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.CopyFS(filepath.Join(root, "dags"), os.DirFS("../dags")); err != nil {
		t.Fatalf("copy dags: %v", err)
	}
	files := map[string]string{
		"greet.yaml": `version: 1
name: greet
params:
  type: object
  required: [who]
  properties:
    who: {type: string}
nodes:
  hello:
    type: const
    with: {value: {status: pass, summary: "hello ${{ params.who }}"}}
outputs:
  greeting: "${{ nodes.hello.output.summary }}"
`,
		"broken.yaml":            "version: 1\nname: broken\nnodes:\n  a:\n    type: no-such-type\n",
		"schemas/not-a-dag.yaml": "type: object\n",
		"../outside/secret.yaml": "version: 1\nname: secret\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: secret}}\n",
		"../outside/secret.json": `{"const": "SECRET-abc123"}`,
		"schemas/inside.json":    `{"type": "integer"}`,
		"sub-escape.yaml":        "version: 1\nname: sub-escape\nnodes:\n  s:\n    type: dag\n    with: {file: ../outside/secret.yaml}\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside", "secret.yaml"), filepath.Join(root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	return root
}

// connect starts a server on root and returns a real client session connected to it in
// memory.
func connect(t *testing.T, root string, withStore bool) *sdk.ClientSession {
	t.Helper()
	opts := Options{Root: root}
	if withStore {
		opts.Store = tempStore(t)
	}
	return connectWith(t, opts)
}

// tempStore opens a run store in a temporary directory, closed when the test ends.
func tempStore(t *testing.T) runs.Store {
	t.Helper()
	st, err := runs.Open(t.Context(), filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// connectWith is connect with options; it supplies the built-in node types and English.
func connectWith(t *testing.T, opts Options) *sdk.ClientSession {
	t.Helper()
	_, cs := serve(t, opts, nil)
	return cs
}

// testTypes are the built-in node types and dag (loading through w), reading no
// environment.
func testTypes(w *workspace.Workspace) *nodes.Registry {
	reg := nodes.Builtin()
	engine.AddDAGType(reg, func(string) string { return "" }, w)
	return reg
}

// builtinTypes are the built-in node types alone.
func builtinTypes(*workspace.Workspace) *nodes.Registry { return nodes.Builtin() }

// reply is a tool result as the client sees it: the envelope, decoded, and the text's size.
type reply struct {
	res  *sdk.CallToolResult
	env  map[string]any
	size int
}

func (r reply) data() map[string]any {
	d, _ := r.env["data"].(map[string]any)
	return d
}

// call calls a tool and checks the envelope: the text content is the JSON of the
// structured content, success and isError agree, and failures carry a code.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) reply {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	var fromText, fromStructured map[string]any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("%s: text content is not a JSON object: %v\n%s", name, err, text.Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fromStructured); err != nil {
		t.Fatalf("%s: structured content: %v", name, err)
	}
	if !reflect.DeepEqual(fromText, fromStructured) {
		t.Fatalf("%s: text and structured content differ:\n%s\n%s", name, text.Text, b)
	}
	success, _ := fromText["success"].(bool)
	if success == res.IsError {
		t.Fatalf("%s: success %v with isError %v", name, success, res.IsError)
	}
	if msg, _ := fromText["message"].(string); msg == "" {
		t.Errorf("%s: empty message", name)
	}
	if !success {
		e, _ := fromText["error"].(map[string]any)
		if code, _ := e["code"].(string); code == "" {
			t.Fatalf("%s: failure without error.code: %s", name, text.Text)
		}
		if _, has := fromText["data"]; has {
			t.Errorf("%s: failure carries data", name)
		}
	}
	return reply{res: res, env: fromText, size: len(text.Text)}
}

func errCode(r reply) string {
	e, _ := r.env["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func num(m map[string]any, key string) int {
	f, _ := m[key].(float64)
	return int(f)
}

func TestMCPTools(t *testing.T) {
	root := testRoot(t)
	cs := connect(t, root, true)
	ref := func(rel string) map[string]any {
		return map[string]any{"$ref": "file://" + filepath.ToSlash(filepath.Join(root, rel))}
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		code    string // "" for success
		message string // a part of the message
		check   func(t *testing.T, d map[string]any)
	}{
		{"lint compatible", "lint_dag", map[string]any{"path": "dags/lint-compatible.yaml"}, "", "0 errors", func(t *testing.T, d map[string]any) {
			if d["dag"] == "" || num(d, "errors") != 0 {
				t.Errorf("data %v", d)
			}
		}},
		{"lint incompatible", "lint_dag", map[string]any{"path": "dags/lint-incompatible.yaml"}, "", "error", func(t *testing.T, d map[string]any) {
			first, _ := d["first"].([]any)
			if num(d, "errors") == 0 || len(first) == 0 || len(first) > minimalErrors {
				t.Fatalf("want errors and 1..3 first findings: %v", d)
			}
			if f := first[0].(map[string]any); f["severity"] != "error" || f["node"] == nil || f["message"] == "" {
				t.Errorf("first finding %v: want an error with its node and message", f)
			}
			if _, has := d["findings"]; has {
				t.Errorf("minimal lint carries all findings")
			}
		}},
		{"lint does not load", "lint_dag", map[string]any{"path": "broken.yaml"}, CodeInvalidDAG, "broken.yaml does not load: 1 error", nil},
		{"lint missing", "lint_dag", map[string]any{"path": "nope.yaml"}, CodeNotFound, `no file "nope.yaml" under the root`, nil},
		{"lint empty path", "lint_dag", map[string]any{"path": ""}, CodeInvalidArgument, "give path (a DAG file under the root", nil},
		{"lint inline", "lint_dag", map[string]any{"yaml": "version: 1\nname: inline\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: a}}\n"}, "", "the inline DAG: 0 errors", nil},
		{"lint inline broken", "lint_dag", map[string]any{"yaml": "version: 1\nname: inline\nnodes:\n  a:\n    type: nope\n"}, CodeInvalidDAG, "(inline).yaml does not load: 1 error", nil},
		{"lint path and inline", "lint_dag", map[string]any{"path": "greet.yaml", "yaml": "version: 1"}, CodeInvalidArgument, "give either path or yaml, not both", nil},
		{"escape with ..", "lint_dag", map[string]any{"path": "../outside/secret.yaml"}, CodeOutsideRoot, `path "../outside/secret.yaml" is outside the root`, nil},
		{"escape hidden in the middle", "lint_dag", map[string]any{"path": "dags/../../outside/secret.yaml"}, CodeOutsideRoot, "is outside the root", nil},
		{"absolute path outside", "lint_dag", map[string]any{"path": "/etc/passwd"}, CodeOutsideRoot, `path "/etc/passwd" is outside the root`, nil},
		{"symlink escape", "lint_dag", map[string]any{"path": "link.yaml"}, CodeOutsideRoot, `path "link.yaml" is a symbolic link that leads outside the root`, nil},
		{"sub-DAG escape", "run_dag", map[string]any{"path": "sub-escape.yaml", "wait": true}, CodeOutsideRoot, "sub-escape.yaml names the file", nil},
		{"sub-DAG escape through a symbolic link", "lint_dag", map[string]any{"yaml": "version: 1\nname: x\nnodes:\n  s:\n    type: dag\n    with: {file: link.yaml}\n"}, CodeOutsideRoot, "(inline).yaml names the file", nil},
		{"sub-DAG escape by an absolute path", "lint_dag", map[string]any{"yaml": "version: 1\nname: x\nnodes:\n  s:\n    type: dag\n    with: {file: /etc/passwd}\n"}, CodeOutsideRoot, "(inline).yaml names the file /etc/passwd, which is not under the root", nil},
		{"contract escape", "lint_dag", map[string]any{"yaml": "version: 1\nname: x\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: a}}\n    contract: {output: ../outside/secret.json}\n"}, CodeInvalidDAG, "(inline).yaml does not load: 1 error", func(t *testing.T, d map[string]any) {
			if b, _ := json.Marshal(d); !strings.Contains(string(b), "outside") || strings.Contains(string(b), "SECRET-abc123") {
				t.Errorf("details %s: want the schema file said outside the root, not its content", b)
			}
		}},
		{"sub-DAG inside", "lint_dag", map[string]any{"path": "dags/sub-dag.yaml"}, "", "0 errors", nil},
		{"run inline sub-DAG escape", "run_dag", map[string]any{"yaml": "version: 1\nname: x\nnodes:\n  s:\n    type: dag\n    with: {file: ../outside/secret.yaml}\n"}, CodeOutsideRoot, "(inline).yaml names the file", nil},
		{"run escape", "run_dag", map[string]any{"path": "../outside/secret.yaml", "wait": true}, CodeOutsideRoot, "outside the root", nil},
		{"run bad params", "run_dag", map[string]any{"path": "greet.yaml", "wait": true, "params": map[string]any{"who": 3}}, CodeInvalidParams, "params break the DAG's params schema", func(t *testing.T, d map[string]any) {}},
		{"run lint errors", "run_dag", map[string]any{"path": "dags/lint-incompatible.yaml", "wait": true}, CodeLintFailed, "was not run: lint found", nil},
		{"run", "run_dag", map[string]any{"path": "greet.yaml", "wait": true, "params": map[string]any{"who": "ada"}}, "", "greet: success", func(t *testing.T, d map[string]any) {
			if d["id"] == "" || d["status"] != "success" {
				t.Errorf("data %v", d)
			}
			if out, _ := d["outputs"].(map[string]any); out["greeting"] != "hello ada" {
				t.Errorf("outputs %v", d["outputs"])
			}
			if _, has := d["nodes"].(map[string]any)["passed"]; !has {
				t.Errorf("no node counts: %v", d)
			}
		}},
		{"get latest run", "get_run", map[string]any{"id": "latest"}, "", "greet: success", func(t *testing.T, d map[string]any) {
			if d["status"] != "success" || num(d["nodes"].(map[string]any), "passed") != 1 {
				t.Errorf("data %v", d)
			}
		}},
		{"get unknown run", "get_run", map[string]any{"id": "nope"}, CodeRunNotFound, `no run "nope" in the run store`, nil},
		{"list runs", "list_runs", map[string]any{"dag": "greet"}, "", "1 run", func(t *testing.T, d map[string]any) {
			rs, _ := d["runs"].([]any)
			if len(rs) != 1 || num(d, "count") != 1 {
				t.Fatalf("data %v", d)
			}
			if r := rs[0].(map[string]any); len(r) != 3 || r["status"] != "success" {
				t.Errorf("minimal run %v, want id, dag and status", r)
			}
		}},
		{"list runs bad since", "list_runs", map[string]any{"since": "yesterday"}, CodeInvalidArgument, `since "yesterday": want an RFC 3339 time`, nil},
		{"list dags", "list_dags", map[string]any{}, "", "DAG files under the root", func(t *testing.T, d map[string]any) {
			found := map[string]map[string]any{}
			for _, e := range d["dags"].([]any) {
				m := e.(map[string]any)
				found[m["path"].(string)] = m
			}
			if g := found["greet.yaml"]; g == nil || g["name"] != "greet" || g["params"] == nil {
				t.Errorf("greet.yaml: %v", g)
			}
			if found["dags/hello.yaml"] == nil || found["schemas/not-a-dag.yaml"] != nil {
				t.Errorf("dags: %v", found)
			}
			// broken.yaml is reported; link.yaml, which leads out of the root, is not even read.
			broken := map[any]bool{}
			for _, e := range d["broken"].([]any) {
				broken[e.(map[string]any)["path"]] = true
			}
			if !broken["broken.yaml"] || broken["link.yaml"] || found["link.yaml"] != nil {
				t.Errorf("broken: %v; dags: %v", d["broken"], found)
			}
		}},
		{"valid output", "validate_output", map[string]any{"value": map[string]any{"n": 1}, "schema": map[string]any{"type": "object", "required": []any{"n"}}}, "", "valid", func(t *testing.T, d map[string]any) {
			if d["valid"] != true {
				t.Errorf("data %v", d)
			}
		}},
		{"invalid output", "validate_output", map[string]any{"value": map[string]any{"status": 3}, "schema": map[string]any{
			"type": "object", "required": []any{"status", "summary", "a", "b"}, "properties": map[string]any{"status": map[string]any{"type": "string"}},
		}}, "", "invalid: ", func(t *testing.T, d map[string]any) {
			vs, _ := d["violations"].([]any)
			if d["valid"] != false || num(d, "count") <= minimalErrors || len(vs) != minimalErrors {
				t.Errorf("want more than 3 violations, 3 shown: %v", d)
			}
		}},
		{"schema $ref under the root", "validate_output", map[string]any{"value": "x", "schema": ref("schemas/inside.json")}, "", "invalid: 1 violation", nil},
		{"schema $ref outside the root", "validate_output", map[string]any{"value": "x", "schema": ref("../outside/secret.json")}, CodeInvalidSchema, "outside the root", nil},
		{"output not JSON", "validate_output", map[string]any{"json": "{not json", "schema": map[string]any{}}, "", "invalid: 1 violation", func(t *testing.T, d map[string]any) {
			vs := d["violations"].([]any)
			if msg := vs[0].(map[string]any)["message"]; msg != "output is not valid JSON" {
				t.Errorf("message %q", msg)
			}
		}},
		{"node contract", "validate_output", map[string]any{"value": map[string]any{"status": "done"}, "node": "dags/hello.yaml#greet"}, "", "invalid: 2 violations", func(t *testing.T, d map[string]any) {
			vs := d["violations"].([]any)
			if msg := vs[0].(map[string]any)["message"]; msg != "field 'status' must be one of: pass, warn, fail" && msg != "missing required field: summary" {
				t.Errorf("violations %v", vs)
			}
		}},
		{"unknown node", "validate_output", map[string]any{"value": 1, "node": "dags/hello.yaml#nope"}, CodeNotFound, `dags/hello.yaml has no node "nope"; its nodes: greet, echo`, nil},
		{"node escape", "validate_output", map[string]any{"value": 1, "node": "../outside/secret.yaml#a"}, CodeOutsideRoot, "outside the root", nil},
		{"bad node ref", "validate_output", map[string]any{"value": 1, "node": "dags/hello.yaml"}, CodeInvalidArgument, "want path#id", nil},
		{"schema and node", "validate_output", map[string]any{"value": 1, "node": "a#b", "schema": map[string]any{}}, CodeInvalidArgument, "give schema or node, not both", nil},
		{"bad schema", "validate_output", map[string]any{"value": 1, "schema": map[string]any{"type": 7}}, CodeInvalidSchema, "schema is not a valid JSON Schema", nil},
		{"compatible", "check_compatibility", map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "number"}}, "", "compatible", func(t *testing.T, d map[string]any) {
			if d["verdict"] != "compatible" {
				t.Errorf("data %v", d)
			}
		}},
		{"incompatible", "check_compatibility", map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "integer"}}, "", "incompatible", func(t *testing.T, d map[string]any) {
			if d["verdict"] != "incompatible" || d["witness"] == nil {
				t.Errorf("want a witness: %v", d)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if got := errCode(r); got != tc.code {
				t.Fatalf("code %q, want %q: %v", got, tc.code, r.env)
			}
			if msg := r.env["message"].(string); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want it to contain %q", msg, tc.message)
			}
			if tc.check != nil && tc.code == "" {
				tc.check(t, r.data())
			}
		})
	}
}
