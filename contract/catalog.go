package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// CatalogEntry names a folder of vendored schemas, so that schemas which refer to each other
// by absolute URL load offline. Every *.json file under Dir (hidden folders skipped) is known
// by its own $id (id up to draft-04); and when Prefix is set, a URL that starts with it names
// the file under Dir at the rest of the URL (https://json.schemastore.org/x.json →
// Dir/x.json). A relative root $id (octokit's source layout writes "push$event" and
// "common/user.schema.json", for a registry keyed by id) resolves against the folder: Prefix
// when set, else Dir itself, so that the files' relative $refs between them resolve as
// their authors' registry resolves them. Nothing is ever fetched: a URL the catalog does not
// know stays refused.
type CatalogEntry struct {
	Dir    string // absolute, or relative to the current directory
	Prefix string // an absolute http(s) URL ending in "/", or ""
}

// catalog resolves absolute URLs to the files of the entries.
type catalog struct {
	entries []CatalogEntry
	// ids maps a schema's $id/id (without fragment) to its file, built on first use.
	ids   map[string]string
	built bool
	err   error
}

func newCatalog(entries []CatalogEntry) (*catalog, error) {
	cat := &catalog{}
	for _, e := range entries {
		dir, err := filepath.Abs(e.Dir)
		if err != nil {
			return nil, fmt.Errorf("schema catalog %s: %w", e.Dir, err)
		}
		if e.Prefix != "" {
			p, err := url.Parse(e.Prefix)
			if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || !strings.HasSuffix(p.Path, "/") {
				return nil, i18n.M("schema catalog %s: prefix %q is not an http(s) URL ending in /", e.Dir, e.Prefix)
			}
		}
		cat.entries = append(cat.entries, CatalogEntry{Dir: dir, Prefix: e.Prefix})
	}
	return cat, nil
}

// file returns the file that holds the document at u (no fragment), or "".
func (cat *catalog) file(c *Compiler, u string) (string, error) {
	if cat == nil {
		return "", nil
	}
	// A prefix wins over an $id: it names the file without reading the folder.
	for _, e := range cat.entries {
		if rest, ok := strings.CutPrefix(u, e.Prefix); ok && e.Prefix != "" {
			p := filepath.Join(e.Dir, filepath.FromSlash(rest))
			if rel, err := filepath.Rel(e.Dir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	if !cat.built {
		cat.built = true
		cat.ids, cat.err = cat.index(c)
	}
	if cat.err != nil {
		return "", cat.err
	}
	return cat.ids[u], nil
}

// index reads the $id of every file of the entries, in a fixed order, so that when two
// files claim one id the same one always wins (the first by entry, then by path).
func (cat *catalog) index(c *Compiler) (map[string]string, error) {
	ids := map[string]string{}
	for _, e := range cat.entries {
		if err := c.confined(e.Dir); err != nil {
			return nil, fmt.Errorf("schema catalog: %w", err)
		}
		var files []string
		err := filepath.WalkDir(e.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != e.Dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("schema catalog %s: %w", e.Dir, err)
		}
		slices.Sort(files)
		for _, p := range files {
			b, err := c.readFile(p)
			if err != nil {
				return nil, fmt.Errorf("schema catalog: %w", err)
			}
			doc, err := ParseJSON(b)
			if err != nil {
				continue // not a schema: it cannot be referred to by an id either
			}
			if id := rootID(doc, e.base()); id != "" {
				if _, taken := ids[id]; !taken {
					ids[id] = p
				}
			}
		}
	}
	return ids, nil
}

// base is the URL the relative root ids of the entry's files resolve against: its prefix,
// else its folder's file URL, ending in "/".
func (e CatalogEntry) base() *url.URL {
	if e.Prefix != "" {
		u, _ := url.Parse(e.Prefix) // newCatalog parsed it
		return u
	}
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(e.Dir) + "/"}
}

// rootID is the absolute URL a document names itself by: its $id, or id (draft-04), resolved
// against base, without fragment; "" when it has none, or a fragment only.
func rootID(doc any, base *url.URL) string {
	_, id := rootIDKey(doc)
	if id == "" {
		return ""
	}
	u, err := url.Parse(id)
	if err != nil || (u.Path == "" && u.Opaque == "" && !u.IsAbs()) {
		return ""
	}
	return withoutFragment(base.ResolveReference(u))
}

// rootIDKey is the keyword that names a document at its root, and its value: "id" in
// draft-04, "$id" in later drafts, either (the $id first) where no $schema says; "", "" when
// there is none.
func rootIDKey(doc any) (key, id string) {
	m, ok := doc.(map[string]any)
	if !ok {
		return "", ""
	}
	keys := []string{"$id", "id"}
	if s, ok := m["$schema"].(string); ok {
		keys = keys[:1]
		if strings.Contains(s, "/draft-04/") {
			keys = []string{"id"}
		}
	}
	for _, k := range keys {
		if id, ok := m[k].(string); ok {
			return k, id
		}
	}
	return "", ""
}

// rebase gives doc, the file at path, the absolute root id its catalog entry resolves its
// relative one to (see CatalogEntry), so that jsonschema and the subset checker resolve its
// $refs as the catalog does; doc itself is shared and unchanged (a shallow copy is returned).
// A file outside the catalog, or whose id is absolute or absent, is returned as it is.
func (cat *catalog) rebase(path string, doc any) any {
	if cat == nil {
		return doc
	}
	key, id := rootIDKey(doc)
	u, err := url.Parse(id)
	if key == "" || err != nil || u.IsAbs() || u.Path == "" {
		return doc
	}
	for _, e := range cat.entries {
		if rel, err := filepath.Rel(e.Dir, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		m := maps.Clone(doc.(map[string]any))
		m[key] = e.base().ResolveReference(u).String()
		return m
	}
	return doc
}

// errNotInCatalog says that a URL is no file of the catalog (wrapped with ErrRemoteRef).
var errNotInCatalog = errors.New("not in the schema catalog")

// ParseCatalog reads catalog entries as the command line writes them: DIR, or PREFIX=DIR
// where PREFIX is a URL ending in "/" (https://json.schemastore.org/=vendor/schemastore).
// NewCompiler checks them.
func ParseCatalog(flags []string) []CatalogEntry {
	var out []CatalogEntry
	for _, f := range flags {
		if prefix, dir, ok := strings.Cut(f, "/="); ok {
			out = append(out, CatalogEntry{Dir: dir, Prefix: prefix + "/"})
			continue
		}
		out = append(out, CatalogEntry{Dir: f})
	}
	return out
}
