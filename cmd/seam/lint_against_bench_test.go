package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGateExamples runs the gate over the example DAGs with every file changed in bytes but
// not in meaning: no edge may move, no guarantee weaken, nothing may fail to load.
func TestGateExamples(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	files := gateBenchRepo(t, true)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"lint", "--against", "HEAD"}, files...), strings.NewReader(""), &stdout, &stderr, gateBenchEnv)
	if code != 0 || stdout.String() != "no problems\n" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// BenchmarkGate compares seam lint --against with seam lint on the repository's example
// DAGs (dags/ and the schemas they name, without dags/tour, whose bad.yaml does not load),
// copied into a git repository of their own, side by side in every iteration:
//
//   - unchanged: nothing changed since the revision (the usual pull request touches few DAGs);
//   - changed: every DAG and schema file differs from the revision (a byte appended), so
//     every DAG is loaded and linted at both revisions — the gate's worst case.
//
// It reports lint-ns/op, gate-ns/op and ratio (gate ÷ lint): docs/performance.md.
func BenchmarkGate(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	for _, changed := range []bool{false, true} {
		name := "unchanged"
		if changed {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			files := gateBenchRepo(b, changed)
			lint := append([]string{"lint"}, files...)
			gate := append([]string{"lint", "--against", "HEAD"}, files...)
			var lintNs, gateNs int64
			for i := 0; b.Loop(); i++ {
				// Alternate which goes first, so neither always finds the caches warm.
				for k := range 2 {
					args, into := lint, &lintNs
					if (i+k)%2 == 1 {
						args, into = gate, &gateNs
					}
					start := time.Now()
					var stderr bytes.Buffer
					// Some examples are wrong on purpose (lint exits 1); none may fail to load.
					if code := run(args, strings.NewReader(""), io.Discard, &stderr, gateBenchEnv); code > 1 {
						b.Fatalf("seam %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
					}
					*into += time.Since(start).Nanoseconds()
				}
			}
			b.ReportMetric(float64(lintNs)/float64(b.N), "lint-ns/op")
			b.ReportMetric(float64(gateNs)/float64(b.N), "gate-ns/op")
			b.ReportMetric(float64(gateNs)/float64(lintNs), "ratio")
		})
	}
}

func gateBenchEnv(k string) string {
	if k == "SEAM_LANG" {
		return "en"
	}
	return ""
}

// gateBenchRepo copies dags/ (less tour) and schemas/ into a new git repository, commits them,
// and, when changed, appends a newline to every file it copied; it returns the DAG files.
func gateBenchRepo(b testing.TB, changed bool) []string {
	b.Helper()
	repo := b.TempDir()
	var copied, dags []string
	for _, top := range []string{"dags", "schemas"} {
		src := filepath.Join("..", "..", top)
		err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
			if d.IsDir() {
				if rel == filepath.Join("dags", "tour") {
					return filepath.SkipDir
				}
				return os.MkdirAll(filepath.Join(repo, rel), 0o755)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dst := filepath.Join(repo, rel)
			copied = append(copied, dst)
			if top == "dags" && strings.HasSuffix(path, ".yaml") {
				dags = append(dags, dst)
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=seam", "-c", "user.email=seam@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	if changed {
		for _, f := range copied {
			fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			_, err = fh.WriteString("\n")
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return dags
}
