package dag_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// Load reads a DAG file and checks it whole: its node types and their configuration, its
// references and the edges they make, and its contracts. A wrong file gives every problem at
// once, as Diagnostics.
func ExampleLoad() {
	d, err := dag.Load(context.Background(), "../dags/hello.yaml", dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name)
	for _, n := range d.Order {
		fmt.Printf("%s (%s) after [%s]\n", n.ID, n.Type.Name(), strings.Join(n.Deps, " "))
	}
	// Output:
	// hello
	// greet (const) after []
	// echo (exec) after [greet]
}

// A file with mistakes: each is a diagnostic with its position, code and fix.
func ExampleLoadBytes_diagnostics() {
	src := []byte(`version: 1
name: typo
nodes:
  a: {type: const, with: {value: {status: pass, summary: hi}}}
  b: {type: cosnt, with: {value: "${{ nodes.c.output }}"}}
`)
	_, err := dag.LoadBytes(context.Background(), "typo.yaml", src, dag.LoadOptions{Types: nodes.Builtin()})
	fmt.Println(err)
	// Output:
	// typo.yaml:5:13: error SEAM-E104 unknown node type "cosnt"; did you mean "const"?
	//   fix: see `seam types` for the node types
	// typo.yaml:5:39: error SEAM-E105 reference to unknown node "c"; did you mean "a"?
	//   fix: use "a", or add a node "c"
}
