package temporal

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
)

// TestEngineRefusesEnvComputed: a DAG that computes with an env variable cannot run on
// Temporal, where the workflow holds placeholders; using the variable as a whole can.
func TestEngineRefusesEnvComputed(t *testing.T) {
	head := "version: 1\nname: e\nenv: [SEAM_TEST_MODE]\nnodes:\n"
	for _, tc := range []struct{ name, nodes, want string }{
		{"when", "  a:\n    type: const\n    when: \"${{ env.SEAM_TEST_MODE == 'prod' }}\"\n    with: {value: {status: pass, summary: x}}\n",
			"node a: when computes with env.SEAM_TEST_MODE, which a run on Temporal cannot do: the workflow holds a placeholder, only workers read the value; use the variable as a whole in with or input, or run on the embedded engine"},
		{"foreach", "  a:\n    type: const\n    foreach: \"${{ [env.SEAM_TEST_MODE] }}\"\n    with: {value: {status: pass, summary: x}}\n",
			"node a: foreach computes with env.SEAM_TEST_MODE"},
		{"expression", "  a:\n    type: const\n    with: {value: {status: pass, summary: \"${{ size(env.SEAM_TEST_MODE) > 3 ? 'long' : 'short' }}\"}}\n",
			"node a: an expression computes with env.SEAM_TEST_MODE"},
		{"as a whole", "  a:\n    type: const\n    with: {value: {status: pass, summary: \"mode ${{ env.SEAM_TEST_MODE }}\"}}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := dag.LoadBytes(context.Background(), "e.yaml", []byte(head+tc.nodes), dag.LoadOptions{Types: types()})
			if err != nil {
				t.Fatal(err)
			}
			err = envComputed(d, "en")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("error %v, want it to start %q", err, tc.want)
			}
			if tc.want != "" {
				// Refused before the bundle, which could not be made of e.yaml anyway.
				if _, err := (&Engine{}).Start(context.Background(), d, engine.RunOptions{RunID: "r"}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Errorf("Start: %v, want it refused with %q", err, tc.want)
				}
			}
		})
	}
}

// TestEngineStartRefuses: Start refuses, before it asks Temporal anything, a DAG file that
// changed since it was loaded and a resume whose reused outputs could not travel in the
// workflow's input.
func TestEngineStartRefuses(t *testing.T) {
	ctx := context.Background()
	path := writeDAG(t, "version: 1\nname: s\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n")
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{} // no client: nothing may reach Temporal
	big := engine.RunOptions{RunID: "r1", Reuse: map[string]dag.Reused{"a": {Key: "k", Output: make([]byte, MaxBundle)}}}
	if _, err := e.Start(ctx, d, big); err == nil || err.Error() != fmt.Sprintf("resume r1 on Temporal: the outputs it reuses hold over %d bytes, more than a workflow's input may; resume it on the embedded engine", MaxBundle) {
		t.Errorf("resume too big: %v", err)
	}
	if err := os.WriteFile(path, []byte("version: 1\nname: s\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: b}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(ctx, d, engine.RunOptions{RunID: "r2"}); err == nil || err.Error() != "run s on Temporal: "+path+" changed since it was loaded" {
		t.Errorf("changed file: %v", err)
	}
}
