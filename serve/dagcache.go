package serve

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/seam-dag/seam/dag"
)

// dagCache remembers the DAGs the webhooks and the schedule pages load from the root, each
// while every file its load read (dag.DAG.Sources: the DAG file, its sub-DAG files, its
// schema files) has the same digest: a webhook request loaded, compiled and checked every
// DAG file under the root before, where reading and hashing them is what is left. A loaded
// DAG is only read by the runs started from it, so they share it.
type dagCache struct {
	mu   sync.Mutex
	dags map[string]*dag.DAG // by real path
}

// get returns the DAG loaded from the real path p, while its sources are unchanged (read
// again with read).
func (c *dagCache) get(p string, read func(string) ([]byte, error)) (*dag.DAG, bool) {
	c.mu.Lock()
	d, ok := c.dags[p]
	c.mu.Unlock()
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

// put remembers d as loaded from p, forgetting another when MaxLintCache are.
func (c *dagCache) put(p string, d *dag.DAG) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dags[p]; !ok && len(c.dags) >= MaxLintCache {
		for k := range c.dags {
			delete(c.dags, k)
			break
		}
	}
	c.dags[p] = d
}

// rootDAGs loads the DAG files under the root (Find's rule), through the cache; a file that
// does not load is left out (the DAGs page says why).
func (s *Server) rootDAGs(ctx context.Context) []*dag.DAG {
	found, err := s.files.Find(ctx, s.opts.Root)
	if err != nil {
		return nil
	}
	var ds []*dag.DAG
	for _, f := range found.Files {
		if f.Err != nil || ctx.Err() != nil {
			continue
		}
		d, ok := s.dags.get(f.Path, s.files.ReadFile)
		if !ok {
			if d, err = s.files.Load(ctx, f.Path); err != nil {
				continue
			}
			s.dags.put(f.Path, d)
		}
		ds = append(ds, d)
	}
	return ds
}
