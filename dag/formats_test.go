package dag

import (
	"strings"
	"testing"
)

// formatsDAG hands a string that is no date-time to a contract.input that says date-time.
const formatsDAG = `version: 1
name: formats
%s
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: ok, data: {when: yesterday}}}
    contract:
      output: {properties: {data: {properties: {when: {type: string}}}}}
  b:
    type: const
    input: {when: "${{ nodes.a.output.data.when }}"}
    contract:
      input: {type: object, properties: {when: {type: string, format: date-time}}}
    with: {value: {status: pass, summary: ok}}
`

// TestFormatsInvalid checks the load error for a value formats does not take.
func TestFormatsInvalid(t *testing.T) {
	tests := []struct{ value, want string }{
		{"anotate", `testdata/t.yaml:3:10: error SEAM-E113 formats: unknown value "anotate"; did you mean "annotate"?`},
		{"[assert]", `testdata/t.yaml:3:10: error SEAM-E113 formats must be one of assert, annotate, not a list`},
	}
	for _, tt := range tests {
		_, ds := loadTest(t, strings.Replace(formatsDAG, "%s", "formats: "+tt.value, 1))
		if len(ds) == 0 || !strings.HasPrefix(ds[0].String(), tt.want) {
			t.Errorf("formats: %s: diagnostics %v, want %q", tt.value, ds, tt.want)
		}
	}
}
