package subset

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// The draft corpus (testdata/drafts.json, issue 43): the same pairs written in every draft
// the validator reads, each in its own syntax (definitions or $defs, dependencies or
// dependentRequired, items as a list or prefixItems, …), checked with both sides in one
// draft and with the sides in two different drafts. Every pair must be decided, and rightly.
//
// The first run, before the checker read any draft but 2020-12 (it answered unknown for any
// other $schema), decided with both sides in one draft: draft-04 0 of 96, draft-06 0 of 96,
// draft-07 0 of 96, 2019-09 0 of 96, 2020-12 87 of 96 (90.6 %: embedded resources, a
// member-less object against propertyNames); across drafts 0 of 1,920; none wrong. Now
// every pair is decided in every pairing of drafts.

// draftURIs are the $schema each draft's schemas of the corpus declare.
func draftURIs() map[string]string {
	return map[string]string{
		"4":    "http://json-schema.org/draft-04/schema#",
		"6":    "http://json-schema.org/draft-06/schema#",
		"7":    "http://json-schema.org/draft-07/schema#",
		"2019": "https://json-schema.org/draft/2019-09/schema",
		"2020": "https://json-schema.org/draft/2020-12/schema",
	}
}

type draftFamily struct {
	Name    string                       `json:"name"`
	Schemas []map[string]json.RawMessage `json:"schemas"`
	Want    []string                     `json:"want"`
}

// draftSchemas compiles every schema of every family in every draft: out[family][i][draft].
func draftSchemas(tb testing.TB) ([]draftFamily, [][]map[string]*contract.Schema) {
	tb.Helper()
	raw, err := os.ReadFile("testdata/drafts.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Families []draftFamily `json:"families"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatalf("read drafts.json: %v", err)
	}
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	uris := draftURIs()
	out := make([][]map[string]*contract.Schema, len(doc.Families))
	for fi, f := range doc.Families {
		if len(f.Want) != len(f.Schemas) {
			tb.Fatalf("%s: %d rows of answers for %d schemas", f.Name, len(f.Want), len(f.Schemas))
		}
		for i, forms := range f.Schemas {
			byDraft := map[string]*contract.Schema{}
			for drafts, src := range forms {
				for _, d := range strings.Split(drafts, ",") {
					if _, ok := uris[d]; !ok {
						tb.Fatalf("%s/%d: draft %q", f.Name, i, d)
					}
					if byDraft[d] != nil {
						tb.Fatalf("%s/%d: draft %s written twice", f.Name, i, d)
					}
					v, err := contract.ParseJSON(src)
					if err != nil {
						tb.Fatalf("%s/%d: %v", f.Name, i, err)
					}
					v.(map[string]any)["$schema"] = uris[d]
					s, err := c.Inline(fmt.Sprintf("%s/%d@%s", f.Name, i, d), v)
					if err != nil {
						tb.Fatalf("%s/%d@%s: %v", f.Name, i, d, err)
					}
					byDraft[d] = s
				}
			}
			if len(byDraft) != len(uris) {
				tb.Fatalf("%s/%d: written in %v, want every draft", f.Name, i, slices.Sorted(maps.Keys(byDraft)))
			}
			out[fi] = append(out[fi], byDraft)
		}
	}
	return doc.Families, out
}

// TestDraftCorpus checks every pair of the draft corpus in every pair of drafts: none may be
// wrong (a witness verifies under both schemas by checkCorpus), and every one is decided.
func TestDraftCorpus(t *testing.T) {
	families, schemas := draftSchemas(t)
	drafts := slices.Sorted(maps.Keys(draftURIs()))
	var pairs []hardPair
	var sides [][2]string
	for fi, f := range families {
		for i := range schemas[fi] {
			if len(f.Want[i]) != len(schemas[fi]) {
				t.Fatalf("%s: row %d has %d answers for %d schemas", f.Name, i, len(f.Want[i]), len(schemas[fi]))
			}
			for j := range schemas[fi] {
				if i == j {
					continue
				}
				want := Incompatible
				if f.Want[i][j] == 'C' {
					want = Compatible
				}
				for _, da := range drafts {
					for _, db := range drafts {
						pairs = append(pairs, hardPair{
							name: fmt.Sprintf("%s/%d@%s⊆%d@%s", f.Name, i, da, j, db),
							a:    schemas[fi][i][da], b: schemas[fi][j][db], want: want,
						})
						sides = append(sides, [2]string{da, db})
					}
				}
			}
		}
	}
	// The pairs with both sides in one draft go through checkCorpus (witnesses verified,
	// compatible answers tried on samples of the producer); those across drafts, four times
	// as many, are held to the corpus's answer and their witnesses verified, which keeps the
	// test's time down on a shared machine.
	var same []hardPair
	type tally struct{ decided, wrong, all int }
	per := map[string]*tally{}
	for i, p := range pairs {
		key := "across drafts"
		if sides[i][0] == sides[i][1] {
			key = "draft " + sides[i][0]
			same = append(same, p)
		}
		if per[key] == nil {
			per[key] = &tally{}
		}
		r := checkSettled(p.a, p.b)
		per[key].all++
		switch {
		case r.Verdict == p.want:
			per[key].decided++
		case r.Verdict != Unknown:
			per[key].wrong++
			t.Errorf("%s: %v, want %v (%s)", p.name, r.Verdict, p.want, r.Reason)
		default:
			t.Errorf("%s: unknown (%s)", p.name, r.Reason)
		}
		if r.Verdict == Incompatible && (len(p.a.Validate(r.Witness, "en")) > 0 || len(p.b.Validate(r.Witness, "en")) == 0) {
			t.Errorf("%s: witness %s does not verify", p.name, contract.Excerpt(r.Witness))
		}
	}
	checkCorpus(t, same, 1000)
	for _, k := range slices.Sorted(maps.Keys(per)) {
		x := per[k]
		t.Logf("%s: decided %d of %d (%.1f %%), %d wrong", k, x.decided, x.all, 100*float64(x.decided)/float64(x.all), x.wrong)
	}
}

// TestDraftEdges: where drafts read one schema differently, the checker reads it as the
// validator does, or answers unknown; never wrong.
func TestDraftEdges(t *testing.T) {
	const (
		d4    = `"$schema":"http://json-schema.org/draft-04/schema#",`
		d7    = `"$schema":"http://json-schema.org/draft-07/schema#",`
		d2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	)
	cases := []struct {
		name, a, b string
		annotate   bool // compile under contract.Options.AnnotateFormat
		want       Verdict
		reason     string // in an unknown's reason
	}{
		{"draft-07 $id beside $ref is no resource", `{` + d7 + `"definitions":{"s":{"type":"string"}},"properties":{"x":{"$id":"http://example.com/x","$ref":"#/definitions/s","definitions":{"s":{"type":"integer"}}}}}`,
			`{"properties":{"x":{"type":"string"}}}`, false, Compatible, ""},
		{"draft-04 $id is no resource", `{` + d4 + `"definitions":{"s":{"type":"string"}},"properties":{"x":{"$id":"http://example.com/x","definitions":{"s":{"type":"integer"}},"allOf":[{"$ref":"#/definitions/s"}]}}}`,
			`{"properties":{"x":{"type":"string"}}}`, false, Compatible, ""},
		{"draft-04 id is a resource", `{` + d4 + `"definitions":{"s":{"type":"string"}},"properties":{"x":{"id":"http://example.com/x","definitions":{"s":{"type":"integer"}},"allOf":[{"$ref":"#/definitions/s"}]}}}`,
			`{"properties":{"x":{"type":"string"}}}`, false, Incompatible, ""},
		{"draft-07 format asserted though annotated", `{` + d7 + `"type":"string","format":"date"}`, `{` + d7 + `"type":"string","maxLength":10}`, true, Compatible, ""},
		{"draft-07 consumer format asserted though annotated", `{"type":"string"}`, `{` + d7 + `"type":"string","format":"date"}`, true, Incompatible, ""},
		{"draft-04 not of an exclusive bound", `{` + d4 + `"type":"number","not":{"minimum":5,"exclusiveMinimum":true}}`, `{"type":"number","exclusiveMaximum":5}`, false, Incompatible, ""},
		{"2019-09 recursive anchor of an outer resource", `{` + d2019 + `"$recursiveAnchor":true,"type":"object","properties":{"v":{"type":"integer"},"in":{"$ref":"#/$defs/inner"}},"$defs":{"inner":{"$id":"http://example.com/inner","$recursiveAnchor":true,"type":"object","properties":{"next":{"$recursiveRef":"#"}}}}}`,
			`{"type":"object","properties":{"in":{"properties":{"next":{"properties":{"v":{"type":"integer"}}}}}}}`, false, Unknown, "$recursiveRef"},
		{"an embedded resource's ignored $schema stays ignored when re-entered", `{"properties":{"x":{"type":"object","additionalProperties":false,"properties":{"v":{"const":1},"next":{"type":"object","additionalProperties":false,"properties":{"v":{"type":"integer"}}}}}}}`,
			`{"properties":{"x":{"$ref":"#/$defs/c"}},"$defs":{"c":{"$id":"http://example.com/c",` + d4 + `"type":"object","properties":{"v":{"const":1},"next":{"$ref":"#"}}}}}`, false, Incompatible, ""},
		{"2020-12 $recursiveRef not modelled", `{"type":"object"}`, `{"type":"object","properties":{"x":{"$recursiveRef":"#"}}}`, false, Unknown, "$recursiveRef"},
		{"2019-09 dependencies not modelled", `{"type":"object"}`, `{` + d2019 + `"dependencies":{"a":["b"]}}`, false, Unknown, "dependencies"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := contract.NewCompiler(contract.Options{AnnotateFormat: tc.annotate})
			if err != nil {
				t.Fatal(err)
			}
			a, err := c.Inline("a", mustParse(t, tc.a))
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.Inline("b", mustParse(t, tc.b))
			if err != nil {
				t.Fatal(err)
			}
			r := Check(a, b)
			if r.Verdict != tc.want || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("%v (%s), want %v naming %q", r.Verdict, r.Reason, tc.want, tc.reason)
			}
			if r.Verdict == Incompatible && (len(a.Validate(r.Witness, "en")) > 0 || len(b.Validate(r.Witness, "en")) == 0) {
				t.Errorf("witness %s does not verify", contract.Excerpt(r.Witness))
			}
		})
	}
	// A source a program builds may name any $schema: nothing of it is read, and the
	// compiler refuses it, so no counterexample verifies.
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Inline("b", mustParse(t, `{"type":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]any{"$schema": "http://example.com/mine", "type": "integer"}
	r := CheckSource(src, b, func() (*contract.Schema, error) { return c.Inline("a", src) })
	if r.Verdict != Unknown || !strings.Contains(r.Reason, "names no draft seam reads") {
		t.Errorf("unknown $schema: %v (%s)", r.Verdict, r.Reason)
	}
}

// TestIgnoredKeywords: what each draft ignores is found at its pointer, in one order.
func TestIgnoredKeywords(t *testing.T) {
	const (
		d4 = `"$schema":"http://json-schema.org/draft-04/schema#",`
		d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	)
	cases := []struct {
		name, schema string
		want         []string // kind pointer keywords draft since
	}{
		{"const in draft-04", `{` + d4 + `"properties":{"x":{"const":1,"$id":"http://example.com/x"}}}`,
			[]string{"1 /properties/x/$id [$id] draft-04 http://json-schema.org/draft-06/schema#",
				"1 /properties/x/const [const] draft-04 http://json-schema.org/draft-06/schema#"}},
		{"$defs in draft-07, walked", `{` + d7 + `"$defs":{"a":{"if":{},"then":{"prefixItems":[]}}},"$ref":"#/$defs/a"}`,
			[]string{"1 /$defs [$defs] draft-07 https://json-schema.org/draft/2019-09/schema",
				"1 /$defs/a/then/prefixItems [prefixItems] draft-07 https://json-schema.org/draft/2020-12/schema"}},
		{"beside $ref", `{` + d7 + `"definitions":{"s":{}},"properties":{"v":{"$ref":"#/definitions/s","type":"string","maxLength":3,"description":"d","x-vendor":1}}}`,
			[]string{"2 /properties/v [maxLength type] draft-07 "}},
		{"prefixItems in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","prefixItems":[{}]}`,
			[]string{"1 /prefixItems [prefixItems] 2019-09 https://json-schema.org/draft/2020-12/schema"}},
		{"additionalItems in 2020-12", `{"items":{},"additionalItems":false}`,
			[]string{"1 /additionalItems [additionalItems] 2020-12 "}},
		{"$schema below the root", `{"properties":{"a":{` + d7 + `"type":"string"},"b":{"id":"http://example.com/b",` + d4 + `"const":1},"c":{"$id":"http://example.com/c",` + d4 + `"const":1}}}`,
			[]string{"3 /properties/a/$schema [$schema] 2020-12 ", "1 /properties/b/const [const] draft-04 http://json-schema.org/draft-06/schema#",
				"3 /properties/c/$schema [$schema] 2020-12 "}},
		{"nothing ignored", `{` + d7 + `"definitions":{"s":{"const":1}},"properties":{"v":{"$ref":"#/definitions/s","description":"d"}}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ig := range IgnoredKeywords(mustParse(t, tc.schema)) {
				got = append(got, fmt.Sprintf("%d %s %v %s %s", ig.Kind, ig.Pointer, ig.Keywords, ig.Draft, ig.Since))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n %s\nwant\n %s", strings.Join(got, "\n "), strings.Join(tc.want, "\n "))
			}
		})
	}
}
