package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPCatalog: validate_output and check_compatibility take catalog folders under the root,
// so that schemas that refer to vendored ones by absolute URL compile; nothing is fetched, and
// a folder outside the root is not read.
func TestMCPCatalog(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "vendor", "ss"), 0o755); err != nil {
		t.Fatal(err)
	}
	ruff := `{"$id": "https://json.schemastore.org/ruff.json", "type": "object", "properties": {"line-length": {"type": "integer"}}}`
	if err := os.WriteFile(filepath.Join(root, "vendor", "ss", "ruff.json"), []byte(ruff), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := map[string]any{"$ref": "https://json.schemastore.org/ruff.json"}
	prefix := []any{"https://json.schemastore.org/=vendor/ss"}
	tests := []struct {
		name, tool string
		args       map[string]any
		code, msg  string
	}{
		{"valid", "validate_output", map[string]any{"schema": ref, "catalog": prefix, "value": map[string]any{"line-length": 88}}, "", "valid"},
		{"invalid", "validate_output", map[string]any{"schema": ref, "catalog": prefix, "value": map[string]any{"line-length": "88"}}, "", "invalid: 1 violation"},
		{"by $id", "validate_output", map[string]any{"schema": ref, "catalog": []any{"vendor"}, "value": map[string]any{"line-length": 88}}, "", "valid"},
		{"no catalog", "validate_output", map[string]any{"schema": ref, "value": 1}, CodeInvalidSchema, "remote $ref refused: https://json.schemastore.org/ruff.json"},
		{"outside the root", "validate_output", map[string]any{"schema": ref, "catalog": []any{"https://json.schemastore.org/=.."}, "value": 1}, CodeInvalidSchema, "outside the root"},
		{"bad prefix", "validate_output", map[string]any{"schema": ref, "catalog": []any{"ftp://x/=vendor"}, "value": 1}, CodeInvalidArgument, `prefix "ftp://x/" is not an http(s) URL ending in /`},
		{"compat", "check_compatibility", map[string]any{"a": map[string]any{"type": "object", "properties": map[string]any{"r": ref}}, "b": map[string]any{"type": "string"}, "catalog": prefix}, "", "incompatible"},
	}
	cs := serveLang(t, root, "en")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if errCode(r) != tc.code {
				t.Fatalf("code %q, want %q: %v", errCode(r), tc.code, r.env)
			}
			if msg := r.env["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q, want it to contain %q", msg, tc.msg)
			}
		})
	}
}
