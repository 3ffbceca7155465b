package simulate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/lint"
)

// BenchmarkExamples simulates each example DAG beside seam lint's work on it, side by side
// (docs/performance.md compares them): "lint" and "simulate" load the file and analyse it, as
// the two commands do; "lint-only" and "simulate-only" take the loaded DAG.
func BenchmarkExamples(b *testing.B) {
	files, err := filepath.Glob("../dags/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no examples: %v", err)
	}
	w := open(b)
	ctx := context.Background()
	for _, f := range files {
		name := filepath.Base(f)
		d, err := w.Load(ctx, f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("lint/"+name, func(b *testing.B) {
			for b.Loop() {
				d, err := w.Load(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				lint.Lint(ctx, d, lint.Options{})
			}
		})
		b.Run("simulate/"+name, func(b *testing.B) {
			for b.Loop() {
				d, err := w.Load(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Simulate(ctx, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("lint-only/"+name, func(b *testing.B) {
			for b.Loop() {
				lint.Lint(ctx, d, lint.Options{})
			}
		})
		b.Run("simulate-only/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Simulate(ctx, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
