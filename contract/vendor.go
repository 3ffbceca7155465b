package contract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// VendorOptions bound what Vendor fetches: a schema set from the web is untrusted input, and
// a hostile or broken one must not fill the disk or hang the command. Zero values take the
// defaults.
type VendorOptions struct {
	Lang         i18n.Lang     // of the error messages
	MaxDocuments int           // documents fetched in all; default 1000
	MaxDocBytes  int64         // per document; default 16 MiB (SchemaStore's largest is 2.7 MB)
	MaxBytes     int64         // all documents together; default 64 MiB
	Timeout      time.Duration // per request, redirects and body included; default 30 s
	MaxRedirects int           // per request; default 5
}

func (o VendorOptions) withDefaults() VendorOptions {
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = 1000
	}
	if o.MaxDocBytes <= 0 {
		o.MaxDocBytes = 16 << 20
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 5
	}
	return o
}

// VendoredFile is one document Vendor wrote: where it came from and where it lies.
type VendoredFile struct {
	URL  string
	Path string // the file written, under Vendor's into
}

// Vendored is what Vendor wrote, and the catalog entries that resolve every URL of it offline.
type Vendored struct {
	Files   []VendoredFile // sorted by Path
	Catalog []CatalogEntry // one per origin (scheme and host), sorted by Prefix
}

// Vendor fetches the schema at URL u, and every document its $refs reach at any depth (by
// absolute URL, or relative to the document's base or an $id), each once, and writes them
// byte for byte under into: the catalog entries it returns map each URL prefix to its
// folder, so that the set loads offline, unchanged. When every document comes from one
// origin, its files lie under into at their path below the documents' common folder; from
// several, each origin's under into/HOST. This is the only place seam touches the network for
// a schema, and only when a person asks: loading never fetches. Refused, before anything is
// written: a URL that is not http(s), an HTTP status other than 200, an answer that is not
// JSON, a document or a set over the limits of opt, more documents than opt allows.
func Vendor(ctx context.Context, u, into string, opt VendorOptions) (*Vendored, error) {
	opt = opt.withDefaults()
	start, err := url.Parse(u)
	if err != nil || !start.IsAbs() {
		return nil, i18n.Errorf(opt.Lang, "%s is not an absolute URL", u)
	}
	if err := fetchable(start, opt.Lang); err != nil {
		return nil, err
	}
	f := &fetcher{opt: opt, client: vendorClient(opt)}
	type doc struct {
		url  *url.URL
		body []byte
	}
	var docs []doc
	seen := map[string]bool{withoutFragment(start): true}
	queue := []*url.URL{start}
	var total int64
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		b, err := f.get(ctx, cur)
		if err != nil {
			return nil, err
		}
		if total += int64(len(b)); total > opt.MaxBytes {
			return nil, i18n.Errorf(opt.Lang, "the schema set is over the limit of %d bytes at %s", opt.MaxBytes, withoutFragment(cur))
		}
		v, err := ParseJSON(b)
		if err != nil {
			return nil, i18n.Errorf(opt.Lang, "%s: the answer is not JSON: %v", withoutFragment(cur), err)
		}
		docs = append(docs, doc{cur, b})
		if id := rootID(v, cur); id != "" {
			seen[id] = true // a $ref to the document by its id resolves through the catalog's index
		}
		// Relative refs resolve against the URL asked for, not a redirect's target: that is
		// the URL the catalog loads the file under offline, so the two agree.
		w := refWalker{own: map[string]bool{withoutFragment(cur): true}}
		w.walk(v, cur, "")
		for _, r := range w.refs {
			target := r.base.ResolveReference(r.ref)
			t := withoutFragment(target)
			if w.own[t] || seen[t] || target.Host == "json-schema.org" {
				continue // the document itself, one held already, or a metaschema seam has built in
			}
			if err := fetchable(target, opt.Lang); err != nil {
				return nil, i18n.Errorf(opt.Lang, "%s at %s: %w", withoutFragment(cur), r.ptr, err)
			}
			seen[t] = true
			if len(docs)+len(queue)+1 > opt.MaxDocuments {
				return nil, i18n.Errorf(opt.Lang, "the schema set has more than %d documents (%s at %s refers to %s)", opt.MaxDocuments, withoutFragment(cur), r.ptr, t)
			}
			target.Fragment, target.RawFragment = "", ""
			queue = append(queue, target)
		}
	}
	urls := make([]*url.URL, len(docs))
	for i, d := range docs {
		urls[i] = d.url
	}
	out, paths, err := vendorLayout(urls, into, opt.Lang)
	if err != nil {
		return nil, err
	}
	for i, d := range docs {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return nil, fmt.Errorf("vendor %s: %w", u, err)
		}
		if err := os.WriteFile(paths[i], d.body, 0o644); err != nil {
			return nil, fmt.Errorf("vendor %s: %w", u, err)
		}
		out.Files = append(out.Files, VendoredFile{URL: withoutFragment(d.url), Path: paths[i]})
	}
	slices.SortFunc(out.Files, func(a, b VendoredFile) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// fetchable refuses a URL Vendor may not fetch: only http and https name a document on the
// web, and only a URL without query whose path is clean and names no folder is a file the
// catalog can map (it maps the rest of the URL after a prefix to a path).
func fetchable(u *url.URL, lang i18n.Lang) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return i18n.Errorf(lang, "%s is not an http(s) URL: seam fetches schemas over HTTP only", shownURL(u))
	}
	if u.User != nil {
		// It would be printed, and written into the DAG's catalog prefix.
		return i18n.Errorf(lang, "%s holds credentials: vendor from a URL without them", shownURL(u))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Path == "" || strings.HasSuffix(u.Path, "/") || path.Clean(u.Path) != u.Path {
		return i18n.Errorf(lang, "%s names no file a catalog can hold (a query, a path that ends in / or holds . or ..)", withoutFragment(u))
	}
	return nil
}

// shownURL is u as an error may say it: without fragment, a password masked.
func shownURL(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.Redacted()
}

func vendorClient(opt VendorOptions) *http.Client {
	return &http.Client{
		Timeout: opt.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opt.MaxRedirects {
				return i18n.Errorf(opt.Lang, "more than %d redirects", opt.MaxRedirects)
			}
			return fetchable(req.URL, opt.Lang)
		},
	}
}

type fetcher struct {
	opt    VendorOptions
	client *http.Client
}

// get fetches one document, bounded by the per-document limit.
func (f *fetcher) get(ctx context.Context, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/schema+json, application/json;q=0.9, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, first
		}
		return nil, i18n.Errorf(f.opt.Lang, "fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, i18n.Errorf(f.opt.Lang, "fetch %s: HTTP status %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, f.opt.MaxDocBytes+1))
	if err != nil {
		return nil, i18n.Errorf(f.opt.Lang, "fetch %s: %w", u, err)
	}
	if int64(len(b)) > f.opt.MaxDocBytes {
		return nil, i18n.Errorf(f.opt.Lang, "fetch %s: the document is over the limit of %d bytes", u, f.opt.MaxDocBytes)
	}
	return b, nil
}

// vendorLayout places each URL's document under into, and gives the catalog entries that
// resolve them: per origin, the prefix is the deepest folder that holds all its documents,
// and the file of a URL lies at the rest of the URL, as the catalog maps a prefix.
func vendorLayout(urls []*url.URL, into string, lang i18n.Lang) (*Vendored, []string, error) {
	type origin struct{ scheme, host string }
	common := map[origin]string{}
	var origins []origin
	for _, u := range urls {
		o := origin{u.Scheme, u.Host}
		dir := path.Dir(u.EscapedPath()) + "/"
		c, ok := common[o]
		if !ok {
			origins = append(origins, o)
			common[o] = dir
			continue
		}
		for !strings.HasPrefix(dir, c) {
			c = path.Dir(strings.TrimSuffix(c, "/")) + "/"
			if c == "//" {
				c = "/"
			}
		}
		common[o] = c
	}
	out := &Vendored{}
	dirs := map[origin]string{}
	for _, o := range origins {
		dirs[o] = into
		if len(origins) > 1 {
			dirs[o] = filepath.Join(into, o.host)
		}
		out.Catalog = append(out.Catalog, CatalogEntry{Dir: dirs[o], Prefix: o.scheme + "://" + o.host + common[o]})
	}
	slices.SortFunc(out.Catalog, func(a, b CatalogEntry) int { return strings.Compare(a.Prefix, b.Prefix) })
	paths := make([]string, len(urls))
	by := map[string]string{}
	for i, u := range urls {
		o := origin{u.Scheme, u.Host}
		rest := strings.TrimPrefix(u.EscapedPath(), common[o])
		p := filepath.Join(dirs[o], filepath.FromSlash(rest))
		if other, taken := by[p]; taken {
			return nil, nil, i18n.Errorf(lang, "%s and %s would both be written to %s", other, u, p)
		}
		by[p] = u.String()
		paths[i] = p
	}
	return out, paths, nil
}

// Summary says what Vendor wrote, and the catalog to add to a DAG that uses it.
func (v *Vendored) Summary(lang i18n.Lang) string {
	var b strings.Builder
	for _, f := range v.Files {
		b.WriteString(i18n.Sprintf(lang, "wrote %s (%s)", filepath.ToSlash(f.Path), f.URL))
		b.WriteByte('\n')
	}
	b.WriteString(i18n.Sprintf(lang, "add to the DAG (dir relative to the DAG file), or pass --catalog PREFIX=DIR to validate and compat:"))
	b.WriteString("\ncatalog:\n")
	for _, e := range v.Catalog {
		fmt.Fprintf(&b, "  - dir: %s\n    prefix: %s\n", filepath.ToSlash(e.Dir), e.Prefix)
	}
	return b.String()
}
