package dag

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
)

func n8nTestTypes() *nodes.Registry {
	r := nodes.Builtin()
	for _, t := range n8n.Types(n8n.Options{}) {
		r.Add(t)
	}
	return r
}

// TestLoadN8nDefaults: the n8n block's keys reach every n8n.* node's with, unless the node
// sets them; other nodes are left alone.
func TestLoadN8nDefaults(t *testing.T) {
	src := `version: 1
name: n8n-defaults
n8n: {url: "https://n8n.example.com", api_key_env: PROD_N8N_KEY, insecure: false}
nodes:
  list:
    type: n8n.workflows.list
  get:
    type: n8n.workflows.get
    with: {id: "7", url: "https://other.example.com"}
  anchored: &shared
    type: n8n.executions.list
    with: {limit: 5}
  again: *shared
  nullwith:
    type: n8n.workflows.list
    with:
  plain:
    type: const
    with: {value: {status: pass, summary: hi}}
`
	d, err := LoadBytes(context.Background(), "n8n.yaml", []byte(src), LoadOptions{Types: n8nTestTypes()})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]map[string]any{
		"list":     {"url": "https://n8n.example.com", "api_key_env": "PROD_N8N_KEY", "insecure": false},
		"get":      {"id": "7", "url": "https://other.example.com", "api_key_env": "PROD_N8N_KEY", "insecure": false},
		"anchored": {"limit": int64(5), "url": "https://n8n.example.com", "api_key_env": "PROD_N8N_KEY", "insecure": false},
		"again":    {"limit": int64(5), "url": "https://n8n.example.com", "api_key_env": "PROD_N8N_KEY", "insecure": false},
		"nullwith": {"url": "https://n8n.example.com", "api_key_env": "PROD_N8N_KEY", "insecure": false},
		"plain":    {"value": map[string]any{"status": "pass", "summary": "hi"}},
	}
	for id, want := range tests {
		got, ok := d.ByID[id].With.Literal()
		if !ok {
			t.Fatalf("%s: with is not literal", id)
		}
		if !reflect.DeepEqual(normalizeNumbers(got), want) {
			t.Errorf("%s: with = %#v, want %#v", id, got, want)
		}
	}
}

// normalizeNumbers turns the loader's number types into int64 for comparison.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	case int:
		return int64(x)
	case interface{ Int64() (int64, error) }:
		if n, err := x.Int64(); err == nil {
			return n
		}
	}
	return v
}

// TestLoadN8nEmptyBlock: an empty block changes nothing.
func TestLoadN8nEmptyBlock(t *testing.T) {
	src := "version: 1\nname: empty\nn8n:\nnodes:\n  list: {type: n8n.workflows.list}\n"
	d, err := LoadBytes(context.Background(), "n8n.yaml", []byte(src), LoadOptions{Types: n8nTestTypes()})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := d.ByID["list"].With.Literal(); !reflect.DeepEqual(got, map[string]any{}) {
		t.Fatalf("with = %#v", got)
	}
}

func TestLoadN8nErrors(t *testing.T) {
	tests := []struct {
		name, block string
		want        string
	}{
		{"unknown key", `n8n: {url: "https://x.example.com", api_key: N8N_API_KEY}`,
			`n8n.yaml:3:37: error SEAM-E101 unknown key "api_key" in n8n; did you mean "api_key_env"?`},
		{"not a mapping", `n8n: https://x.example.com`,
			`n8n.yaml:3:6: error SEAM-E113 n8n must be a mapping, not a string`},
		{"url not a string", `n8n: {url: 5}`,
			`n8n.yaml:3:12: error SEAM-E113 n8n.url must be a string, not a number`},
		{"empty url", `n8n: {url: ""}`,
			`n8n.yaml:3:12: error SEAM-E113 n8n.url must not be empty`},
		{"a key instead of a variable name", `n8n: {api_key_env: "n8n_api_abc.def-123"}`,
			`n8n.yaml:3:20: error SEAM-E113 n8n.api_key_env must be an environment variable name, not "n8n_api_abc.def-123"`},
		{"insecure not a boolean", `n8n: {insecure: "yes"}`,
			`n8n.yaml:3:17: error SEAM-E113 n8n.insecure must be a boolean, not "yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\nname: bad\n" + tt.block + "\nnodes:\n  list: {type: n8n.workflows.list}\n"
			_, err := LoadBytes(context.Background(), "n8n.yaml", []byte(src), LoadOptions{Types: n8nTestTypes()})
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("error %v, want diagnostics", err)
			}
			if !strings.Contains(ds.Error(), tt.want) {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", ds.Error(), tt.want)
			}
		})
	}
}

// TestLoadN8nNodeValueChecked: the node's own value wins over the block's and is checked
// against the type's config schema where the node writes it.
func TestLoadN8nNodeValueChecked(t *testing.T) {
	src := "version: 1\nname: bad\nn8n:\n  url: \"https://x.example.com\"\nnodes:\n  hook:\n    type: n8n.webhook\n    with: {path: p, url: \"\"}\n"
	_, err := LoadBytes(context.Background(), "n8n.yaml", []byte(src), LoadOptions{Types: n8nTestTypes()})
	if err == nil || !strings.Contains(err.Error(), "n8n.yaml:8:26: error SEAM-E114 node \"hook\": with: field 'url' must have minLength 1") {
		t.Fatalf("error = %v", err)
	}
}
