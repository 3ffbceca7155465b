package contract

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestFileCache: Compilers that share a FileCache compile a schema file once while it and
// the files it $refs are unchanged, read them all again each time (so that a load records
// them), and compile afresh when any changed.
func TestFileCache(t *testing.T) {
	const (
		common = `{"$defs": {"n": {"type": "integer"}}}`
		out    = `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["n"], "properties": {"n": {"$ref": "common.json#/$defs/n"}}}}}`
	)
	value := `{"status": "pass", "summary": "s", "data": {"n": "7"}}`
	tests := []struct {
		name   string
		change map[string]string // files written between the first and the second compile
		same   bool              // the second compile is the first's Schema
		want   []Violation       // of value, by the second compile's effective schema
	}{
		{name: "unchanged", same: true,
			want: []Violation{{Pointer: "/data/n", Keyword: "/allOf/1/properties/data/properties/n/$ref/type", Value: `"7"`, Message: "field 'data.n' must be an integer, got string"}}},
		{name: "the file changed", change: map[string]string{"out.json": `{"type": "object", "properties": {"data": {"$ref": "common.json"}}}`}},
		{name: "a file it refers to changed", change: map[string]string{"common.json": `{"$defs": {"n": {"type": "string"}}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(files map[string]string) {
				for name, body := range files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(map[string]string{"common.json": common, "out.json": out})
			cache := &FileCache{}
			compile := func() (*Schema, *Schema, []string) {
				var read []string
				c, err := NewCompiler(Options{Standard: standard(t), Files: cache, ReadFile: func(p string) ([]byte, error) {
					read = append(read, filepath.Base(p))
					return os.ReadFile(p)
				}})
				if err != nil {
					t.Fatal(err)
				}
				s, err := c.File(filepath.Join(dir, "out.json"))
				if err != nil {
					t.Fatal(err)
				}
				eff, err := c.Effective(c.Standard(), s)
				if err != nil {
					t.Fatal(err)
				}
				return s, eff, read
			}
			first, _, read1 := compile()
			write(tt.change)
			second, eff, read2 := compile()
			if got := eff.Validate(parse(t, value), "en"); !equal(got, tt.want) {
				t.Errorf("effective schema of the second compile:\n got %+v\nwant %+v", got, tt.want)
			}
			if (first == second) != tt.same {
				t.Errorf("second compile is the first's Schema: %t, want %t", first == second, tt.same)
			}
			// A changed file is read to compare, then to compile: the same files either way.
			read1, read2 = slices.Compact(slices.Sorted(slices.Values(read1))), slices.Compact(slices.Sorted(slices.Values(read2)))
			if !slices.Equal(read1, []string{"common.json", "out.json"}) || !slices.Equal(read1, read2) {
				t.Errorf("files read: %v, then %v; want common.json and out.json each time", read1, read2)
			}
			c, err := NewCompiler(Options{Standard: standard(t)})
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := c.File(filepath.Join(dir, "out.json"))
			if err != nil {
				t.Fatal(err)
			}
			// What the cache gives validates as a compile of today's files does.
			v := parse(t, value)
			if got, want := second.Validate(v, "en"), fresh.Validate(v, "en"); !equal(got, want) {
				t.Errorf("cached schema says %+v, a fresh compile %+v", got, want)
			}
		})
	}
}

// TestFileCacheConcurrent: loads on several goroutines share one FileCache; each gets a
// schema that validates as the file says.
func TestFileCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte(`{"type": "object", "required": ["n"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &FileCache{}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			c, err := NewCompiler(Options{Files: cache})
			if err != nil {
				errs <- err.Error()
				return
			}
			s, err := c.File(path)
			if err != nil {
				errs <- err.Error()
				return
			}
			if vs := s.Validate(map[string]any{}, "en"); len(vs) != 1 || vs[0].Message != "missing required field: n" {
				errs <- "violations " + vs[0].Message
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
