package contract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"out.json": `{
			"type": "object",
			"properties": {
				"count": {"$ref": "defs/common.json#/$defs/count"},
				"name": {"$ref": "#/$defs/name"},
				"owner": {"$ref": "defs/person.json"}
			},
			"$defs": {"name": {"type": "string", "minLength": 1}}
		}`,
		"defs/common.json": `{"$defs": {"count": {"type": "integer", "minimum": 0}}}`,
		"defs/person.json": `{"type": "object", "required": ["email"], "properties": {"email": {"$ref": "common.json#/$defs/email"}}}`,
		"defs/email.json":  `{}`,
	})
	// person.json refers to common.json next to itself, not next to out.json.
	if err := os.WriteFile(filepath.Join(dir, "defs/common.json"),
		[]byte(`{"$defs": {"count": {"type": "integer", "minimum": 0}, "email": {"type": "string", "format": "email"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.File(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.File(filepath.Join(dir, "out.json")); err != nil || again != s {
		t.Errorf("compiling the same file again: %v, %v; want the same schema", again, err)
	}
	tests := []struct {
		value string
		want  []Violation
	}{
		{`{"count": 1, "name": "a", "owner": {"email": "a@example.com"}}`, nil},
		{`{"count": -1, "name": ""}`, []Violation{
			{Pointer: "/count", Keyword: "/properties/count/$ref/minimum", Value: "-1", Message: "field 'count' must be ≥ 0"},
			{Pointer: "/name", Keyword: "/properties/name/$ref/minLength", Value: `""`, Message: "field 'name' must have minLength 1"},
		}},
		{`{"owner": {"email": "nope"}}`, []Violation{
			{Pointer: "/owner/email", Keyword: "/properties/owner/$ref/properties/email/$ref/format", Value: `"nope"`, Message: "field 'owner.email' must be a valid email"},
		}},
		{`{"owner": {}}`, []Violation{
			{Pointer: "/owner/email", Keyword: "/properties/owner/$ref/required", Message: "field 'owner.email' is required"},
		}},
	}
	for _, tt := range tests {
		got := s.Validate(parse(t, tt.value), "en")
		if !equal(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.value, got, tt.want)
		}
	}
	if src, ok := s.Source().(map[string]any); !ok || src["type"] != "object" {
		t.Errorf("Source() = %v, want the file's JSON", s.Source())
	}
}

func equal(a, b []Violation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRemoteRefRefused(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		url    string
		ptr    string
		errLoc string // file the SchemaError names, relative to the directory
	}{
		{"http", map[string]string{"s.json": `{"properties": {"a": {"$ref": "http://example.com/a.json"}}}`},
			"http://example.com/a.json", "/properties/a/$ref", "s.json"},
		{"https", map[string]string{"s.json": `{"$ref": "https://example.com/a.json#/$defs/x"}`},
			"https://example.com/a.json", "/$ref", "s.json"},
		{"inside $defs, referenced", map[string]string{"s.json": `{"$ref": "#/$defs/x", "$defs": {"x": {"$ref": "https://example.com/x.json"}}}`},
			"https://example.com/x.json", "/$defs/x/$ref", "s.json"},
		{"inside $defs, unused", map[string]string{"s.json": `{"$defs": {"x": {"$ref": "https://example.com/x.json"}}}`},
			"https://example.com/x.json", "/$defs/x/$ref", "s.json"},
		{"relative to a remote $id", map[string]string{"s.json": `{"$id": "https://example.com/s.json", "$ref": "other.json"}`},
			"https://example.com/other.json", "/$ref", "s.json"},
		{"$dynamicRef", map[string]string{"s.json": `{"$dynamicRef": "https://example.com/x.json#meta"}`},
			"https://example.com/x.json", "/$dynamicRef", "s.json"},
		{"in a referenced file", map[string]string{
			"s.json":     `{"$ref": "lib/a.json"}`,
			"lib/a.json": `{"items": {"$ref": "https://example.com/item.json"}}`},
			"https://example.com/item.json", "/items/$ref", "lib/a.json"},
		{"in a property called enum", map[string]string{"s.json": `{"properties": {"enum": {"$ref": "https://example.com/e.json"}}}`},
			"https://example.com/e.json", "/properties/enum/$ref", "s.json"},
		{"other scheme", map[string]string{"s.json": `{"$ref": "ftp://example.com/x.json"}`},
			"ftp://example.com/x.json", "/$ref", "s.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			c, err := NewCompiler(Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.File(filepath.Join(dir, "s.json"))
			if !errors.Is(err, ErrRemoteRef) {
				t.Fatalf("err = %v, want ErrRemoteRef", err)
			}
			if !strings.Contains(err.Error(), tt.url) {
				t.Errorf("err = %v, want it to name %s", err, tt.url)
			}
			var se *SchemaError
			if tt.ptr == "" {
				return
			}
			if !errors.As(err, &se) || se.Pointer != tt.ptr || se.Location != filepath.Join(dir, tt.errLoc) {
				t.Errorf("err = %#v, want a SchemaError at %s in %s", err, tt.ptr, tt.errLoc)
			}
		})
	}
	t.Run("inline", func(t *testing.T) {
		c, err := NewCompiler(Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Inline("node a", parse(t, `{"properties": {"x": {"$ref": "https://example.com/x.json"}}}`))
		var se *SchemaError
		if !errors.Is(err, ErrRemoteRef) || !errors.As(err, &se) || se.Pointer != "/properties/x/$ref" || se.Location != "node a" {
			t.Errorf("err = %#v, want ErrRemoteRef at /properties/x/$ref of node a", err)
		}
	})
}

// Values of enum, const, default and examples are data: a "$ref" there refers to nothing.
func TestRefLikeData(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"properties": {"$ref": {"type": "string"}, "link": {"enum": [{"$ref": "https://example.com/a.json"}]}},
		"default": {"$ref": "https://example.com/b.json"}}`)
	got := s.Validate(parse(t, `{"$ref": 1, "link": {"$ref": "https://example.com/a.json"}}`), "en")
	want := []Violation{{Pointer: "/$ref", Keyword: "/properties/$ref/type", Value: "1", Message: "field '$ref' must be a string, got number"}}
	if !equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Schemas validate concurrently while their compiler goes on compiling.
func TestConcurrentValidate(t *testing.T) {
	c, err := NewCompiler(Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Standard()
	v := parse(t, `{"status": "maybe", "summary": ""}`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if got := s.Validate(v, "ja"); len(got) != 2 {
					t.Errorf("got %+v, want 2 violations", got)
					return
				}
			}
		})
	}
	for i := range 50 {
		if _, err := c.Inline(fmt.Sprint("extra ", i), parse(t, `{"maximum": 1.0}`)); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
}

func TestMissingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": `{"properties": {"a": {"$ref": "gone.json"}}}`})
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"none.json", "s.json"} {
		_, err := c.File(filepath.Join(dir, name))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: err = %v, want os.ErrNotExist", name, err)
		}
	}
}

func TestInvalidSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		ptr    string
		msg    string
	}{
		{"type is a number", `{"type": 5}`, "/type", "value must be one of"},
		{"nested", `{"properties": {"a": {"items": {"minLength": -1}}}}`, "/properties/a/items/minLength", "minimum"},
		{"bad regex", `{"properties": {"a": {"pattern": "("}}}`, "/properties/a/pattern", "("},
		{"bad pattern property", `{"patternProperties": {"(": {}}}`, "/patternProperties/(", "not valid regex"},
		{"required is not a list", `{"required": "status"}`, "/required", "want array"},
	}
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Inline("inline "+tt.name, parse(t, tt.schema))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want a *SchemaError", err, err)
			}
			if se.Pointer != tt.ptr || se.Location != "inline "+tt.name || !strings.Contains(se.Error(), tt.msg) {
				t.Errorf("err = %q (pointer %q, location %q), want pointer %q and %q in the message",
					err, se.Pointer, se.Location, tt.ptr, tt.msg)
			}
		})
	}
	t.Run("file", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{
			"s.json":   `{"$ref": "bad.json"}`,
			"bad.json": `{"properties": {"x": {"type": "strin"}}}`,
			"nj.json":  `{"type": `,
		})
		_, err := c.File(filepath.Join(dir, "s.json"))
		var se *SchemaError
		if !errors.As(err, &se) || se.Pointer != "/properties/x/type" || se.Location != filepath.Join(dir, "bad.json") {
			t.Errorf("err = %#v, want a SchemaError at /properties/x/type of bad.json", err)
		}
		_, err = c.File(filepath.Join(dir, "nj.json"))
		if !errors.As(err, &se) || se.Location != filepath.Join(dir, "nj.json") || !strings.Contains(err.Error(), "not JSON") {
			t.Errorf("err = %v, want a SchemaError saying nj.json is not JSON", err)
		}
	})
	t.Run("not a JSON value", func(t *testing.T) {
		_, err := c.Inline("yaml", map[string]any{"properties": map[string]any{"a": map[string]any{"maximum": func() {}}}})
		var se *SchemaError
		if !errors.As(err, &se) || se.Pointer != "/properties/a/maximum" {
			t.Errorf("err = %#v, want a SchemaError at /properties/a/maximum", err)
		}
	})
}

func TestInlineRefs(t *testing.T) {
	dir := writeFiles(t, map[string]string{"schemas/item.json": `{"type": "object", "required": ["id"]}`})
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "array", "items": map[string]any{"$ref": "schemas/item.json"}}
	s, err := c.InlineAt(dir, "dag.yaml nodes.a", schema)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(parse(t, `[{"id": 1}, {}]`), "en")
	want := []Violation{{Pointer: "/1/id", Keyword: "/items/$ref/required", Message: "field '[1].id' is required"}}
	if !equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if s.Location() != "dag.yaml nodes.a" {
		t.Errorf("Location() = %q", s.Location())
	}

	_, err = c.Inline("dag.yaml nodes.b", schema)
	var se *SchemaError
	if !errors.As(err, &se) || se.Pointer != "/items/$ref" || !strings.Contains(err.Error(), "no base directory") {
		t.Errorf("Inline with a relative file $ref: err = %v, want a SchemaError about the base directory", err)
	}
}

func TestEffective(t *testing.T) {
	c, err := NewCompiler(Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	declared := inline(t, c, `{"required": ["data"], "properties": {"data": {"required": ["score"], "properties": {"score": {"type": "number", "maximum": 1.0}}}}}`)
	eff, err := c.Effective(c.Standard(), nil, declared)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		value string
		want  []Violation
	}{
		{`{"status": "pass", "summary": "ok", "data": {"score": 0.5}}`, nil},
		{`{"summary": "ok", "data": {"score": 0.5}}`, []Violation{
			{Pointer: "/status", Keyword: "/allOf/0/required", Message: "missing required field: status"},
		}},
		{`{"status": "pass", "summary": "ok", "data": {"score": 2}}`, []Violation{
			{Pointer: "/data/score", Keyword: "/allOf/1/properties/data/properties/score/maximum", Value: "2", Message: "field 'data.score' must be ≤ 1.0"},
		}},
		// Both parts require an object: said once.
		{`"text"`, []Violation{
			{Pointer: "", Keyword: "/allOf/0/type", Value: `"text"`, Message: "the output must be an object, got string"},
		}},
	}
	// Parts of another Compiler (a contract file from a FileCache) combine as an allOf too,
	// validated part by part, with the same violations.
	other, err := NewCompiler(Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	mixed, err := other.Effective(other.Standard(), nil, declared)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		for name, e := range map[string]*Schema{"one compiler": eff, "two compilers": mixed} {
			got := e.Validate(parse(t, tt.value), "en")
			if !equal(got, tt.want) {
				t.Errorf("%s, %s:\n got %+v\nwant %+v", name, tt.value, got, tt.want)
			}
		}
	}
	if _, err := c.Effective(mixed, declared); err == nil || !strings.Contains(err.Error(), "is itself effective over several compilers") {
		t.Errorf("Effective of an effective schema of two compilers: err = %v", err)
	}

	if one, err := c.Effective(nil, declared); err != nil || one != declared {
		t.Errorf("Effective(nil, declared) = %v, %v; want declared itself", one, err)
	}
	if _, err := c.Effective(nil); err == nil {
		t.Error("Effective(nil): want an error")
	}
	src, ok := eff.Source().(map[string]any)
	if all, _ := src["allOf"].([]any); !ok || len(all) != 2 {
		t.Errorf("Source() = %v, want allOf of both parts", eff.Source())
	}
}

func TestFormatAsserted(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"properties": {"at": {"type": "string", "format": "date-time"}}}`)
	if got := s.Validate(parse(t, `{"at": "2024-05-01T10:00:00Z"}`), "en"); got != nil {
		t.Errorf("valid date-time: %+v", got)
	}
	got := s.Validate(parse(t, `{"at": "2024-05-01 10:00"}`), "en")
	if len(got) != 1 || got[0].Keyword != "/properties/at/format" {
		t.Errorf("invalid date-time: %+v, want a format violation", got)
	}
}

func TestNormalize(t *testing.T) {
	// What yaml.v3 hands over for: {type: object, properties: {n: {maximum: 1.5, minimum: 0}},
	// maxProperties: uint64, 200: {}} — and the schema behaves as its JSON twin.
	yamlish := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n":    map[string]any{"maximum": 1.5, "minimum": 0},
			"tags": map[any]any{"maxItems": int64(2), 200: true},
		},
		"maxProperties": uint64(3),
		"required":      []string{"n"},
	}
	n, err := Normalize(yamlish)
	if err != nil {
		t.Fatal(err)
	}
	want := parse(t, `{"type": "object", "properties": {"n": {"maximum": 1.5, "minimum": 0}, "tags": {"maxItems": 2, "200": true}}, "maxProperties": 3, "required": ["n"]}`)
	if Excerpt(n) != Excerpt(want) {
		t.Errorf("Normalize = %s, want %s", Excerpt(n), Excerpt(want))
	}
	if _, ok := yamlish["properties"].(map[string]any)["n"].(map[string]any)["maximum"].(float64); !ok {
		t.Error("Normalize changed its argument")
	}
	for _, bad := range []any{map[string]any{"a": []any{1, struct{}{}}}, map[string]any{"x": mathNaN()}, map[any]any{[2]int{}: 1}} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%v): want an error", bad)
		}
	}
	if _, err := Normalize(map[string]any{"a": []any{1, struct{}{}}}); err == nil || !strings.Contains(err.Error(), `"/a/1"`) {
		t.Errorf("Normalize error = %v, want it to name /a/1", err)
	}
}

// TestCompilerRoot checks that a compiler with a root reads schema files and $refs under it
// only, symlinks resolved.
func TestCompilerRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	write := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "in.json"), `{"type": "integer"}`)
	write(filepath.Join(base, "out.json"), `{"const": "secret"}`)
	if err := os.Symlink(filepath.Join(base, "out.json"), filepath.Join(root, "link.json")); err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.File(filepath.Join(root, "in.json")); err != nil {
		t.Errorf("a file under the root: %v", err)
	}
	for _, name := range []string{filepath.Join(base, "out.json"), filepath.Join(root, "link.json")} {
		if _, err := c.File(name); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("%s: err = %v, want ErrOutsideRoot", name, err)
		}
		ref := map[string]any{"$ref": "file://" + filepath.ToSlash(name)}
		if _, err := c.Inline("ref", ref); !errors.Is(err, ErrOutsideRoot) || strings.Contains(err.Error(), "secret") {
			t.Errorf("$ref %s: err = %v, want ErrOutsideRoot", name, err)
		}
	}
}
