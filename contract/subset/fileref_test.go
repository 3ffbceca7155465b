package subset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// writeFiles writes each name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A contract split across files is decided through its $refs, both ways, on either side.
func TestSubsetFileRefs(t *testing.T) {
	const (
		item    = `{"$defs":{"item":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}}}`
		itemInt = `{"$defs":{"item":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}}}`
		// Two files that refer to each other: a list of nodes whose children are lists again.
		cycleA = `{"$defs":{"list":{"type":"array","items":{"$ref":"cycle-b.json#/$defs/node"}}}}`
		cycleB = `{"$defs":{"node":{"type":"object","required":["v"],"properties":{"v":{"type":"%s"},"kids":{"$ref":"cycle-a.json#/$defs/list"}}}}}`
	)
	cases := []struct {
		name    string
		files   map[string]string
		a, b    string // the files compared
		verdict Verdict
		rule    string
		path    string
	}{
		{
			name:  "producer's item in a shared file fits",
			files: map[string]string{"common.json": item, "out.json": `{"type":"array","items":{"$ref":"common.json#/$defs/item"}}`, "in.json": `{"type":"array","items":{"type":"object","required":["id"],"properties":{"id":{"type":"string","minLength":0}}}}`},
			a:     "out.json", b: "in.json", verdict: Compatible,
		},
		{
			name:  "producer's item in a shared file does not fit",
			files: map[string]string{"common.json": item, "out.json": `{"type":"array","items":{"$ref":"common.json#/$defs/item"}}`, "in.json": `{"type":"array","items":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}}`},
			a:     "out.json", b: "in.json", verdict: Incompatible, rule: RuleType, path: "/0/id",
		},
		{
			name:  "consumer's item in a shared file, a folder away",
			files: map[string]string{"schemas/common.json": itemInt, "out.json": `{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`, "in/in.json": `{"$ref":"../schemas/common.json#/$defs/item"}`},
			a:     "out.json", b: "in/in.json", verdict: Incompatible, rule: RuleType, path: "/id",
		},
		{
			name:  "consumer's item in a shared file accepts",
			files: map[string]string{"schemas/common.json": item, "out.json": `{"type":"object","required":["id","x"],"properties":{"id":{"type":"string","maxLength":4}}}`, "in/in.json": `{"$ref":"../schemas/common.json#/$defs/item"}`},
			a:     "out.json", b: "in/in.json", verdict: Compatible,
		},
		{
			name: "the same pointer in two files is two schemas",
			files: map[string]string{"one.json": item, "two.json": itemInt,
				"out.json": `{"$ref":"one.json#/$defs/item"}`, "in.json": `{"$ref":"two.json#/$defs/item"}`},
			a: "out.json", b: "in.json", verdict: Incompatible, rule: RuleType, path: "/id",
		},
		{
			name: "a whole file, no fragment",
			files: map[string]string{"id.json": `{"type":"string","minLength":1}`,
				"out.json": `{"type":"object","required":["id"],"properties":{"id":{"$ref":"id.json"}}}`, "in.json": `{"type":"object","required":["id"],"properties":{"id":{"type":"string","minLength":2}}}`},
			a: "out.json", b: "in.json", verdict: Incompatible, rule: RuleConstraint, path: "/id",
		},
		{
			name: "a cycle between two files, proved",
			files: map[string]string{"cycle-a.json": cycleA, "cycle-b.json": fmt.Sprintf(cycleB, "string"),
				"p/cycle-a.json": cycleA, "p/cycle-b.json": fmt.Sprintf(cycleB, "string"),
				"out.json": `{"$ref":"cycle-a.json#/$defs/list"}`, "in.json": `{"$ref":"p/cycle-a.json#/$defs/list"}`},
			a: "out.json", b: "in.json", verdict: Compatible,
		},
		{
			name: "a cycle between two files, broken deep down",
			files: map[string]string{"cycle-a.json": cycleA, "cycle-b.json": fmt.Sprintf(cycleB, "string"),
				"p/cycle-a.json": cycleA, "p/cycle-b.json": fmt.Sprintf(cycleB, "integer"),
				"out.json": `{"$ref":"cycle-a.json#/$defs/list"}`, "in.json": `{"$ref":"p/cycle-a.json#/$defs/list"}`},
			a: "out.json", b: "in.json", verdict: Incompatible, rule: RuleType, path: "/0/v",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			c, err := contract.NewCompiler(contract.Options{Root: dir})
			if err != nil {
				t.Fatal(err)
			}
			a, err := c.File(filepath.Join(dir, tc.a))
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.File(filepath.Join(dir, tc.b))
			if err != nil {
				t.Fatal(err)
			}
			r := Check(a, b)
			t.Logf("%v %s %q: %s (witness %s)", r.Verdict, r.Rule, r.Path, r.Reason, contract.Excerpt(r.Witness))
			if r.Verdict != tc.verdict || r.Rule != tc.rule || r.Path != tc.path {
				t.Fatalf("got %v %q at %q, want %v %q at %q (%s)", r.Verdict, r.Rule, r.Path, tc.verdict, tc.rule, tc.path, r.Reason)
			}
			if r.Verdict == Incompatible {
				// Valid under the producer's file, its shared file included.
				checkWitness(t, a, b, r)
			}
		})
	}
}

// What the compiler did not load is never read: a file outside the root is refused when the
// schema compiles, a producer value written by a program cannot reach a file, and a chain of
// files longer than maxRefHops is not followed to its end.
func TestSubsetFileRefsBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"outside.json":   `{"type":"string"}`,
		"root/out.json":  `{"$ref":"../outside.json"}`,
		"root/str.json":  `{"type":"string"}`,
		"root/int.json":  `{"type":"integer"}`,
		"root/deep.json": `{"$ref":"chain/0.json"}`,
	}
	for i := range maxRefHops + 2 {
		files[fmt.Sprintf("root/chain/%d.json", i)] = fmt.Sprintf(`{"$ref":"%d.json"}`, i+1)
	}
	files[fmt.Sprintf("root/chain/%d.json", maxRefHops+2)] = `{"type":"string"}`
	writeFiles(t, dir, files)
	root := filepath.Join(dir, "root")
	c, err := contract.NewCompiler(contract.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.File(filepath.Join(root, "out.json")); !errors.Is(err, contract.ErrOutsideRoot) || !strings.Contains(err.Error(), "outside.json is outside") {
		t.Errorf("a $ref out of the root: %v", err)
	}
	str, err := c.File(filepath.Join(root, "str.json"))
	if err != nil {
		t.Fatal(err)
	}
	integer, err := c.File(filepath.Join(root, "int.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]any{"$ref": "str.json"}
	compile := func() (*contract.Schema, error) { return c.Inline("src", src) }
	if r := CheckSource(src, str, compile); r.Verdict != Unknown {
		t.Errorf("a program's value reaching a file: %+v", r)
	}
	deep, err := c.File(filepath.Join(root, "deep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Check(str, deep); r.Verdict != Unknown || !strings.Contains(r.Reason, "$ref") {
		t.Errorf("consumer past %d hops: %+v", maxRefHops, r)
	}
	if r := Check(deep, integer); r.Verdict != Unknown {
		t.Errorf("producer past %d hops: %+v", maxRefHops, r)
	}
}
