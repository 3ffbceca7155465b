package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// Evidence freezes an approval's evidence: its `show`, resolved, as canonical JSON
// (encoding/json's form: object keys sorted, no spaces) and that text's hex SHA-256, which an
// answer names so that what was approved is what was seen.
func Evidence(show any) ([]byte, string, error) {
	if show == nil {
		show = []any{}
	}
	b, err := json.Marshal(show)
	if err != nil {
		return nil, "", fmt.Errorf("approval: encode evidence: %w", err)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// approval decides what an approval node does once its `with` is resolved: with an answer
// (RunOptions.Answers) it runs, the answer in its call; without one it opens, waiting. It
// reports whether the node runs.
func (r *runner) approval(i int32, run *nodeRun, call *nodes.Call) (runs bool, err error) {
	node := r.d.Nodes[i]
	if _, ok := node.Type.(nodes.Approval); !ok {
		return true, nil
	}
	if ans := r.opts.Answers[node.ID]; ans != nil && ans.Answer != nil {
		call.Answer = ans.Answer
		r.res.Nodes[i].Approval = ans
		return true, nil
	}
	cfg, err := nodes.ParseApproval(call.With)
	if err != nil {
		return false, err
	}
	evidence, hash, err := Evidence(nodes.MaskValue(call.With["show"], r.secrets))
	if err != nil {
		return false, err
	}
	nr := &r.res.Nodes[i]
	nr.Status, nr.Started = dag.NodeWaiting, r.now()
	rec := &dag.ApprovalRecord{Evidence: evidence, EvidenceHash: hash, Opened: nr.Started}
	rec.Title, _ = nodes.MaskValue(cfg.Title, r.secrets).(string)
	rec.Body, _ = nodes.MaskValue(cfg.Body, r.secrets).(string)
	rec.Prefill, _ = nodes.MaskValue(call.With["prefill"], r.secrets).(map[string]any)
	if cfg.Timeout > 0 {
		rec.Deadline = nr.Started.Add(cfg.Timeout)
	}
	nr.Approval = rec
	r.commits.record(dag.AttemptRecord{
		RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 0, Item: -1,
		Status: dag.NodeWaiting, Key: run.key, Approval: rec, Started: nr.Started,
	})
	r.waiting++
	r.emit(NodeWaitingForAnswer, i)
	return false, nil
}
