package dag

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/nodes/nodestest"
)

// TestLoadTypeSchemas checks that loads sharing a TypeSchemas find what loads of their own
// find, share one compiled config schema per type, and keep formats: annotate apart.
func TestLoadTypeSchemas(t *testing.T) {
	srcs := []struct{ name, src string }{
		{"valid", head + "  a: {type: const, with: {value: {status: pass, summary: ok}}}\n"},
		{"bad config", head + "  a: {type: const, with: {valu: 1}}\n  b: {type: const, with: {}}\n"},
		{"formats annotate", strings.Replace(formatsDAG, "%s", "formats: annotate", 1)},
		{"formats assert", strings.Replace(formatsDAG, "%s", "", 1)},
	}
	types := nodestest.LoadTypes()
	shared := &TypeSchemas{}
	load := func(src string, ts *TypeSchemas) (*DAG, []string) {
		t.Helper()
		d, err := LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), LoadOptions{Types: types, TypeSchemas: ts})
		var ds Diagnostics
		if err != nil && !errors.As(err, &ds) {
			t.Fatalf("LoadBytes: %v", err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, brief(d))
		}
		return d, out
	}
	firsts := map[bool]*DAG{}
	for _, tt := range srcs {
		_, own := load(tt.src, nil)
		for range 2 {
			d, got := load(tt.src, shared)
			if !reflect.DeepEqual(got, own) {
				t.Errorf("%s: shared TypeSchemas: %q, own: %q", tt.name, got, own)
			}
			if d == nil {
				continue
			}
			annotate := d.Formats == FormatsAnnotate
			cfg := d.Nodes[0].Config
			if cfg.FormatAnnotated() != annotate {
				t.Errorf("%s: config schema annotates formats: %v, want %v", tt.name, cfg.FormatAnnotated(), annotate)
			}
			if first, ok := firsts[annotate]; !ok {
				firsts[annotate] = d
			} else if first.Nodes[0].Config != cfg {
				t.Errorf("%s: config schema compiled again, want the shared one", tt.name)
			}
		}
	}
	if len(firsts) != 2 {
		t.Errorf("loaded DAGs with formats annotate or not: %d kinds, want 2", len(firsts))
	}
}
