package contract

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// inline compiles a schema written as JSON, numbers kept as written.
func inline(t *testing.T, c *Compiler, schema string) *Schema {
	t.Helper()
	s, err := c.Inline(t.Name(), parse(t, schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return s
}

func parse(t *testing.T, doc string) any {
	t.Helper()
	v, err := ParseJSON([]byte(doc))
	if err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	return v
}

// writeFiles creates files (path → content) under a new temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func standard(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../schemas/node-output.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mathNaN() float64 { return math.NaN() }
