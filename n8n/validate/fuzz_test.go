package validate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidateJSON: no input makes the validator panic; every result is consistent.
// go test ./n8n/validate -run '^$' -fuzz FuzzValidateJSON -fuzztime 60s
func FuzzValidateJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"nodes": [{"name": "a", "type": "n8n-nodes-base.switch", "typeVersion": 3, "parameters": {"rules": {"values": 3}, "mode": 1}}], "connections": {"a": {"main": [null, [{"node": "a"}], 7]}}}`))
	f.Add([]byte(`{"nodes": [{"name": "x", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": "2", "parameters": {"options": "x", "hasOutputParser": "={{1}}"}}], "connections": {"x": {"ai_tool": [[{"node": "x", "type": "ai_tool", "index": 1e9}]]}}}`))
	cat := testCatalog(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, p := range Profiles() {
			r, err := ValidateJSON(context.Background(), doc, Options{Profile: p, Catalog: cat})
			if err != nil {
				return // not JSON
			}
			if r.Valid != (len(r.Errors) == 0) {
				t.Fatalf("valid %v with %d errors", r.Valid, len(r.Errors))
			}
		}
	})
}
