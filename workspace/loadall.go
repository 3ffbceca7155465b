package workspace

import (
	"context"
	"os"

	"github.com/seam-dag/seam/dag"
)

// LoadAll loads the DAG files paths name (none: the current folder): a file is loaded, a
// folder's DAG files (Find's rule) are. It returns those that load and the errors of the others (one each), so that
// one broken file does not stop a scheduler from starting the rest.
func (w *Workspace) LoadAll(ctx context.Context, paths []string) ([]*dag.DAG, []error) {
	return w.loadAll(ctx, paths, w.Load)
}

// loadAll is LoadAll loading each file with loadOne.
func (w *Workspace) loadAll(ctx context.Context, paths []string, loadOne func(context.Context, string) (*dag.DAG, error)) ([]*dag.DAG, []error) {
	var ds []*dag.DAG
	var errs []error
	if len(paths) == 0 {
		paths = []string{"."}
	}
	load := func(p string) {
		d, err := loadOne(ctx, p)
		if err != nil {
			errs = append(errs, err)
			return
		}
		ds = append(ds, d)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			load(p)
			continue
		}
		found, err := w.Find(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range found.Files {
			if f.Err != nil {
				errs = append(errs, f.Err)
				continue
			}
			load(f.Path)
		}
	}
	return ds, errs
}
