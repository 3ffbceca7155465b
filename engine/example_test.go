package engine_test

import (
	"context"
	"fmt"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
)

// Run runs a loaded DAG: each node once its dependencies have passed, its output validated
// before its dependents read it. A node that fails skips what depends on it.
func ExampleRun() {
	src := []byte(`version: 1
name: greet
nodes:
  greet:
    type: const
    with: {value: {status: pass, summary: hello}}
  shout:
    type: transform
    input: "${{ nodes.greet.output }}"
    with: {program: '{status: "pass", summary: (.summary | ascii_upcase)}'}
  check:
    type: const
    with: {value: {status: fail, summary: "${{ nodes.shout.output.summary }} is too loud"}}
  after:
    type: const
    needs: [check]
    with: {value: {status: pass, summary: never}}
`)
	d, err := dag.LoadBytes(context.Background(), "greet.yaml", src, dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := engine.Run(context.Background(), d, engine.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("run:", res.Status)
	for _, n := range res.Nodes {
		if n.Reason == "" {
			fmt.Printf("%s: %s\n", n.ID, n.Status)
		} else {
			fmt.Printf("%s: %s (%s)\n", n.ID, n.Status, n.Reason)
		}
	}
	// Output:
	// run: failed
	// greet: passed
	// shout: passed
	// check: failed (HELLO is too loud)
	// after: skipped (upstream check failed)
}
