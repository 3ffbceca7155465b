package dag

import (
	"path/filepath"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"gopkg.in/yaml.v3"
)

var catalogKeys = []string{"dir", "prefix"}

// catalog reads `catalog:`, a list of {dir, prefix}: folders of vendored schemas (relative to
// the DAG file) that $refs by absolute URL resolve to, and replaces the compiler with one that
// knows them. It runs before any schema is compiled.
func (l *loader) catalog(d *DAG, f field) {
	list := deref(f.val)
	if list.Kind != yaml.SequenceNode {
		l.addAt(list, CodeInvalid, i18n.Format(l.lang, "write a list of `- dir: vendor/schemastore` entries, each with an optional `prefix: https://json.schemastore.org/`"),
			i18n.Sprintf(l.lang, "catalog must be a list, not %s", kindOf(l.lang, list)))
		return
	}
	var entries []contract.CatalogEntry
	for _, item := range list.Content {
		fs := l.fields(item, "catalog", catalogKeys, nil)
		dir, ok := fs.get("dir")
		if !ok {
			l.addAt(item, CodeInvalid, i18n.Format(l.lang, "add `dir:`, the folder of the vendored schemas, relative to the DAG file"),
				i18n.Format(l.lang, "a catalog entry needs dir"))
			continue
		}
		var e contract.CatalogEntry
		if e.Dir, ok = l.str(dir, "catalog dir"); !ok {
			continue
		}
		if !filepath.IsAbs(e.Dir) {
			e.Dir = filepath.Join(l.dir, e.Dir)
		}
		if p, ok := fs.get("prefix"); ok {
			if e.Prefix, ok = l.str(p, "catalog prefix"); !ok {
				continue
			}
		}
		entries = append(entries, e)
	}
	d.Catalog = entries
	if err := l.recompile(d); err != nil {
		d.Catalog = nil
		msg := err.Error()
		if m, ok := err.(interface{ In(i18n.Lang) string }); ok {
			msg = m.In(l.lang)
		}
		l.addAt(list, CodeInvalid, i18n.Format(l.lang, "give the URL the vendored files were fetched from, ending in /, such as https://json.schemastore.org/"),
			i18n.Sprintf(l.lang, "catalog: %s", msg))
	}
}
