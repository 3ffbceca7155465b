package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunExamples runs every example DAG in dags/ and checks its exit code and what it
// prints. A new example needs an entry here.
func TestRunExamples(t *testing.T) {
	type want struct {
		code   int
		stdout []string // substrings
	}
	wants := map[string]want{
		"hello.yaml":           {0, []string{"✓ echo", " success in ", `said: "greet said: hello, world\n"`}},
		"fan-in.yaml":          {0, []string{"! west", " warn in ", "total: 9"}},
		"transform.yaml":       {0, []string{"✓ revenue", " success in ", `report: "ada: 32, bob: 35.5"`}},
		"lint-compatible.yaml": {0, []string{"✓ report", " success in ", `report: "bug scored 7 of 10"`}},
		// Run anyway, the edge seam lint rejects fails at run time on prioritise's contract.input.
		"lint-incompatible.yaml": {1, []string{"✗ prioritise", "/priority: missing required field: priority", " failed in "}},
		"broken-contract.yaml": {1, []string{
			"✗ classify  failed",
			"    /data/label: field 'data.label' is required\n",
			"- publish   skipped           upstream classify failed\n",
			" failed in ",
		}},
	}
	files, err := filepath.Glob("../../dags/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example DAGs in dags/")
	}
	getenv := func(k string) string {
		if k == "SEAM_LANG" {
			return "en"
		}
		return ""
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("no expectation for dags/%s: add one to this test", name)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"run", file}, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != w.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, w.code, &stdout, &stderr)
			}
			for _, s := range w.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, &stdout)
				}
			}
		})
	}
}
