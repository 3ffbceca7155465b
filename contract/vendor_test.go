package contract

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// page is what the test server answers at a path: {{S}} and {{T}} in body stand for the two
// servers' URLs.
type page struct {
	status   int // 0 is 200
	body     string
	location string // a redirect's target, {{S}} expanded
}

// schemaServers starts two servers that answer pages (a key that starts with T is the
// second one's) and returns the expander of {{S}} and {{T}}, and a count of requests by key.
func schemaServers(t *testing.T, pages map[string]page) (s, tt *httptest.Server, expand func(string) string, hits func() map[string]int) {
	t.Helper()
	var servers [2]*httptest.Server
	var mu sync.Mutex
	count := map[string]int{}
	hits = func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(count)
	}
	expand = func(b string) string {
		return strings.NewReplacer("{{S}}", servers[0].URL, "{{T}}", servers[1].URL).Replace(b)
	}
	handler := func(prefix string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			count[prefix+r.URL.Path]++
			mu.Unlock()
			p, ok := pages[prefix+r.URL.Path]
			switch {
			case !ok:
				http.NotFound(w, r)
			case p.location != "":
				http.Redirect(w, r, expand(p.location), http.StatusFound)
			case p.status == -1: // hang until the client gives up
				<-r.Context().Done()
			case p.status != 0:
				http.Error(w, p.body, p.status)
			default:
				_, _ = w.Write([]byte(expand(p.body)))
			}
		}
	}
	servers[0] = httptest.NewServer(handler(""))
	servers[1] = httptest.NewServer(handler("T"))
	t.Cleanup(servers[0].Close)
	t.Cleanup(servers[1].Close)
	return servers[0], servers[1], expand, hits
}

// TestVendor fetches a schema and what its $refs reach from local servers, each document
// once however often it is referred to (cycles included), byte for byte; the copy, named by
// the catalog entries Vendor returns, validates as the source does with the servers gone.
func TestVendor(t *testing.T) {
	pages := map[string]page{
		// a and b refer to each other by URL; b to c relatively, c back to a relatively.
		"/s/a.json":     {body: `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"b": {"$ref": "{{S}}/s/b.json"}, "self": {"$ref": "#"}}, "definitions": {"n": {"type": "integer"}}}`},
		"/s/b.json":     {body: `{"type": "object", "properties": {"a": {"$ref": "{{S}}/s/a.json"}, "c": {"$ref": "sub/c.json#/definitions/c"}, "n": {"$ref": "a.json#/definitions/n"}}}`},
		"/s/sub/c.json": {body: `{"definitions": {"c": {"anyOf": [{"type": "string"}, {"$ref": "../a.json"}]}}}`},
		// an $id moves the base: "leaf.json" is the one under /ids/.
		"/s/moved.json":  {body: `{"$id": "{{S}}/ids/root.json", "properties": {"l": {"$ref": "leaf.json"}}}`},
		"/ids/leaf.json": {body: `{"type": "boolean"}`},
		// across two origins.
		"/s/cross.json":      {body: `{"properties": {"u": {"$ref": "{{T}}/t/user.json"}}}`},
		"T/t/user.json":      {body: `{"type": "object", "required": ["login"], "properties": {"back": {"$ref": "{{S}}/s/sub/c.json#/definitions/c"}}}`},
		"/s/meta.json":       {body: `{"$ref": "http://json-schema.org/draft-07/schema#"}`},
		"/s/moved-away":      {location: "{{S}}/ids/leaf.json"},
		"/s/redirected.json": {body: `{"$ref": "moved-away"}`},
	}
	tests := []struct {
		name    string
		url     string
		files   []string // written, relative to into, with the URL path each came from
		catalog []string // PREFIX=DIR, DIR relative to into
		valid   string   // a document valid through the copy
		invalid string   // and one that is not
	}{
		{name: "a cycle of documents by URL and relative path", url: "{{S}}/s/a.json",
			files:   []string{"a.json", "b.json", "sub/c.json"},
			catalog: []string{"{{S}}/s/="},
			valid:   `{"b": {"n": 1, "c": "x", "a": {"b": {}}}}`, invalid: `{"b": {"c": 3}}`},
		{name: "the base an $id sets", url: "{{S}}/s/moved.json",
			files:   []string{"ids/leaf.json", "s/moved.json"},
			catalog: []string{"{{S}}/="},
			valid:   `{"l": true}`, invalid: `{"l": 1}`},
		{name: "two origins, each in a folder of its own", url: "{{S}}/s/cross.json",
			files:   []string{"HOST_S/cross.json", "HOST_S/sub/c.json", "HOST_S/a.json", "HOST_S/b.json", "HOST_T/user.json"},
			catalog: []string{"{{S}}/s/=HOST_S", "{{T}}/t/=HOST_T"},
			valid:   `{"u": {"login": "o"}}`, invalid: `{"u": {}}`},
		{name: "a metaschema is built in, not fetched", url: "{{S}}/s/meta.json",
			files: []string{"meta.json"}, catalog: []string{"{{S}}/s/="},
			valid: `{"type": "string"}`, invalid: `{"type": 3}`},
		{name: "a redirect is followed, the file lies at the URL referred to", url: "{{S}}/s/redirected.json",
			files: []string{"moved-away", "redirected.json"}, catalog: []string{"{{S}}/s/="},
			valid: `true`, invalid: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, s2, expand, hits := schemaServers(t, pages)
			hostS, hostT := strings.TrimPrefix(s.URL, "http://"), strings.TrimPrefix(s2.URL, "http://")
			hosts := strings.NewReplacer("HOST_S", hostS, "HOST_T", hostT)
			into := t.TempDir()
			got, err := Vendor(context.Background(), expand(tt.url), into, VendorOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, f := range got.Files {
				rel, err := filepath.Rel(into, f.Path)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, filepath.ToSlash(rel))
				// Byte for byte what the server answered at the URL.
				u := strings.TrimPrefix(strings.TrimPrefix(f.URL, s.URL), s2.URL)
				if strings.HasPrefix(f.URL, s2.URL) {
					u = "T" + u
				}
				b, err := os.ReadFile(f.Path)
				if p, ok := pages[u]; !ok || err != nil || (p.location == "" && string(b) != expand(p.body)) {
					t.Errorf("%s (%s): %q, %v; want the answer byte for byte", rel, f.URL, b, err)
				}
			}
			want := make([]string, len(tt.files))
			for i, f := range tt.files {
				want[i] = hosts.Replace(f)
			}
			slices.Sort(want)
			if !slices.Equal(files, want) {
				t.Errorf("wrote %v, want %v", files, want)
			}
			var catalog []string
			for _, e := range got.Catalog {
				rel, err := filepath.Rel(into, e.Dir)
				if err != nil {
					t.Fatal(err)
				}
				catalog = append(catalog, e.Prefix+"="+strings.TrimPrefix(filepath.ToSlash(rel), "."))
			}
			wantCatalog := make([]string, len(tt.catalog))
			for i, c := range tt.catalog {
				wantCatalog[i] = hosts.Replace(expand(c))
			}
			slices.Sort(wantCatalog) // by prefix, whose ports vary
			if !slices.Equal(catalog, wantCatalog) {
				t.Errorf("catalog %v, want %v", catalog, wantCatalog)
			}
			for p, n := range hits() {
				if n != 1 {
					t.Errorf("%s fetched %d times, want once", p, n)
				}
			}
			// Offline: the servers are gone, the catalog resolves every URL.
			s.Close()
			s2.Close()
			c, err := NewCompiler(Options{Catalog: got.Catalog})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := c.Inline("t", map[string]any{"$ref": expand(tt.url)})
			if err != nil {
				t.Fatalf("compile through the copy: %v", err)
			}
			for doc, wantValid := range map[string]bool{tt.valid: true, tt.invalid: false} {
				v, err := ParseJSON([]byte(doc))
				if err != nil {
					t.Fatal(err)
				}
				if vs := sc.Validate(v, i18n.English); (len(vs) == 0) != wantValid {
					t.Errorf("%s through the copy: %+v, want valid %v", doc, vs, wantValid)
				}
			}
		})
	}
}

// TestVendorRefused: every refusal says what and where, in English and Japanese, and
// nothing is written.
func TestVendorRefused(t *testing.T) {
	big := `{"description": "` + strings.Repeat("x", 200) + `"}`
	pages := map[string]page{
		"/html.json":       {body: `<html>not a schema</html>`},
		"/refers-html":     {body: `{"$ref": "html.json"}`},
		"/gone.json":       {body: `{"properties": {"x": {"$ref": "missing.json"}}}`},
		"/broken.json":     {status: http.StatusInternalServerError, body: "boom"},
		"/big.json":        {body: big},
		"/refers-big.json": {body: `{"allOf": [{"$ref": "small.json"}, {"$ref": "big.json"}]}`},
		"/small.json":      {body: `{"description": "` + strings.Repeat("y", 150) + `"}`},
		"/ftp.json":        {body: `{"properties": {"f": {"$ref": "ftp://example.com/x.json"}}}`},
		"/urn.json":        {body: `{"$ref": "urn:example:thing"}`},
		"/chain1.json":     {body: `{"$ref": "chain2.json"}`},
		"/chain2.json":     {body: `{"$ref": "chain3.json"}`},
		"/chain3.json":     {body: `{}`},
		"/loop":            {location: "/loop"},
		"/to-ftp":          {location: "ftp://example.com/x.json"},
		"/hang.json":       {status: -1},
		"/query.json":      {body: `{"$ref": "q.json?v=2"}`},
		"/q.json":          {body: `{}`},
		"/creds.json":      {body: `{"$ref": "ftp://me:s3cret@example.com/x.json"}`},
	}
	tests := []struct {
		name   string
		url    string
		opt    VendorOptions
		en, ja string // {{S}} expanded
	}{
		{name: "not JSON", url: "{{S}}/refers-html",
			en: "{{S}}/html.json: the answer is not JSON: ",
			ja: "{{S}}/html.json: 応答が JSON ではありません: "},
		{name: "an HTTP error status at the start", url: "{{S}}/broken.json",
			en: "fetch {{S}}/broken.json: HTTP status 500 Internal Server Error",
			ja: "{{S}}/broken.json の取得: HTTP ステータス 500 Internal Server Error"},
		{name: "an HTTP error status behind a $ref", url: "{{S}}/gone.json",
			en: "fetch {{S}}/missing.json: HTTP status 404 Not Found",
			ja: "{{S}}/missing.json の取得: HTTP ステータス 404 Not Found"},
		{name: "a document over the limit", url: "{{S}}/big.json", opt: VendorOptions{MaxDocBytes: 100},
			en: "fetch {{S}}/big.json: the document is over the limit of 100 bytes",
			ja: "{{S}}/big.json の取得: 文書が上限の 100 バイトを超えています"},
		{name: "the set over the limit", url: "{{S}}/refers-big.json", opt: VendorOptions{MaxBytes: 300},
			en: "the schema set is over the limit of 300 bytes at {{S}}/big.json",
			ja: "スキーマ一式が {{S}}/big.json で上限の 300 バイトを超えました"},
		{name: "a $ref to another scheme", url: "{{S}}/ftp.json",
			en: "{{S}}/ftp.json at /properties/f/$ref: ftp://example.com/x.json is not an http(s) URL: seam fetches schemas over HTTP only",
			ja: "{{S}}/ftp.json の /properties/f/$ref: ftp://example.com/x.json は http(s) の URL ではありません"},
		{name: "a $ref to a URN", url: "{{S}}/urn.json",
			en: "{{S}}/urn.json at /$ref: urn:example:thing is not an http(s) URL",
			ja: "urn:example:thing は http(s) の URL ではありません"},
		{name: "a file: URL to start with", url: "file:///etc/passwd",
			en: "file:///etc/passwd is not an http(s) URL: seam fetches schemas over HTTP only",
			ja: "file:///etc/passwd は http(s) の URL ではありません"},
		{name: "a URL with credentials", url: "https://me:s3cret@example.com/x.json",
			en: "https://me:xxxxx@example.com/x.json holds credentials: vendor from a URL without them",
			ja: "https://me:xxxxx@example.com/x.json は認証情報を含んでいます"},
		{name: "a $ref with credentials", url: "{{S}}/creds.json",
			en: "{{S}}/creds.json at /$ref: ftp://me:xxxxx@example.com/x.json is not an http(s) URL",
			ja: "ftp://me:xxxxx@example.com/x.json は http(s) の URL ではありません"},
		{name: "a relative URL to start with", url: "schemas/x.json",
			en: "schemas/x.json is not an absolute URL", ja: "schemas/x.json は絶対 URL ではありません"},
		{name: "more documents than allowed", url: "{{S}}/chain1.json", opt: VendorOptions{MaxDocuments: 2},
			en: "the schema set has more than 2 documents ({{S}}/chain2.json at /$ref refers to {{S}}/chain3.json)",
			ja: "スキーマ一式の文書が 2 を超えます ({{S}}/chain2.json の /$ref が {{S}}/chain3.json を参照しています)"},
		{name: "redirects without end", url: "{{S}}/loop", opt: VendorOptions{MaxRedirects: 3},
			en: "fetch {{S}}/loop: more than 3 redirects", ja: "{{S}}/loop の取得: リダイレクトが 3 回を超えました"},
		{name: "a redirect to another scheme", url: "{{S}}/to-ftp",
			en: "fetch {{S}}/to-ftp: ftp://example.com/x.json is not an http(s) URL",
			ja: "{{S}}/to-ftp の取得: ftp://example.com/x.json は http(s) の URL ではありません"},
		{name: "a server that does not answer", url: "{{S}}/hang.json", opt: VendorOptions{Timeout: 50 * time.Millisecond},
			en: "fetch {{S}}/hang.json: ", ja: "{{S}}/hang.json の取得: "},
		{name: "a URL with a query", url: "{{S}}/query.json",
			en: "{{S}}/query.json at /$ref: {{S}}/q.json?v=2 names no file a catalog can hold",
			ja: "{{S}}/q.json?v=2 はカタログに置けるファイルを指していません"},
		{name: "a path with ..", url: "{{S}}/x/../small.json",
			en: "{{S}}/x/../small.json names no file a catalog can hold",
			ja: "{{S}}/x/../small.json はカタログに置けるファイルを指していません"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, expand, _ := schemaServers(t, pages)
			for lang, want := range map[i18n.Lang]string{i18n.English: tt.en, i18n.Japanese: tt.ja} {
				into := t.TempDir()
				opt := tt.opt
				opt.Lang = lang
				got, err := Vendor(context.Background(), expand(tt.url), into, opt)
				if err == nil || !strings.Contains(err.Error(), expand(want)) || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("%s: %v, %v; want an error saying %q", lang, got, err, expand(want))
				}
				if ents, _ := os.ReadDir(into); len(ents) > 0 {
					t.Errorf("%s: wrote %v before refusing", lang, ents)
				}
			}
		})
	}
}

// TestVendoredSummary says the files and the DAG's catalog lines.
func TestVendoredSummary(t *testing.T) {
	v := &Vendored{
		Files:   []VendoredFile{{URL: "https://json.schemastore.org/a.json", Path: "vendor/ss/a.json"}},
		Catalog: []CatalogEntry{{Dir: "vendor/ss", Prefix: "https://json.schemastore.org/"}},
	}
	want := `wrote vendor/ss/a.json (https://json.schemastore.org/a.json)
add to the DAG (dir relative to the DAG file), or pass --catalog PREFIX=DIR to validate and compat:
catalog:
  - dir: vendor/ss
    prefix: https://json.schemastore.org/
`
	if got := v.Summary(i18n.English); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := v.Summary(i18n.Japanese); !strings.Contains(got, "vendor/ss/a.json を書き込みました (https://json.schemastore.org/a.json)") {
		t.Errorf("Japanese: %s", got)
	}
}
