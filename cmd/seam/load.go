package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/seam-dag/seam/dag"
)

// loadDAG loads the DAG file at path with the built-in node types. When the file is wrong it
// prints every diagnostic on stderr and returns a usage error (exit 2) that counts them.
func loadDAG(ctx context.Context, e *env, path string) (*dag.DAG, error) {
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: registry(e)})
	var ds dag.Diagnostics
	switch {
	case errors.As(err, &ds):
		for _, diag := range ds {
			fmt.Fprintln(e.stderr, diag)
		}
		noun := "errors"
		if len(ds) == 1 {
			noun = "error"
		}
		return nil, usage(fmt.Errorf("%s: %d %s", path, len(ds), noun))
	case err != nil:
		return nil, usage(err)
	}
	return d, nil
}
