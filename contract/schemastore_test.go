package contract

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
)

// schemaStoreSnapshot is SchemaStore (github.com/SchemaStore/schemastore, Apache-2.0, its
// LICENSE and NOTICE inside) at 3b6446ad8a07: every schema that has test instances, the files
// their $refs reach, and those instances (test/NAME valid, negative_test/NAME invalid). It is
// made by testdata/schemastore-snapshot.go from a clone; see the comment there.
const schemaStoreSnapshot = "testdata/schemastore.tar.gz"

// schemaStoreKnown are the schemas and instances where seam and SchemaStore's CI (ajv 8 with
// ajv-formats 2) part, each with the reason; TestSchemaStore fails when one of them agrees
// again, so that the list only shrinks. A key is NAME (the schema does not compile), or
// NAME/test/FILE or NAME/negative_test/FILE (an instance). Where seam follows the
// specification and ajv does not, seam stays; the rest are the YAML library's, or another
// item's.
var schemaStoreKnown = map[string]string{
	// base-04.json's definitions/license $refs "osi-license", an id no subschema of the file
	// declares (its osi-license definition has none): a dangling $ref in SchemaStore. ajv
	// compiles only what clasp.json reaches (definitions/path); seam compiles the whole file
	// a $ref names. Compiling only what a $ref reaches is issue 43 item 4, another branch's.
	"clasp": "a $ref that resolves nowhere, in a definition clasp does not reach",
	// The validator library checks every subschema a $ref reaches against the draft's
	// metaschema; this one (under $defs, which draft-07 does not define, so the file's own
	// metaschema check never looks there) has description: null. ajv checks the root only.
	"utcm-monitor": "description: null in a subschema a $ref reaches",
	// Draft-04 defines no const: validation ignores it (lint says so, SEAM-W309), so the
	// branches of a oneOf that differ only by const all match. ajv-draft-04 asserts const.
	"es6importsorterrc/test/es6importsorterrc-test.json": draft04Const,
	"web-manifest/test/W3C Example 1.json":               draft04Const,
	"function/test/BlobTrigger.json":                     draft04Const,
	"function/test/EventHubTrigger.json":                 draft04Const,
	"function/test/ExternalFileTrigger.json":             draft04Const,
	"function/test/ExternalTable.json":                   draft04Const,
	"function/test/FaceLocator.json":                     draft04Const,
	"function/test/GenericWebHook.json":                  draft04Const,
	"function/test/GitHubCommenter.json":                 draft04Const,
	"function/test/GitHubWebHook.json":                   draft04Const,
	"function/test/HttpGET(CRUD).json":                   draft04Const,
	"function/test/HttpPOST(CRUD).json":                  draft04Const,
	"function/test/HttpPUT(CRUD).json":                   draft04Const,
	"function/test/HttpTrigger.json":                     draft04Const,
	"function/test/ImageResizer.json":                    draft04Const,
	"function/test/Kusto.json":                           draft04Const,
	"function/test/ManualTrigger.json":                   draft04Const,
	"function/test/MySql.json":                           draft04Const,
	"function/test/QueueTrigger.json":                    draft04Const,
	"function/test/SasToken.json":                        draft04Const,
	"function/test/ScheduledMail.json":                   draft04Const,
	"function/test/SendGrid.json":                        draft04Const,
	"function/test/ServiceBusQueueTrigger.json":          draft04Const,
	"function/test/ServiceBusTopicTrigger.json":          draft04Const,
	"function/test/Sql.json":                             draft04Const,
	"function/test/TimerTrigger.json":                    draft04Const,
	"function/test/function.json":                        draft04Const,
	// Draft-07 ignores keywords beside a $ref (lint says so, SEAM-W310): local_repo's hooks
	// write required: [id, name, entry, language] beside their $ref. ajv applies them.
	"pre-commit-config/negative_test/local-missing-entry.json": "required beside a $ref, which draft-07 ignores",
	// RFC 3339's date-time requires an offset; endTime is 2018-12-14T10:00:00. ajv-formats 2
	// makes the offset optional.
	"webjob-publish-settings/test/scheduled.json": "a date-time without its offset",
	// yaml.v3 reads YAML 1.1 and refuses a %YAML 1.2 directive.
	"sublime-syntax/test/Manpage.sublime-syntax.yaml": "%YAML 1.2, which yaml.v3 refuses",
	// A mapping key ~ (null): JSON has no such key, and Normalize refuses it rather than guess
	// its text (the yaml npm package writes it as a string).
	"tmuxinator/test/nameless_window.yml": "a null mapping key",
	// A byte-order mark at the start of the second line: yaml.v3 keeps it in the key
	// ("\ufeffversion"); the yaml npm package drops it.
	"venvironment-schema-v2.2.0/test/unicode-1.yaml": "a byte-order mark inside the document",
	"venvironment-schema-v3.2.0/test/unicode-1.yaml": "a byte-order mark inside the document",
	"venvironment-schema-v4.0.0/test/unicode-1.yaml": "a byte-order mark inside the document",
}

// draft04Const is why a draft-04 schema's instance parts from ajv's verdict.
const draft04Const = "const in draft-04, which does not define it"

// unpackTarGz writes the regular files of the .tar.gz at src under dir.
func unpackTarGz(tb testing.TB, src, dir string) {
	tb.Helper()
	f, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", src, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			tb.Fatalf("%s: %v", src, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		if !filepath.IsLocal(name) {
			tb.Fatalf("%s: %s is outside the archive's folder", src, h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatalf("%s: %s: %v", src, h.Name, err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// schemaStore unpacks the snapshot and returns its folder and the catalog that maps
// SchemaStore's URLs (both hosts it publishes under) to its schemas.
func schemaStore(tb testing.TB) (string, []CatalogEntry) {
	tb.Helper()
	dir := tb.TempDir()
	unpackTarGz(tb, schemaStoreSnapshot, dir)
	dir = filepath.Join(dir, "schemastore")
	schemas := filepath.Join(dir, "schemas")
	return dir, []CatalogEntry{
		{Dir: schemas, Prefix: "https://json.schemastore.org/"},
		{Dir: schemas, Prefix: "https://www.schemastore.org/"},
	}
}

// readInstance decodes a SchemaStore test instance by its extension: JSON, YAML (yaml.v3, the
// loader's library) or TOML; ok is false for a file of another kind.
func readInstance(p string) (v any, ok bool, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, true, err
	}
	switch filepath.Ext(p) {
	case ".json":
		v, err = ParseJSON(b)
		return v, true, err
	case ".yaml", ".yml":
		var node yaml.Node
		if err := yaml.Unmarshal(b, &node); err != nil {
			return nil, true, err
		}
		plainScalars(&node)
		var doc any
		if err := node.Decode(&doc); err != nil {
			return nil, true, err
		}
		v, err = Normalize(doc)
		return v, true, err
	case ".toml":
		var doc map[string]any
		if err := toml.Unmarshal(b, &doc); err != nil {
			return nil, true, err
		}
		v, err = Normalize(plainTimes(doc))
		return v, true, err
	}
	return nil, false, nil
}

// plainScalars reads YAML's timestamps as the strings they are written as: SchemaStore's CI
// parses YAML by the 1.2 core schema (the yaml npm package), which has no timestamp type,
// where yaml.v3 makes 1935-06-22 a time.
func plainScalars(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" && n.Style&(yaml.TaggedStyle) == 0 {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		plainScalars(c)
	}
}

// plainTimes writes the dates and times the TOML decoder returns as the strings SchemaStore's
// TOML parser hands to ajv (RFC 3339 for an offset date-time), so that format: date-time sees
// them; TOML's local date, time and date-time keep their own text.
func plainTimes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = plainTimes(e)
		}
	case []any:
		for i, e := range v {
			v[i] = plainTimes(e)
		}
	case []map[string]any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainTimes(e)
		}
		return out
	case time.Time:
		// The TOML library marks its local kinds by the zone's name.
		switch v.Location().String() {
		case "date-local":
			return v.Format(time.DateOnly)
		case "time-local":
			return v.Format("15:04:05.999999999")
		case "datetime-local":
			return v.Format("2006-01-02T15:04:05.999999999")
		}
		return v.Format(time.RFC3339Nano)
	}
	return v
}

// schemaDraft names the draft a schema file declares by $schema, for the figures.
func schemaDraft(doc any) string {
	m, _ := doc.(map[string]any)
	s, _ := m["$schema"].(string)
	switch {
	case strings.Contains(s, "draft-04"):
		return "draft-04"
	case strings.Contains(s, "draft-06"):
		return "draft-06"
	case strings.Contains(s, "draft-07"):
		return "draft-07"
	case strings.Contains(s, "2019-09"):
		return "2019-09"
	case strings.Contains(s, "2020-12"):
		return "2020-12"
	case s == "":
		return "none (2020-12)"
	}
	return s
}

// draftFigures counts one draft's schemas and instances.
type draftFigures struct {
	schemas, compiled  int
	instances, agreing int
	toml               int
}

// TestSchemaStore compiles every SchemaStore schema that has test instances as published,
// through a catalog that maps https://json.schemastore.org/ (and www.schemastore.org) to the
// snapshot's folder, and validates each instance: those under test/ must be accepted, those
// under negative_test/ refused, as SchemaStore's CI has them. Where seam parts from it, the
// difference is in schemaStoreKnown with its reason. The figures by draft are logged
// (go test -v -run TestSchemaStore ./contract/).
func TestSchemaStore(t *testing.T) {
	dir, catalog := schemaStore(t)
	names, err := os.ReadDir(filepath.Join(dir, "test"))
	if err != nil {
		t.Fatal(err)
	}
	figures := map[string]*draftFigures{}
	seen := map[string]bool{}
	differ := func(key, what string) {
		seen[key] = true
		if _, known := schemaStoreKnown[key]; !known {
			t.Errorf("%s: %s", key, what)
		}
	}
	for _, n := range names {
		name := n.Name()
		file := filepath.Join(dir, "schemas", name+".json")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		doc, err := ParseJSON(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		f := figures[schemaDraft(doc)]
		if f == nil {
			f = &draftFigures{}
			figures[schemaDraft(doc)] = f
		}
		f.schemas++
		c, err := NewCompiler(Options{Catalog: catalog})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.File(file)
		if err != nil {
			differ(name, "does not compile: "+err.Error())
			// A refusal names the same file, pointer and pattern on every compile.
			again, err2 := NewCompiler(Options{Catalog: catalog})
			if err2 != nil {
				t.Fatal(err2)
			}
			if _, err2 = again.File(file); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("%s: refused as %q, then as %v", name, err, err2)
			}
			continue
		}
		f.compiled++
		for _, kind := range []string{"test", "negative_test"} {
			files, err := os.ReadDir(filepath.Join(dir, kind, name))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, inst := range files {
				key := name + "/" + kind + "/" + inst.Name()
				if strings.HasSuffix(inst.Name(), ".toml") {
					f.toml++
				}
				v, ok, err := readInstance(filepath.Join(dir, kind, name, inst.Name()))
				if !ok {
					continue
				}
				f.instances++
				if err != nil {
					differ(key, "cannot be read: "+err.Error())
					continue
				}
				vs := s.Validate(v, i18n.English)
				switch {
				case kind == "test" && len(vs) > 0:
					differ(key, fmt.Sprintf("refused: %v", vs))
				case kind == "negative_test" && len(vs) == 0:
					differ(key, "accepted; SchemaStore's CI refuses it")
				default:
					f.agreing++
				}
			}
		}
	}
	for key := range schemaStoreKnown {
		if !seen[key] {
			t.Errorf("%s: agrees with SchemaStore now: remove it from schemaStoreKnown", key)
		}
	}
	var total draftFigures
	for _, d := range slices.Sorted(maps.Keys(figures)) {
		f := figures[d]
		t.Logf("%-15s schemas compiled %d/%d, instances agreeing %d/%d (%d of them TOML)", d, f.compiled, f.schemas, f.agreing, f.instances, f.toml)
		total.schemas += f.schemas
		total.compiled += f.compiled
		total.instances += f.instances
		total.agreing += f.agreing
		total.toml += f.toml
	}
	t.Logf("%-15s schemas compiled %d/%d, instances agreeing %d/%d (%d of them TOML)", "all", total.compiled, total.schemas, total.agreing, total.instances, total.toml)
}

// BenchmarkCompileSchemaStore compiles real schema sets from the SchemaStore snapshot, each on
// a new Compiler through the catalog (read, parse, metaschema check, compile): package.json and
// pyproject.json with the files they refer to, and the largest single files with tests.
// utcm-monitor.json (2.7 MB) is refused (schemaStoreKnown): its time is the time to refuse.
//
//	go test -run '^$' -bench CompileSchemaStore -benchmem -count 3 ./contract/
func BenchmarkCompileSchemaStore(b *testing.B) {
	dir, catalog := schemaStore(b)
	for _, name := range []string{"package", "pyproject", "vector", "cloudify", "tsconfig", "utcm-monitor"} {
		b.Run(name, func(b *testing.B) {
			file := filepath.Join(dir, "schemas", name+".json")
			refused := schemaStoreKnown[name] != ""
			b.ReportAllocs()
			for b.Loop() {
				c, err := NewCompiler(Options{Catalog: catalog})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.File(file); (err != nil) != refused {
					b.Fatalf("%s: %v", name, err)
				}
			}
		})
	}
}
