package workspace

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/seam-dag/seam/dag"
)

// MaxKept caps the DAGs a Kept remembers: a root's DAG files are at most MaxFound, each
// under a path or two.
const MaxKept = 2 * MaxFound

// Kept remembers the DAGs a long-lived front end loads again and again (seam serve's
// webhooks and schedule pages, the scheduler's every tick), each while every file its load
// read (dag.DAG.Sources: the DAG file, its sub-DAG files, its schema files) has the same
// SHA-256: reading and hashing them is what is left of a load. A loaded DAG is only read by
// the runs started from it, so they share it. Safe for concurrent use.
type Kept struct {
	mu   sync.Mutex
	dags map[string]*dag.DAG // by path as loaded
}

// NewKept returns an empty Kept.
func NewKept() *Kept { return &Kept{dags: map[string]*dag.DAG{}} }

// LoadAll is w.LoadAll, each file loaded only when it or a file its load read changed since
// k last loaded it. A file that does not load is loaded again each time.
func (k *Kept) LoadAll(ctx context.Context, w *Workspace, paths []string) ([]*dag.DAG, []error) {
	return w.loadAll(ctx, paths, func(ctx context.Context, p string) (*dag.DAG, error) {
		if d, ok := k.get(p, w.ReadFile); ok {
			return d, nil
		}
		d, err := w.Load(ctx, p)
		if err == nil {
			k.put(p, d)
		}
		return d, err
	})
}

// get returns the DAG loaded from p, while its sources are unchanged (read again with read).
func (k *Kept) get(p string, read func(string) ([]byte, error)) (*dag.DAG, bool) {
	k.mu.Lock()
	d, ok := k.dags[p]
	k.mu.Unlock()
	if !ok {
		return nil, false
	}
	for path, src := range d.Sources {
		b, err := read(path)
		if err != nil || sha256.Sum256(b) != src.Digest {
			return nil, false
		}
	}
	return d, true
}

// put remembers d as loaded from p, forgetting another when MaxKept are.
func (k *Kept) put(p string, d *dag.DAG) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.dags[p]; !ok && len(k.dags) >= MaxKept {
		for other := range k.dags {
			delete(k.dags, other)
			break
		}
	}
	k.dags[p] = d
}
