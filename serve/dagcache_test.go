package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// cachedDAG is a webhook whose body's contract is a schema file beside it.
const cachedDAG = `version: 1
name: cached
params:
  type: object
  required: [sha]
  properties:
    sha: {type: string}
nodes:
  say:
    type: const
    with: {value: {status: pass, summary: "${{ params.sha }}"}}
triggers:
  push:
    webhook: {body: schemas/push.json}
    params: {sha: "${{ trigger.body.after }}"}
`

// TestDAGCache: the webhooks load a DAG file under the root once while neither it nor a file
// its load read changed; a change to either is loaded at the next request, and judges it.
func TestDAGCache(t *testing.T) {
	f := hookFixture(t, false)
	ctx := context.Background()
	schema := func(minLength string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(f.root, "schemas"), 0o755); err != nil {
			t.Fatal(err)
		}
		src := `{"type": "object", "required": ["after"], "properties": {"after": {"type": "string", "minLength": ` + minLength + `}}}`
		if err := os.WriteFile(filepath.Join(f.root, "schemas", "push.json"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema("7")
	f.writeRoot("cached.yaml", cachedDAG)
	cached := func() *dag.DAG {
		t.Helper()
		for _, d := range f.srv.rootDAGs(ctx) {
			if d.Name == "cached" {
				return d
			}
		}
		t.Fatal("cached.yaml is not loaded")
		return nil
	}
	post := func() int {
		t.Helper()
		code, _ := hookPost(t, f, "/hooks/cached/push", `{"after": "abc"}`, map[string]string{"Authorization": "Bearer " + operatorTok})
		return code
	}
	first := cached()
	if cached() != first {
		t.Errorf("an unchanged DAG file is loaded again")
	}
	if code := post(); code != http.StatusUnprocessableEntity {
		t.Errorf("a body shorter than the contract's minLength: %d, want 422", code)
	}
	schema("1") // the contract changed, the DAG file not
	if cached() == first {
		t.Errorf("a DAG whose schema file changed is not loaded again")
	}
	if code := post(); code != http.StatusAccepted {
		t.Errorf("the body the changed contract allows: %d, want 202", code)
	}
	again := cached()
	f.writeRoot("cached.yaml", cachedDAG+"# changed\n")
	if cached() == again {
		t.Errorf("a changed DAG file is not loaded again")
	}
}
