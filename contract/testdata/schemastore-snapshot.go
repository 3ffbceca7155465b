//go:build ignore

// schemastore-snapshot writes testdata/schemastore.tar.gz, the part of SchemaStore
// (github.com/SchemaStore/schemastore, Apache-2.0) that TestSchemaStore checks seam against:
// every schema that has test instances and is not in SchemaStore's own skiptest list, every
// file their $refs reach (by https://json.schemastore.org/ or www.schemastore.org URL, or by a
// file's $id/id), their instances (src/test/NAME, src/negative_test/NAME), and LICENSE and
// NOTICE. Files are copied byte for byte; the archive is the same for the same checkout.
//
//	git clone https://github.com/SchemaStore/schemastore /tmp/schemastore
//	git -C /tmp/schemastore checkout 3b6446ad8a077bac56f4a4796c0b7fd88927fc8e
//	go run contract/testdata/schemastore-snapshot.go /tmp/schemastore contract/testdata/schemastore.tar.gz
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

var hosts = []string{"https://json.schemastore.org/", "https://www.schemastore.org/", "http://json.schemastore.org/"}

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: go run schemastore-snapshot.go SCHEMASTORE-CHECKOUT OUT.tar.gz")
	}
	src, out := os.Args[1], os.Args[2]
	schemaDir := filepath.Join(src, "src", "schemas", "json")
	skip, err := skiptest(filepath.Join(src, "src", "schema-validation.jsonc"))
	if err != nil {
		log.Fatal(err)
	}
	ids, err := index(schemaDir)
	if err != nil {
		log.Fatal(err)
	}
	tests, err := os.ReadDir(filepath.Join(src, "src", "test"))
	if err != nil {
		log.Fatal(err)
	}
	need := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if need[name] {
			return
		}
		b, err := os.ReadFile(filepath.Join(schemaDir, name))
		if err != nil {
			return // a URL that names no file, or an id inside one: the test reports what fails
		}
		need[name] = true
		var doc any
		if json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), &doc) != nil {
			return
		}
		for _, u := range refs(doc, "https://json.schemastore.org/"+name) {
			if f, ok := ids[u]; ok {
				visit(f)
				continue
			}
			for _, h := range hosts {
				if rest, ok := strings.CutPrefix(u, h); ok {
					visit(rest)
				}
			}
		}
	}
	files := map[string]string{} // archive name → file
	skipped := 0
	for _, t := range tests {
		name := t.Name() + ".json"
		if _, err := os.Stat(filepath.Join(schemaDir, name)); err != nil {
			log.Printf("%s: no schema (%v)", t.Name(), err)
			continue
		}
		if skip[name] {
			skipped++
			continue
		}
		visit(name)
		for _, kind := range []string{"test", "negative_test"} {
			dir := filepath.Join(src, "src", kind, t.Name())
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if e.Type().IsRegular() {
					files[path.Join("schemastore", kind, t.Name(), e.Name())] = filepath.Join(dir, e.Name())
				}
			}
		}
	}
	for name := range need {
		files[path.Join("schemastore", "schemas", name)] = filepath.Join(schemaDir, name)
	}
	files["schemastore/LICENSE"] = filepath.Join(src, "LICENSE")
	files["schemastore/NOTICE"] = filepath.Join(src, "NOTICE")
	if err := write(out, files); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d schema files, %d files in all (%d schemas with tests skipped by SchemaStore's skiptest)", len(need), len(files), skipped)
}

// skiptest reads the schemas SchemaStore's CI does not test from its JSONC configuration.
func skiptest(p string) (map[string]bool, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Skiptest []string `json:"skiptest"`
	}
	if err := json.Unmarshal(stripComments(b), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	skip := map[string]bool{}
	for _, s := range cfg.Skiptest {
		skip[s] = true
	}
	return skip, nil
}

// stripComments removes // and /* */ comments and trailing commas outside strings.
func stripComments(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := i + 1
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			out = append(out, b[i:j+1]...)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			i += end + 3
		default:
			out = append(out, b[i])
		}
	}
	// Trailing commas: a comma whose next non-space byte closes an object or array.
	var clean []byte
	for i := 0; i < len(out); i++ {
		if out[i] == ',' {
			rest := bytes.TrimLeft(out[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
		}
		clean = append(clean, out[i])
	}
	return clean
}

// index maps every schema file's $id (id up to draft-04), without fragment, to its name.
func index(dir string) (map[string]string, error) {
	ids := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // absent from a partial checkout
		}
		var doc map[string]any
		if json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), &doc) != nil {
			continue
		}
		id, ok := doc["$id"].(string)
		if !ok {
			id, _ = doc["id"].(string)
		}
		if u, err := url.Parse(id); err == nil && u.IsAbs() {
			u.Fragment = ""
			if _, taken := ids[u.String()]; !taken {
				ids[u.String()] = e.Name()
			}
		}
	}
	return ids, nil
}

// refs returns the documents (absolute URLs without fragment) the $refs of doc name, each
// resolved against the base its enclosing $id/id sets.
func refs(doc any, base string) []string {
	var out []string
	var walk func(v any, base *url.URL)
	walk = func(v any, base *url.URL) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"$id", "id"} {
				if s, ok := v[k].(string); ok {
					if u, err := base.Parse(s); err == nil {
						base = u
					}
					break
				}
			}
			for k, e := range v {
				switch k {
				case "$ref", "$dynamicRef", "$recursiveRef":
					if s, ok := e.(string); ok {
						if u, err := base.Parse(s); err == nil {
							u.Fragment = ""
							out = append(out, u.String())
						}
					}
				case "enum", "const", "examples", "default":
				default:
					walk(e, base)
				}
			}
		case []any:
			for _, e := range v {
				walk(e, base)
			}
		}
	}
	u, _ := url.Parse(base)
	walk(doc, u)
	slices.Sort(out)
	return slices.Compact(out)
}

// write writes files into a gzip'd tar in name order, with fixed times and owners, so the
// same checkout gives the same bytes.
func write(out string, files map[string]string) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	mtime := time.Date(2026, 8, 7, 0, 0, 0, 0, time.UTC)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b, err := os.ReadFile(files[name])
		if err != nil {
			return err
		}
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), fs.FileMode(0o644))
}
