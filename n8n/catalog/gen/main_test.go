package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/n8n/catalog"
)

// fakeN8N writes an install folder with the two packages' nodes.json.
func fakeN8N(t *testing.T, base, langchain string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, "node_modules", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("n8n/package.json", `{"version": "9.9.9"}`)
	write("n8n-nodes-base/package.json", `{"version": "9.9.1"}`)
	write("@n8n/n8n-nodes-langchain/package.json", `{"version": "9.9.2"}`)
	if base != "" {
		write("n8n-nodes-base/dist/types/nodes.json", base)
	}
	write("@n8n/n8n-nodes-langchain/dist/types/nodes.json", langchain)
	return dir
}

func baseNodes() string {
	return `[
 {"name": "thing", "displayName": "Thing", "group": ["transform"], "version": [1, 2], "defaultVersion": 2,
  "inputs": ["main"], "outputs": ["main", "main"], "outputNames": ["a", "b"], "usableAsTool": true,
  "credentials": [{"name": "thingApi", "required": true}],
  "properties": [
   {"displayName": "Op", "name": "operation", "type": "options", "default": "get", "options": [{"name": "Get", "value": "get"}]},
   {"displayName": "Note", "name": "n", "type": "notice", "default": ""},
   {"displayName": "Code", "name": "code", "type": "string", "default": "` + strings.Repeat("x", 100) + `"},
   {"displayName": "Opts", "name": "options", "type": "collection", "default": {}, "options": [{"displayName": "A", "name": "a", "type": "boolean", "default": false}]},
   {"displayName": "Rules", "name": "rules", "type": "fixedCollection", "default": {}, "typeOptions": {"multipleValues": true},
    "options": [{"name": "values", "displayName": "V", "values": [{"displayName": "K", "name": "k", "type": "string", "default": "", "required": true}]}],
    "displayOptions": {"show": {"@version": [{"_cnd": {"gte": 2}}]}}}
  ]},
 {"name": "thingTrigger", "displayName": "Thing Trigger", "group": ["trigger"], "version": 1, "inputs": [], "outputs": ["main"], "properties": []}
]`
}

const langchainNodes = `[
 {"name": "brain", "displayName": "Brain", "group": ["transform"], "version": 1,
  "inputs": "={{ ((p) => [{type: 'main'}, {type: 'ai_languageModel'}])($parameter) }}", "outputs": ["main"], "properties": []}
]`

func TestGen(t *testing.T) {
	dir := fakeN8N(t, baseNodes(), langchainNodes)
	out := filepath.Join(t.TempDir(), "catalog.pack")
	if err := run(dir, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.N8N() != "9.9.9" || c.Packages()["n8n-nodes-base"] != "9.9.1" || c.Packages()["@n8n/n8n-nodes-langchain"] != "9.9.2" {
		t.Errorf("versions %s %v", c.N8N(), c.Packages())
	}
	want := "@n8n/n8n-nodes-langchain.brain n8n-nodes-base.thing n8n-nodes-base.thingTool n8n-nodes-base.thingTrigger"
	if got := strings.Join(c.Types(), " "); got != want {
		t.Errorf("types %s", got)
	}
	n, _ := c.Lookup("n8n-nodes-base.thing", 2)
	if n.DefaultVersion != 2 || len(n.Outputs) != 2 || n.OutputNames[1] != "b" || !n.UsableAsTool || n.Credentials[0].Name != "thingApi" {
		t.Errorf("thing: %+v", n)
	}
	if n.Prop("n") != nil {
		t.Error("a notice was kept")
	}
	if p := n.Prop("code"); p == nil || !p.BigDefault || p.Default != nil {
		t.Errorf("long default: %+v", p)
	}
	if p := n.Prop("rules"); p == nil || !p.Multiple || p.Groups[0].Props[0].Name != "k" || p.Show == nil {
		t.Errorf("fixedCollection: %+v", p)
	}
	if p := n.Prop("operation"); p == nil || len(p.Options) != 1 || p.Options[0] != "get" {
		t.Errorf("options: %+v", p)
	}
	trig, _ := c.Lookup("n8n-nodes-base.thingTrigger", 1)
	if !trig.Trigger {
		t.Error("trigger not marked")
	}
	brain, _ := c.Lookup("@n8n/n8n-nodes-langchain.brain", 1)
	if brain.Inputs != nil || strings.Join(brain.DynInputs, ",") != "ai_languageModel,main" {
		t.Errorf("dynamic inputs %+v %v", brain.Inputs, brain.DynInputs)
	}
	tool, _ := c.Lookup("n8n-nodes-base.thingTool", 2)
	if tool.ToolOf != "n8n-nodes-base.thing" || tool.Outputs[0].Type != "ai_tool" {
		t.Errorf("tool variant %+v", tool)
	}
}

func TestGenErrors(t *testing.T) {
	tests := []struct {
		name, base, langchain, want string
	}{
		{"no nodes.json", "", "[]", "read n8n-nodes-base nodes: open "},
		{"not JSON", "{", "[]", "decode n8n-nodes-base nodes.json: unexpected end of JSON input"},
		{"no name", `[{"version": 1}]`, "[]", "n8n-nodes-base: a node description without a name"},
		{"no version", `[{"name": "x"}]`, "[]", "n8n-nodes-base: n8n-nodes-base.x: no version"},
	}
	for _, tt := range tests {
		dir := fakeN8N(t, tt.base, tt.langchain)
		err := run(dir, filepath.Join(t.TempDir(), "c.pack"))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	err := run(t.TempDir(), filepath.Join(t.TempDir(), "c.pack"))
	if err == nil || !strings.HasPrefix(err.Error(), "read package version: open ") {
		t.Errorf("no install: %v", err)
	}
	dir := fakeN8N(t, "[]", "[]")
	err = run(dir, filepath.Join(t.TempDir(), "missing", "c.pack"))
	if err == nil || !strings.HasPrefix(err.Error(), "write catalog: open ") {
		t.Errorf("unwritable: %v", err)
	}
}
