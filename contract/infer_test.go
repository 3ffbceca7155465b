package contract

import (
	"encoding/json"
	"testing"
)

func TestInfer(t *testing.T) {
	tests := []struct {
		name    string
		samples []string
		want    string
	}{
		{"scalars unify", []string{`1`, `2`}, `{"type":"integer"}`},
		{"integral and not", []string{`1`, `2.5`}, `{"type":"number"}`},
		{"1.0 is an integer", []string{`1.0`}, `{"type":"integer"}`},
		{"null beside a type", []string{`"a"`, `null`}, `{"type":["string","null"]}`},
		{"no content", []string{`"exactly this"`}, `{"type":"string"}`},
		{"required in all", []string{`{"a":1,"b":"x"}`, `{"a":2}`},
			`{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"],"type":"object"}`},
		{"items from every array", []string{`[1]`, `[]`, `["x"]`}, `{"items":{"type":["string","integer"]},"type":"array"}`},
		{"empty arrays", []string{`[]`}, `{"type":"array"}`},
		{"nested", []string{`{"d":{"l":[{"k":true}]}}`, `{"d":{"l":[{"k":false,"m":1}]}}`},
			`{"properties":{"d":{"properties":{"l":{"items":{"properties":{"k":{"type":"boolean"},"m":{"type":"integer"}},"required":["k"],"type":"object"},"type":"array"}},"required":["l"],"type":"object"}},"required":["d"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var samples []any
			for _, s := range tt.samples {
				v, err := ParseJSON([]byte(s))
				if err != nil {
					t.Fatal(err)
				}
				samples = append(samples, v)
			}
			s, err := Infer(samples)
			if err != nil {
				t.Fatal(err)
			}
			// Every sample fits the draft.
			c, err := NewCompiler(Options{})
			if err != nil {
				t.Fatal(err)
			}
			compiled, err := c.Inline("draft", s)
			if err != nil {
				t.Fatalf("draft does not compile: %v", err)
			}
			for i, v := range samples {
				if vs := compiled.Validate(v, "en"); len(vs) > 0 {
					t.Errorf("sample %d breaks the draft: %v", i, vs)
				}
			}
			delete(s, "$schema")
			got, _ := json.Marshal(s)
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := Infer(nil); err == nil || err.Error() != "infer: no samples" {
		t.Errorf("no samples: %v", err)
	}
}
