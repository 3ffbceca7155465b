package lint

import (
	"context"
	"errors"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

func loadTest(t *testing.T, src string) (*dag.DAG, dag.Diagnostics) {
	t.Helper()
	d, err := dag.LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
	if err == nil {
		return d, nil
	}
	var ds dag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("LoadBytes: %v (%T), want Diagnostics", err, err)
	}
	return nil, ds
}

// head is the start every test file shares: lines 1-3, nodes on line 4.
const head = "version: 1\nname: t\nnodes:\n"
