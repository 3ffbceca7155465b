package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// subDAGType is the `dag` node type: it runs another DAG file as one node. The file's params
// schema is the node's input contract (unless the node declares one), and the file's outputs
// are the node's output data. SubDAGType declares it; this adds running it.
type subDAGType struct {
	dag.SubDAGType
	// getenv reads the variables a sub-DAG declares under env: each file opts in for itself.
	getenv func(string) string
	load   DAGLoader
}

// DAGLoader loads the DAG file a `dag` node runs, when it runs: a workspace (package
// workspace), which confines it as it confined the parent's load. It is given the types the
// `dag` type is registered in, so that sub-DAGs may use every type in them, `dag` included.
type DAGLoader interface {
	LoadDAG(ctx context.Context, path string, lang i18n.Lang) (*dag.DAG, error)
}

// AddDAGType registers the `dag` node type in reg: sub-DAGs load with load and read the
// variables they declare with getenv.
func AddDAGType(reg *nodes.Registry, getenv func(string) string, load DAGLoader) {
	reg.Add(&subDAGType{getenv: getenv, load: load})
}

// Run loads the file again (it may have been edited since the parent loaded; a broken file
// fails the node, and so does one that now leads out of the loader's root) and runs it with
// the node's input as params.
func (t *subDAGType) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	file, _ := call.With["file"].(string)
	parent, _ := ctx.Value(subRunKey{}).(subRunParent)
	lang := parent.lang
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(call.Dir, path)
	}
	d, err := t.load.LoadDAG(ctx, path, lang)
	if err != nil {
		return nil, fmt.Errorf("dag %s: %w", file, err)
	}
	params, ok := call.Input.(map[string]any)
	if !ok && call.Input != nil {
		return nil, i18n.Errorf(lang, "dag %s: the input is the sub-DAG's params and must be an object, not %s", file, jsonKind(lang, call.Input))
	}
	opts := RunOptions{Params: params, OutputLimit: call.OutputLimit, Getenv: t.getenv, Lang: lang, Logger: parent.logger, By: parent.by}
	if parent.rec != nil {
		opts.Recorder, opts.Parent, opts.ParentNode = parent.rec.Sub(d), parent.run, call.Node
	}
	res, err := Run(ctx, d, opts)
	if err != nil {
		return nil, fmt.Errorf("dag %s: %w", file, err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("dag %s: %w", file, ctx.Err())
	}
	b, err := SubOutput(lang, d.Name, res)
	if err != nil {
		return nil, fmt.Errorf("dag %s: %w", file, err)
	}
	return &nodes.Result{Output: b, Log: subLog(lang, res)}, nil
}

// SubOutput is a `dag` node's output for res, the sub-run of the DAG called name: the
// sub-DAG's outputs as its data, and how the sub-run went as its status and summary.
func SubOutput(lang i18n.Lang, name string, res *dag.RunResult) ([]byte, error) {
	out := map[string]any{"data": res.Outputs}
	if res.Outputs == nil {
		out["data"] = map[string]any{}
	}
	switch res.Status {
	case dag.RunSuccess:
		out["status"], out["summary"] = "pass", i18n.Sprintf(lang, "%s succeeded: %s", name, countNodes(lang, res))
	case dag.RunWarn:
		out["status"], out["summary"] = "warn", i18n.Sprintf(lang, "%s warned: %s", name, countNodes(lang, res))
	default:
		// The sub-run's id leads to it: seam runs show and explain follow it (runs.subRunID
		// finds it in either language).
		out["status"], out["summary"] = "fail", i18n.Sprintf(lang, "sub-run %s (%s) %s: %s", res.ID, name, res.Status.Text(lang), firstFailure(lang, res))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode outputs: %w", err)
	}
	return b, nil
}

// SubRunOutcome is the outcome of the attempt req of a `dag` node of d whose sub-run a host
// ran itself (Temporal: as a child workflow), from res, the sub-run's result: the node's
// output is made of it as the `dag` node type makes it, and judged as Attempt judges.
func SubRunOutcome(d *dag.DAG, req AttemptRequest, res *dag.RunResult, started, ended time.Time) AttemptOutcome {
	o := AttemptOutcome{ID: req.ID, Started: started, Ended: ended}
	if req.Index < 0 || req.Index >= len(d.Nodes) || d.Nodes[req.Index].ID != req.Node {
		o.Reason = i18n.Sprintf(req.Lang, "no node %s in DAG %s", req.Node, d.Name)
		o.Err = o.Reason
		return o
	}
	node := d.Nodes[req.Index]
	b, err := SubOutput(req.Lang, res.DAG, res)
	if err != nil {
		o.Err, o.Reason = err.Error(), err.Error()
		return o
	}
	a := attempt{raw: b}
	a.judge(&nodes.Result{Output: b}, node.Effective, req.Lang)
	o.Output, o.Valid, o.Violations, o.Log = b, a.valid, a.violations, subLog(req.Lang, res)
	return o
}

// subRunKey is the context key of the subRunParent a run hands its `dag` nodes: the context
// carries it through the node type interface, which knows nothing of runs.
type subRunKey struct{}

// subRunParent is what the sub-run of a `dag` node takes from the run it is part of.
type subRunParent struct {
	run    string          // the parent run's id
	rec    dag.SubRecorder // nil when the parent run is not recorded
	lang   i18n.Lang
	logger *slog.Logger
	by     string // who started the parent run
}

// countNodes says in lang how the sub-DAG's nodes ended, e.g. "4 nodes: 3 passed, 1 skipped".
func countNodes(lang i18n.Lang, res *dag.RunResult) string {
	counts := map[dag.NodeStatus]int{}
	for _, n := range res.Nodes {
		counts[n.Status]++
	}
	var parts []string
	for _, s := range []dag.NodeStatus{dag.NodePassed, dag.NodeWarned, dag.NodeFailed, dag.NodeSkipped, dag.NodeCanceled} {
		if c := counts[s]; c > 0 {
			parts = append(parts, i18n.Sprintf(lang, "%[1]d %[2]s", c, s.Text(lang)))
		}
	}
	if len(parts) == 0 {
		return i18n.Sprintf(lang, "no nodes")
	}
	sep := i18n.Format(lang, ", ")
	if len(res.Nodes) == 1 {
		return i18n.Sprintf(lang, "1 node: %s", strings.Join(parts, sep))
	}
	return i18n.Sprintf(lang, "%d nodes: %s", len(res.Nodes), strings.Join(parts, sep))
}

// firstFailure names the first node that failed and why.
func firstFailure(lang i18n.Lang, res *dag.RunResult) string {
	for _, n := range res.Nodes {
		if n.Status == dag.NodeFailed {
			return i18n.Sprintf(lang, "node %s: %s", n.ID, n.Reason)
		}
	}
	if res.Error != "" {
		return res.Error
	}
	return countNodes(lang, res)
}

// subLog is one line per sub-DAG node, kept as the node's log.
func subLog(lang i18n.Lang, res *dag.RunResult) string {
	var b strings.Builder
	b.WriteString(i18n.Sprintf(lang, "sub-run %s of %s: %s in %s\n", res.ID, res.DAG, res.Status.Text(lang), res.Elapsed.Round(time.Millisecond)))
	for _, n := range res.Nodes {
		text := n.Reason
		if text == "" {
			text = n.Summary
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", n.ID, n.Status.Text(lang), text)
	}
	return b.String()
}
