package contract

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// Vendor copies the schema at URL u, which the catalog entries hold (an npm package's folder,
// a checkout of SchemaStore), and every document its $refs reach at any depth, into the
// folder into, each file byte for byte at its path under its entry's Dir: so that into, named
// as a catalog with the same prefix, resolves every URL the schema uses as the source did,
// offline. Nothing is fetched: a URL the entries do not hold is refused (ErrRemoteRef).
// It returns the files written, relative to into, sorted.
func Vendor(entries []CatalogEntry, u, into string) ([]string, error) {
	c, err := NewCompiler(Options{Catalog: entries})
	if err != nil {
		return nil, err
	}
	type doc struct{ url, path string }
	queue := []doc{}
	enqueue := func(t string) error {
		p, err := c.catalog.file(c, t)
		if err != nil {
			return err
		}
		if p == "" {
			return fmt.Errorf("%w: %s (%w)", ErrRemoteRef, t, errNotInCatalog)
		}
		queue = append(queue, doc{t, p})
		return nil
	}
	if err := enqueue(u); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var written []string
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d.path] {
			continue
		}
		seen[d.path] = true
		// Only files of the catalog are read (a file: URL may name any other).
		rel, err := c.catalog.rel(d.path)
		if err != nil {
			return nil, err
		}
		b, err := c.readFile(d.path)
		if err != nil {
			return nil, err
		}
		v, err := ParseJSON(b)
		if err != nil {
			return nil, &SchemaError{Location: d.path, Err: fmt.Errorf("not JSON: %w", err)}
		}
		dest := filepath.Join(into, rel)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return nil, fmt.Errorf("vendor %s: %w", u, err)
		}
		if err := os.WriteFile(dest, b, 0o644); err != nil {
			return nil, fmt.Errorf("vendor %s: %w", u, err)
		}
		written = append(written, filepath.ToSlash(rel))
		base, err := url.Parse(d.url)
		if err != nil {
			return nil, fmt.Errorf("vendor %s: %w", d.url, err)
		}
		w := refWalker{own: map[string]bool{withoutFragment(base): true}}
		w.walk(v, base, "")
		for _, r := range w.refs {
			target := r.base.ResolveReference(r.ref)
			t := withoutFragment(target)
			if w.own[t] || target.Host == "json-schema.org" {
				continue // the document itself, or a metaschema seam has built in
			}
			if target.Scheme == "file" {
				queue = append(queue, doc{t, filepath.FromSlash(target.Path)})
				continue
			}
			if err := enqueue(t); err != nil {
				return nil, &SchemaError{Location: d.path, Pointer: r.ptr, Err: err}
			}
		}
	}
	slices.Sort(written)
	return written, nil
}

// rel is p's path relative to the catalog entry whose folder holds it.
func (cat *catalog) rel(p string) (string, error) {
	for _, e := range cat.entries {
		if r, err := filepath.Rel(e.Dir, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r, nil
		}
	}
	return "", i18n.M("%s lies outside every catalog folder", p)
}
