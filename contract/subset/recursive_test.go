package subset

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// Vendored schemas that refer to each other recursively, through a catalog, are decided: a
// file loaded by its path that another file (or itself) refers to by its $id, and draft-04's
// id, resolve for the checker as they do for validation, and the cycle closes coinductively
// on the pairs of places compared.
func TestSubsetRecursiveCatalog(t *testing.T) {
	const (
		// A user belongs to a team whose lead and members are users: two files, one cycle.
		user = `{"$schema": %q, %q: "https://example.com/%s/user.json", "type": "object", "required": ["login"],
			"properties": {"login": {"type": "string"}, "team": {"oneOf": [{"$ref": "team.json"}, {"type": "null"}]}}}`
		team = `{"$schema": %q, %q: "https://example.com/%s/team.json", "type": "object", %s
			"properties": {"lead": {"oneOf": [{"$ref": "user.json"}, {"type": "null"}]}, "members": {"type": "array", "items": {"$ref": "user.json"}}}}`
		d7 = "http://json-schema.org/draft-07/schema#"
		d4 = "http://json-schema.org/draft-04/schema#"
	)
	files := map[string]string{
		"v7/user.json":   fmt.Sprintf(user, d7, "$id", "v7"),
		"v7/team.json":   fmt.Sprintf(team, d7, "$id", "v7", ""),
		"v4/user.json":   fmt.Sprintf(user, d4, "id", "v4"),
		"v4/team.json":   fmt.Sprintf(team, d4, "id", "v4", ""),
		"name/user.json": fmt.Sprintf(user, d4, "id", "name"),
		"name/team.json": fmt.Sprintf(team, d4, "id", "name", `"required": ["name"],`),
		// A list whose next is itself, by its $id's URL; and the same list written as an allOf
		// over a second file that refers back.
		"list/a.json":  `{"$id": "https://example.com/list/a.json", "type": "object", "properties": {"x": {"type": "string"}, "next": {"$ref": "a.json"}}}`,
		"list2/a.json": `{"$id": "https://example.com/list2/a.json", "allOf": [{"$ref": "b.json"}], "properties": {"x": {"type": "string"}}}`,
		"list2/b.json": `{"$id": "https://example.com/list2/b.json", "type": "object", "properties": {"next": {"$ref": "a.json"}}}`,
		"int/a.json":   `{"$id": "https://example.com/int/a.json", "type": "object", "properties": {"x": {"type": "integer"}, "next": {"$ref": "a.json"}}}`,
	}
	// Properties are compared in name order, so an incompatibility is found down "next"
	// (or "lead") before the one at the top: the witness is that deeper value.
	cases := []struct {
		name    string
		a, b    string
		verdict Verdict
		rule    string
		path    string
	}{
		{"a list that is its own next, by its $id", "list/a.json", "list2/a.json", Compatible, "", ""},
		{"the list through two files, by their $ids", "list2/a.json", "list/a.json", Compatible, "", ""},
		{"a string where the other list takes an integer", "list2/a.json", "int/a.json", Incompatible, RuleType, "/next/next/x"},
		{"draft-04 ids across files", "v4/user.json", "v7/user.json", Compatible, "", ""},
		{"draft-07 into draft-04", "v7/user.json", "v4/user.json", Compatible, "", ""},
		{"draft-04 team without the name the other requires", "v4/user.json", "name/user.json", Incompatible, RuleOptional, "/team/lead/team/name"},
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	var catalog []contract.CatalogEntry
	for _, d := range []string{"v7", "v4", "name", "list", "list2", "int"} {
		catalog = append(catalog, contract.CatalogEntry{Dir: filepath.Join(dir, d)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := contract.NewCompiler(contract.Options{Catalog: catalog})
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
				checkWitness(t, a, b, r)
			}
		})
	}
}
