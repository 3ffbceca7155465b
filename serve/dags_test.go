package serve

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write writes files (path relative to dir → content), making their folders.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outsideSecret is in the files outside the root: no page may show it.
const outsideSecret = "outside-secret-7f3a"

// TestServeConfinesLoads: a DAG under the root whose sub-DAG or contract lies outside it (by
// .., by an absolute path, behind a symbolic link) does not load: its page says which file is
// outside the root, shows nothing of it and no absolute path, and the run form starts
// nothing.
func TestServeConfinesLoads(t *testing.T) {
	f := newFixture(t, Options{})
	outside := filepath.Dir(f.root)
	sub := "version: 1\nname: out\ndescription: " + outsideSecret + "\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: " + outsideSecret + "}}\n"
	write(t, outside, map[string]string{
		"out.yaml":    sub,
		"schema.json": `{"type": "object", "description": "` + outsideSecret + `"}`,
	})
	if err := os.Symlink(filepath.Join(outside, "out.yaml"), filepath.Join(f.root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	subDAG := func(file string) string {
		return "version: 1\nname: parent\nnodes:\n  run:\n    type: dag\n    with: {file: " + file + "}\n"
	}
	contract := func(file string) string {
		return "version: 1\nname: parent\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {output: " + file + "}\n"
	}
	write(t, f.root, map[string]string{
		"sub-dotdot.yaml":        subDAG("../out.yaml"),
		"sub-absolute.yaml":      subDAG(filepath.Join(outside, "out.yaml")),
		"sub-link.yaml":          subDAG("link.yaml"),
		"contract-dotdot.yaml":   contract("../schema.json"),
		"contract-absolute.yaml": contract(filepath.Join(outside, "schema.json")),
	})
	c := jarClient(t, f)
	_, page := f.get(c, "/login")
	csrf := csrfOf(t, page)
	for _, name := range []string{"sub-dotdot.yaml", "sub-absolute.yaml", "sub-link.yaml", "contract-dotdot.yaml", "contract-absolute.yaml"} {
		t.Run(name, func(t *testing.T) {
			resp, body := f.get(c, "/dags/"+name)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "outside the root") {
				t.Errorf("GET: %d, want 422 saying the file is outside the root:\n%s", resp.StatusCode, body)
			}
			if strings.Contains(body, outsideSecret) || strings.Contains(body, outside) {
				t.Errorf("GET: the page shows the outside file or an absolute path:\n%s", body)
			}
			resp, body = post(t, c, f.http.URL+"/dags/"+name, url.Values{"csrf": {csrf}, "nolint": {"on"}})
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("POST: %d, want 422:\n%s", resp.StatusCode, body)
			}
		})
	}
	list, _, err := f.svc.List(t.Context(), runsFilter())
	if err != nil || len(list) != 0 {
		t.Errorf("runs: %d (%v), want none", len(list), err)
	}
}

// TestServeOnlyDAGFiles: /dags/PATH serves only DAG files: a hidden file or folder, a file
// that is not *.yaml or *.yml, or YAML without a top-level nodes key is refused without being
// read, and no answer shows a value of them or the root's absolute path; the DAGs page does
// not list them.
func TestServeOnlyDAGFiles(t *testing.T) {
	const secret = "hunter2-value-9c1d"
	f := newFixture(t, Options{})
	write(t, f.root, map[string]string{
		".env":            "API_KEY=" + secret + "\n",
		".git/config":     "[remote]\n\turl = https://u:" + secret + "@example.com\n",
		".hidden.yaml":    "nodes: {a: {type: const, with: {value: " + secret + "}}}\n",
		".ci/deploy.yaml": "nodes: {a: {type: const, with: {value: " + secret + "}}}\n",
		"compose.yaml":    "services:\n  db:\n    password: " + secret + "\n",
		"notes.txt":       secret + "\n",
		"broken-dag.yaml": "version: 1\nname: broken\nnodes:\n  a: {type: nope}\n",
		"folder/ok.yaml":  "version: 1\nname: ok\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: fine}}\n",
	})
	for _, tc := range []struct{ path, saying string }{
		{".env", "is not a DAG file"},
		{".git/config", "is not a DAG file"},
		{".hidden.yaml", "hidden files and folders are not served"},
		{".ci/deploy.yaml", "hidden files and folders are not served"},
		{"compose.yaml", "compose.yaml is not a DAG file: it has no top-level nodes key"},
		{"notes.txt", "only *.yaml and *.yml files are served"},
		{"missing.yaml", "no DAG file missing.yaml under the root"},
		{"%2e%2e/%2e%2e/etc/passwd", "is outside the root"},
		{"broken-dag.yaml", "broken-dag.yaml:4:"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := f.get(nil, "/dags/"+tc.path)
			if resp.StatusCode < 400 || !strings.Contains(body, tc.saying) {
				t.Errorf("%d, want an error saying %q:\n%s", resp.StatusCode, tc.saying, body)
			}
			if strings.Contains(body, secret) || strings.Contains(body, f.root) {
				t.Errorf("the page shows a secret or the root's path:\n%s", body)
			}
		})
	}
	resp, body := f.get(nil, "/dags")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "folder/ok.yaml") || !strings.Contains(body, "broken-dag.yaml") {
		t.Fatalf("GET /dags: %d, want it to list folder/ok.yaml and broken-dag.yaml:\n%s", resp.StatusCode, body)
	}
	for _, hidden := range []string{".env", ".hidden.yaml", "deploy.yaml", "compose.yaml", secret, f.root} {
		if strings.Contains(body, hidden) {
			t.Errorf("GET /dags shows %q", hidden)
		}
	}
}

// TestServeDAGsCache: the DAGs page's row of a DAG file follows every change to the files its
// load reads — the file, a $ref of its contract file, its sub-DAG file — and comes back as it
// was when they do.
func TestServeDAGsCache(t *testing.T) {
	f := newFixture(t, Options{})
	const (
		parent = "version: 1\nname: parent\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: x, data: {v: 1}}}\n    contract: {output: schemas/out.json}\n" +
			"  b:\n    type: const\n    input: {v: \"${{ nodes.a.output.data.v }}\"}\n    with: {value: {status: pass, summary: y}}\n" +
			"    contract: {input: {type: object, required: [v], properties: {v: {type: integer}}}}\n" +
			"  s:\n    type: dag\n    with: {file: sub.yaml}\n"
		sub     = "version: 1\nname: sub\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n"
		integer = `{"type": "object", "required": ["v"], "properties": {"v": {"type": "integer"}}}`
	)
	write(t, f.root, map[string]string{
		"parent.yaml":       parent,
		"sub.yaml":          sub,
		"schemas/out.json":  `{"type": "object", "required": ["data"], "properties": {"data": {"$ref": "defs.json"}}}`,
		"schemas/defs.json": integer,
	})
	row := func() string {
		t.Helper()
		_, body := f.get(nil, "/dags")
		i := strings.Index(body, `<a href="/dags/parent.yaml">`)
		if i < 0 {
			t.Fatalf("parent.yaml is not listed:\n%s", body)
		}
		return body[i : i+strings.Index(body[i:], "</tr>")]
	}
	first := row()
	if !strings.Contains(first, "parent") || strings.Contains(first, "st-failed") {
		t.Fatalf("first row %q: want parent, loading, without errors", first)
	}
	if again := row(); again != first {
		t.Fatalf("row %q, then %q with nothing changed", first, again)
	}
	for _, tc := range []struct {
		name, file, content, saying string
	}{
		{"a $ref'd schema", "schemas/defs.json", `{"type": "object", "required": ["v"], "properties": {"v": {"type": 3}}}`, "does not load"},
		{"the sub-DAG", "sub.yaml", "version: 1\nname: sub\nnodes:\n  a: {type: nope}\n", "does not load"},
		{"the file", "parent.yaml", strings.Replace(parent, "name: parent", "name: renamed", 1), "renamed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := os.ReadFile(filepath.Join(f.root, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			write(t, f.root, map[string]string{tc.file: tc.content})
			if got := row(); got == first || !strings.Contains(got, tc.saying) {
				t.Errorf("after changing %s: row %q, want it saying %q", tc.file, got, tc.saying)
			}
			write(t, f.root, map[string]string{tc.file: string(old)})
			if got := row(); got != first {
				t.Errorf("after changing %s back: row %q, want %q", tc.file, got, first)
			}
		})
	}
}

// TestServeUnreadableDAGFile: a DAG file that cannot be read (a named pipe, which would block
// a reader) is refused at once, the page and the DAGs page's row saying why and naming it
// relative to the root.
func TestServeUnreadableDAGFile(t *testing.T) {
	f := newFixture(t, Options{})
	if err := syscall.Mkfifo(filepath.Join(f.root, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "pipe.yaml cannot be read: not a regular file"
	resp, body := f.get(nil, "/dags/pipe.yaml")
	if resp.StatusCode < 400 || !strings.Contains(body, want) {
		t.Errorf("GET /dags/pipe.yaml: %d, want an error saying %q:\n%s", resp.StatusCode, want, body)
	}
	resp, body = f.get(nil, "/dags")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("GET /dags: %d, want a row saying %q:\n%s", resp.StatusCode, want, body)
	}
	if strings.Contains(body, f.root) {
		t.Errorf("GET /dags shows the root's path:\n%s", body)
	}
}

// TestServeDAGsSameName: the DAGs page says, on the row of each file that gives a DAG name
// another file gives too, which files those are and at which line: the Last run column of
// both would show the runs of either.
func TestServeDAGsSameName(t *testing.T) {
	f := newFixture(t, Options{})
	dagNamed := func(name string) string {
		return "version: 1\nname: " + name + "\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: fine}}\n"
	}
	write(t, f.root, map[string]string{
		"a.yaml":     dagNamed("report"),
		"sub/b.yaml": "# copied from a.yaml\n" + dagNamed("report"),
		"c.yaml":     dagNamed("other"),
	})
	resp, body := f.get(nil, "/dags")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /dags: %d\n%s", resp.StatusCode, body)
	}
	const says = "Runs are listed by DAG name: these files give this one too: "
	for _, tc := range []struct{ file, row string }{
		{"a.yaml", says + "sub/b.yaml:3"},
		{"sub/b.yaml", says + "a.yaml:2"},
		{"c.yaml", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, row, ok := strings.Cut(body, `">`+tc.file+`</a>`)
			row, _, _ = strings.Cut(row, "</tr>")
			switch {
			case !ok:
				t.Fatalf("no row for %s:\n%s", tc.file, body)
			case tc.row == "" && strings.Contains(row, "these files give"):
				t.Errorf("the row of %s warns of a shared name:\n%s", tc.file, row)
			case !strings.Contains(row, tc.row):
				t.Errorf("the row of %s does not say %q:\n%s", tc.file, tc.row, row)
			}
		})
	}
}
