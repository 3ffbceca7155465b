package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateExamples: every example DAG in dags/ simulates with exit 0, reads no secret
// (http.yaml's token is set and never shown) and records nothing (the store is never made).
func TestSimulateExamples(t *testing.T) {
	files, err := filepath.Glob("../../dags/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example DAGs in dags/: %v", err)
	}
	store := filepath.Join(t.TempDir(), "seam.db")
	getenv := func(k string) string {
		return map[string]string{"SEAM_LANG": "en", "SEAM_STORE": store, "TRACKER_TOKEN": trackerToken}[k]
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			for _, args := range [][]string{{"run", "--simulate", file}, {"run", "--simulate", "--json", file}} {
				var stdout, stderr bytes.Buffer
				if code := run(args, strings.NewReader(""), &stdout, &stderr, getenv); code != 0 {
					t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, &stdout, &stderr)
				}
				if !strings.Contains(stdout.String(), "simulated") {
					t.Errorf("%v: no report:\n%s", args, &stdout)
				}
				if strings.Contains(stdout.String()+stderr.String(), trackerToken) {
					t.Errorf("%v: the secret reached the output:\n%s%s", args, &stdout, &stderr)
				}
			}
			if _, err := os.Stat(store); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a simulation made the run store: %v", err)
			}
		})
	}
}
