package contract

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// octokit returns the folder of GitHub's published webhook schemas and example payloads (the
// npm packages @octokit/webhooks-schemas and @octokit/webhooks-examples that scripts/test.sh
// installs with scripts/schemas.sh and names in SEAM_TEST_SCHEMAS), or skips the test.
func octokit(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("SEAM_TEST_SCHEMAS")
	if dir == "" {
		tb.Skip("SEAM_TEST_SCHEMAS is not set: scripts/test.sh installs GitHub's webhook schemas with scripts/schemas.sh and sets it")
	}
	dir = filepath.Join(dir, "@octokit")
	if _, err := os.Stat(filepath.Join(dir, "webhooks-schemas", "schema.json")); err != nil {
		tb.Skipf("GitHub's webhook schemas are not installed in %s ($SEAM_TEST_SCHEMAS): %v", dir, err)
	}
	return dir
}

// octokitExample is one event of @octokit/webhooks-examples: its payloads.
type octokitExample struct {
	Name     string            `json:"name"`
	Examples []json.RawMessage `json:"examples"`
}

// octokitRefused are the example payloads (definition, index among the event's examples) that
// GitHub's own schema refuses, by a second validator (ajv 8.17.1 with ajv-formats 3.0.1): old
// examples that lack members added to the schema since, or whose dates are not RFC 3339's.
var octokitRefused = map[string]bool{
	"branch_protection_rule$edited 0":         true,
	"check_run$created 0":                     true,
	"check_run$rerequested 7":                 true,
	"check_run$rerequested 8":                 true,
	"check_suite$completed 0":                 true,
	"code_scanning_alert$reopened 0":          true,
	"commit_comment$created 0":                true,
	"create$event 0":                          true,
	"delete$event 0":                          true,
	"dependabot_alert$fixed 0":                true,
	"deploy_key$created 0":                    true,
	"deployment$created 0":                    true,
	"deployment_status$created 0":             true,
	"discussion$created 0":                    true,
	"discussion_comment$created 0":            true,
	"fork$event 0":                            true,
	"gollum$event 0":                          true,
	"installation$deleted 0":                  true,
	"installation_repositories$added 0":       true,
	"issue_comment$created 0":                 true,
	"issues$edited 0":                         true,
	"label$deleted 0":                         true,
	"member$added 0":                          true,
	"merge_group$checks_requested 0":          true,
	"meta$deleted 0":                          true,
	"milestone$created 0":                     true,
	"package$published 0":                     true,
	"page_build$event 0":                      true,
	"ping$event 0":                            true,
	"project$created 0":                       true,
	"project_card$created 0":                  true,
	"project_column$created 0":                true,
	"public$event 0":                          true,
	"pull_request$opened 0":                   true,
	"pull_request_review$submitted 0":         true,
	"pull_request_review_comment$created 0":   true,
	"pull_request_review_thread$resolved 0":   true,
	"push$event 0":                            true,
	"release$published 0":                     true,
	"repository_dispatch$event 0":             true,
	"repository$publicized 0":                 true,
	"repository_import$event 0":               true,
	"repository_vulnerability_alert$create 0": true,
	"security_advisory$published 0":           true,
	"sponsorship$pending_tier_change 1":       true,
	"star$created 0":                          true,
	"status$event 0":                          true,
	"team$added_to_repository 0":              true,
	"team_add$event 0":                        true,
	"watch$started 0":                         true,
	"workflow_dispatch$event 0":               true,
	"workflow_job$in_progress 0":              true,
	"workflow_run$completed 0":                true,
}

// TestOctokitExamples validates every example payload GitHub publishes against its event's
// definition in GitHub's published schema (one 630 KB draft-07 file), reached by a $ref:
// #/definitions/<event>$<action> where the schema defines that action, else
// #/definitions/<event>$event. seam accepts what the second validator accepts and refuses the
// rest.
func TestOctokitExamples(t *testing.T) {
	dir := octokit(t)
	b, err := os.ReadFile(filepath.Join(dir, "webhooks-examples", "api.github.com", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var events []octokitExample
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := filepath.Join(dir, "webhooks-schemas")
	b, err = os.ReadFile(filepath.Join(schemas, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var bundle struct{ Definitions map[string]json.RawMessage }
	if err := json.Unmarshal(b, &bundle); err != nil {
		t.Fatal(err)
	}
	compiled := map[string]*Schema{}
	total, refused := 0, 0
	for _, ev := range events {
		for i, raw := range ev.Examples {
			payload, err := ParseJSON(raw)
			if err != nil {
				t.Fatalf("%s example %d: %v", ev.Name, i, err)
			}
			def := ev.Name + "$event"
			if action, ok := payload.(map[string]any)["action"].(string); ok && bundle.Definitions[ev.Name+"$"+action] != nil {
				def = ev.Name + "$" + action
			}
			s, ok := compiled[def]
			if !ok {
				s, err = c.InlineAt(schemas, def, map[string]any{"$ref": "schema.json#/definitions/" + def})
				if err != nil {
					t.Errorf("%s: %v", def, err)
					continue
				}
				compiled[def] = s
			}
			total++
			vs := s.Validate(payload, i18n.English)
			switch want := octokitRefused[fmt.Sprintf("%s %d", def, i)]; {
			case want && len(vs) == 0:
				t.Errorf("%s example %d accepted; GitHub's schema refuses it", def, i)
			case !want && len(vs) > 0:
				t.Errorf("%s example %d refused: %v", def, i, vs)
			case want:
				refused++
			}
		}
	}
	if total == 0 || refused != len(octokitRefused) {
		t.Errorf("%d payloads, %d refused as GitHub's schema refuses them, want %d", total, refused, len(octokitRefused))
	}
	t.Logf("%d payloads of %d events through %d definitions, %d accepted", total, len(events), len(compiled), total-refused)
}

// BenchmarkCompileGitHub compiles GitHub's published webhook schema (630 KB, 344
// definitions): the whole bundle, and one definition through a $ref, each on a new Compiler.
//
//	SEAM_TEST_SCHEMAS=$(scripts/schemas.sh install) go test -run '^$' -bench CompileGitHub -benchmem ./contract/
func BenchmarkCompileGitHub(b *testing.B) {
	schemas := filepath.Join(octokit(b), "webhooks-schemas")
	for _, bc := range []struct{ name, ref string }{
		{"bundle", "schema.json"},
		{"push", "schema.json#/definitions/push$event"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := NewCompiler(Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.InlineAt(schemas, bc.name, map[string]any{"$ref": bc.ref}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOctokitVendored keeps the worked example honest (dags/github-pull-request.yaml): its
// vendored copy of GitHub's schema is the published one, byte for byte, and every closed
// pull_request payload GitHub publishes passes the example's body contract, a draft-07 file
// that $refs the copy.
func TestOctokitVendored(t *testing.T) {
	dir := octokit(t)
	published, err := os.ReadFile(filepath.Join(dir, "webhooks-schemas", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	vendored, err := os.ReadFile("../dags/vendor/octokit-webhooks-schemas/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(vendored) != string(published) {
		t.Error("dags/vendor/octokit-webhooks-schemas/schema.json differs from the installed @octokit/webhooks-schemas: copy it again")
	}
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.File("../dags/github/pull-request-closed.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "webhooks-examples", "api.github.com", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var events []octokitExample
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatal(err)
	}
	closed := 0
	for _, ev := range events {
		if ev.Name != "pull_request" {
			continue
		}
		for i, raw := range ev.Examples {
			payload, err := ParseJSON(raw)
			if err != nil {
				t.Fatalf("example %d: %v", i, err)
			}
			if payload.(map[string]any)["action"] != "closed" {
				continue
			}
			closed++
			if vs := s.Validate(payload, i18n.English); len(vs) > 0 {
				t.Errorf("pull_request example %d (closed) refused: %v", i, vs)
			}
		}
	}
	if closed == 0 {
		t.Error("no closed pull_request among GitHub's examples")
	}
}

// octokitLayout is the folder of octokit/webhooks' payload-schemas in their source layout
// (vendored unchanged, testdata/octokit-webhooks/README): one file per event and action,
// common/ for what they share, named by relative $ids that resolve against this folder.
const octokitLayout = "testdata/octokit-webhooks/payload-schemas/api.github.com"

// octokitLayoutFile is the file of the layout that holds definition def ("push$event",
// "pull_request$closed") of the bundle.
func octokitLayoutFile(def string) string {
	event, action, _ := strings.Cut(def, "$")
	return filepath.Join(octokitLayout, event, action+".schema.json")
}

// TestOctokitLayoutCompiles: every file of the source layout compiles, through a catalog of
// its folder, unchanged (its relative $refs need the catalog: see TestCatalogRelativeIDs).
func TestOctokitLayoutCompiles(t *testing.T) {
	c, err := NewCompiler(Options{Catalog: []CatalogEntry{{Dir: octokitLayout}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(octokitLayout, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if _, err := c.File(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 291 {
		t.Errorf("%d files in %s, want the 291 vendored", n, octokitLayout)
	}
}

// TestOctokitLayout validates every example payload GitHub publishes through the source
// layout, by its event's file for its action (<event>/<action>.schema.json, else
// <event>/event.schema.json): it accepts every payload GitHub's published bundle accepts
// (all but octokitRefused) and refuses the rest, as the bundle does.
func TestOctokitLayout(t *testing.T) {
	dir := octokit(t)
	b, err := os.ReadFile(filepath.Join(dir, "webhooks-examples", "api.github.com", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var events []octokitExample
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler(Options{Catalog: []CatalogEntry{{Dir: octokitLayout}}})
	if err != nil {
		t.Fatal(err)
	}
	total, refused := 0, 0
	for _, ev := range events {
		for i, raw := range ev.Examples {
			payload, err := ParseJSON(raw)
			if err != nil {
				t.Fatalf("%s example %d: %v", ev.Name, i, err)
			}
			def := ev.Name + "$event"
			if action, ok := payload.(map[string]any)["action"].(string); ok {
				if _, err := os.Stat(octokitLayoutFile(ev.Name + "$" + action)); err == nil {
					def = ev.Name + "$" + action
				}
			}
			s, err := c.File(octokitLayoutFile(def))
			if err != nil {
				t.Errorf("%s: %v", def, err)
				continue
			}
			total++
			vs := s.Validate(payload, i18n.English)
			switch want := octokitRefused[fmt.Sprintf("%s %d", def, i)]; {
			case want && len(vs) == 0:
				t.Errorf("%s example %d accepted through %s; GitHub's bundle refuses it", def, i, octokitLayoutFile(def))
			case !want && len(vs) > 0:
				t.Errorf("%s example %d refused through %s: %v", def, i, octokitLayoutFile(def), vs)
			case want:
				refused++
			}
		}
	}
	if total == 0 || refused != len(octokitRefused) {
		t.Errorf("%d payloads, %d refused as GitHub's bundle refuses them, want %d", total, refused, len(octokitRefused))
	}
	t.Logf("%d payloads through the layout, %d accepted", total, total-refused)
}
