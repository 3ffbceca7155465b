package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
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
      output: {required: [data], properties: {data: {required: [when], properties: {when: {type: string}}}}}
  b:
    type: const
    input: {when: "${{ nodes.a.output.data.when }}"}
    contract:
      input: {type: object, properties: {when: {type: string, format: date-time}}}
    with: {value: {status: pass, summary: ok}}
`

// TestFormats checks both readings of format a DAG may choose: asserted (the default), so
// lint and the run reject the edge; or an annotation, so both let it through.
func TestFormats(t *testing.T) {
	tests := []struct {
		line    string
		formats string
		lint    string // the finding's code, "" for none
		status  dag.NodeStatus
	}{
		{"", dag.FormatsAssert, lint.CodeConstraint, dag.NodeFailed},
		{"formats: assert", dag.FormatsAssert, lint.CodeConstraint, dag.NodeFailed},
		{"formats: annotate", dag.FormatsAnnotate, "", dag.NodePassed},
	}
	for _, tt := range tests {
		t.Run(tt.formats+" "+tt.line, func(t *testing.T) {
			noLeaks(t)
			d := load(t, newRecorder(), strings.Replace(formatsDAG, "%s", tt.line, 1))
			if d.Formats != tt.formats {
				t.Errorf("Formats = %q, want %q", d.Formats, tt.formats)
			}
			var codes []string
			for _, f := range lint.Lint(context.Background(), d, lint.Options{}) {
				codes = append(codes, f.Code)
			}
			if got := strings.Join(codes, " "); got != tt.lint {
				t.Errorf("lint findings %q, want %q", got, tt.lint)
			}
			res := mustRun(t, d, RunOptions{})
			if b := node(t, res, "b"); b.Status != tt.status {
				t.Errorf("b %s (%s), want %s", b.Status, b.Reason, tt.status)
			}
		})
	}
}
