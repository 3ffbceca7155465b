package lint_test

import (
	"context"
	"fmt"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
)

// Lint proves, before anything runs, that what a node receives fits its input contract: here
// recommend does not promise the priority prioritise requires, and the finding's witness is
// an output recommend may give that prioritise would reject.
func ExampleLint() {
	d, err := dag.Load(context.Background(), "../dags/lint-incompatible.yaml", dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range lint.Lint(context.Background(), d, lint.Options{}) {
		fmt.Println(f)
	}
	// Output:
	// ../dags/lint-incompatible.yaml:24:5: error SEAM-E301 edge recommend → prioritise: INCOMPATIBLE — prioritise requires 'priority' but recommend does not produce it.
	//   witness: {"recommendations":[],"status":"pass","summary":"a"}
	//   fix: add 'priority' to recommend's output contract, or put a transform node between them.
}

// The same finding in Japanese: codes, ids, paths and the witness stay as they are.
func ExampleLint_japanese() {
	d, err := dag.Load(context.Background(), "../dags/lint-incompatible.yaml", dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range lint.Lint(context.Background(), d, lint.Options{Lang: i18n.Japanese}) {
		fmt.Println(f)
	}
	// Output:
	// ../dags/lint-incompatible.yaml:24:5: error SEAM-E301 エッジ recommend → prioritise: 非互換 — prioritise は 'priority' を必要としますが、recommend はそれを出力しません。
	//   witness: {"recommendations":[],"status":"pass","summary":"a"}
	//   fix: recommend の出力契約に 'priority' を追加するか、間に transform ノードを置いてください。
}
