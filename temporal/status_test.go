package temporal

import (
	"testing"

	"github.com/seam-dag/seam/dag"
)

// TestWorkflowStatusConditions: a run on Temporal decides nodes whose when reads an
// upstream's status as the embedded engine does (both run its scheduler): after a failure,
// and skipped when they read an output the failed upstream never handed on.
func TestWorkflowStatusConditions(t *testing.T) {
	path := writeDAG(t, `version: 1
name: status
nodes:
  a: {type: exec, with: {command: [sh, -c, "exit 3"], output: text}}
  b:
    type: exec
    when: "${{ nodes.a.status == 'failed' }}"
    with: {command: [echo, "a ${{ nodes.a.status }}"], output: text}
  c: {type: exec, needs: [a], with: {command: [echo, c], output: text}}
  d:
    type: exec
    when: "${{ nodes.a.status != 'passed' }}"
    with: {command: [echo, "${{ nodes.a.output.summary }}"], output: text}
`)
	p := runPair(t, path, pairOptions{})
	p.same(t)
	want := map[string]string{"b": "", "c": "upstream a failed", "d": "upstream a failed: its output is not there"}
	for id, reason := range want {
		if n := node(t, p.embedded, id); n.Reason != reason || (reason == "") != (n.Status == dag.NodePassed) {
			t.Errorf("%s: %s (%q), want reason %q", id, n.Status, n.Reason, reason)
		}
	}
}
