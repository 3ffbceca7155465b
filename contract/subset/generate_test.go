package subset_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
)

func TestGenerate(t *testing.T) {
	tests := []struct {
		name, schema string
		and          string // a second schema, from another compiler, that the value must fit too
		want         string // "found", "empty" or "unknown"
		why          string // for unknown: what the reason says
		values       []string
	}{
		{name: "object with an enum member", schema: `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["bug","feature"]}}}`,
			want: "found", values: []string{`"bug"`, `"feature"`}},
		{name: "bounded integer", schema: `{"type":"integer","minimum":5,"maximum":6}`, want: "found"},
		{name: "format", schema: `{"type":"string","format":"email"}`, want: "found"},
		{name: "nested array", schema: `{"type":"array","minItems":2,"items":{"type":"object","required":["n"],"properties":{"n":{"type":"number","exclusiveMinimum":0}}}}`, want: "found"},
		{name: "const outside the enum", schema: `{"allOf":[{"enum":["bug","feature"]},{"const":"question"}]}`, want: "empty"},
		{name: "a type and its negation", schema: `{"type":"string","not":{"type":"string"}}`, want: "empty"},
		{name: "required member that is false", schema: `{"type":"object","required":["a"],"properties":{"a":false}}`, want: "empty"},
		{name: "optional member that is false", schema: `{"type":"object","properties":{"a":false}}`, want: "found"},
		{name: "required member with an alternative", schema: `{"type":"object","required":["a"],"properties":{"a":{"anyOf":[false,{"type":"string"}]}}}`, want: "found"},
		{name: "integers between bounds that hold none", schema: `{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}`, want: "empty"},
		{name: "lengths that cross", schema: `{"type":["string","array"],"minLength":3,"maxLength":2,"minItems":2,"maxItems":1}`, want: "empty"},
		{name: "two schemas that meet", schema: `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["bug","feature"]}}}`,
			and: `{"required":["kind"],"properties":{"kind":{"const":"feature"}}}`, want: "found", values: []string{`"feature"`}},
		{name: "two schemas that do not meet", schema: `{"enum":["bug","feature"]}`, and: `{"const":"question"}`, want: "empty"},
		{name: "two schemas that do not meet below the root", schema: `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["bug","feature"]}}}`,
			and: `{"required":["kind"],"properties":{"kind":{"const":"question"}}}`, want: "empty"},
		{name: "bounds that do not meet below the root", schema: `{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1,"maximum":5}}}`,
			and: `{"required":["n"],"properties":{"n":{"exclusiveMinimum":7}}}`, want: "empty"},
		{name: "const null under a type that is not null", schema: `{"const":null}`, and: `{"type":["boolean","number","string","array","object"]}`, want: "empty"},
		{name: "an enum none of whose values has the type", schema: `{"type":"string","enum":[1,null,true]}`, want: "empty"},
		{name: "const null and not null below the root", schema: `{"type":"object","required":["a"],"properties":{"a":{"type":"object","required":["at"],"properties":{"at":{"const":null}}}}}`,
			and: `{"type":"object","required":["a"],"properties":{"a":{"type":"object","required":["at"],"properties":{"at":{"type":["boolean","number","string","array","object"]}}}}}`, want: "empty"},
		{name: "pattern no value is built for", schema: `{"type":"string","pattern":"^(?=a)b$"}`, want: "unknown", why: "pattern"},
	}
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := contract.ParseJSON([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Inline(tt.name, src)
			if err != nil {
				t.Fatal(err)
			}
			all := []*contract.Schema{s}
			if tt.and != "" {
				src, err := contract.ParseJSON([]byte(tt.and))
				if err != nil {
					t.Fatal(err)
				}
				a, err := other.Inline(tt.name+" too", src)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, a)
			}
			seen := map[string]bool{}
			for variant := range 4 {
				g := subset.Generate(variant, all...)
				got := "unknown"
				switch {
				case g.Found:
					got = "found"
				case g.Empty:
					got = "empty"
				}
				if got != tt.want {
					t.Fatalf("variant %d: got %s (%s), want %s", variant, got, g.Why.Reason, tt.want)
				}
				switch got {
				case "found":
					for _, a := range all {
						if vs := a.Validate(g.Value, "en"); len(vs) > 0 {
							t.Fatalf("variant %d: %v breaks a schema: %s", variant, g.Value, vs[0].Message)
						}
					}
					if m, ok := g.Value.(map[string]any); ok {
						b, _ := json.Marshal(m["kind"])
						seen[string(b)] = true
					}
				case "unknown":
					if !strings.Contains(g.Why.Reason, tt.why) {
						t.Errorf("reason %q does not name %s", g.Why.Reason, tt.why)
					}
				}
			}
			for _, v := range tt.values {
				if !seen[v] {
					t.Errorf("no variant built kind %s (built %v)", v, seen)
				}
			}
		})
	}
}
