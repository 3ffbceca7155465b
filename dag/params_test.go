package dag

import (
	"encoding/json"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// TestWithDefaults checks which defaults of the params schema a run's params get.
func TestWithDefaults(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		params string
		want   string
	}{
		{"top level", `{"type":"object","properties":{"weight":{"type":"integer","default":2}}}`, `{}`, `{"weight":2}`},
		{"given wins", `{"type":"object","properties":{"weight":{"default":2}}}`, `{"weight":7}`, `{"weight":7}`},
		{"null is given", `{"type":"object","properties":{"weight":{"default":2}}}`, `{"weight":null}`, `{"weight":null}`},
		{"no default", `{"type":"object","properties":{"weight":{"type":"integer"}}}`, `{}`, `{}`},
		{"nested in a given object", `{"properties":{"o":{"properties":{"a":{"default":"x"},"b":{"default":1}}}}}`,
			`{"o":{"b":2}}`, `{"o":{"a":"x","b":2}}`},
		{"nested in a defaulted object", `{"properties":{"o":{"default":{},"properties":{"a":{"default":[1]}}}}}`,
			`{}`, `{"o":{"a":[1]}}`},
		{"absent object without default", `{"properties":{"o":{"properties":{"a":{"default":1}}}}}`, `{}`, `{}`},
		{"not through $ref", `{"$defs":{"w":{"default":3}},"properties":{"w":{"$ref":"#/$defs/w"}}}`, `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			s, err := contract.NewCompiler(contract.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ps, err := s.Inline("params", schema)
			if err != nil {
				t.Fatal(err)
			}
			var params map[string]any
			if err := json.Unmarshal([]byte(tt.params), &params); err != nil {
				t.Fatal(err)
			}
			d := &DAG{Params: ps}
			got, _ := json.Marshal(d.WithDefaults(params))
			if string(got) != tt.want {
				t.Errorf("WithDefaults(%s) = %s, want %s", tt.params, got, tt.want)
			}
			if before, _ := json.Marshal(params); string(before) != tt.params {
				t.Errorf("params changed to %s", before)
			}
		})
	}
}
