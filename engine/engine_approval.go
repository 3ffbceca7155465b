package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

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
	ans := r.opts.Answers[node.ID]
	round := r.rewind.reopens(node.ID)
	if ans != nil && ans.Answer != nil {
		r.tracing.approval(i, ans) // answered: it runs with it, or a rewind takes it
	}
	if ans != nil && ans.Answer != nil && round == 0 {
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
	rec := &dag.ApprovalRecord{Evidence: evidence, EvidenceHash: hash, Opened: nr.Started, Round: max(round, 1)}
	if ans != nil && round == 0 {
		// The question a resume found open is asked again in its round; on the same
		// evidence, since when it opened, so that its deadline stays where it was.
		rec.Round = max(ans.Round, 1)
		if ans.EvidenceHash == hash {
			rec.Opened = ans.Opened
		}
	}
	rec.Title, _ = nodes.MaskValue(cfg.Title, r.secrets).(string)
	rec.Body, _ = nodes.MaskValue(cfg.Body, r.secrets).(string)
	rec.Prefill, _ = nodes.MaskValue(call.With["prefill"], r.secrets).(map[string]any)
	if cfg.Timeout > 0 {
		rec.Deadline = rec.Opened.Add(cfg.Timeout)
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

// rewinds are what rejects under on_reject's rewind ask of a run: an approval whose answer
// (RunOptions.Answers) is a reject with rounds left does not run with it; the chain from its
// rewind node to it runs again, whatever a resume could reuse, with the answer in
// $SEAM_REVIEW, and the approval asks again, in its next round, with the evidence that chain
// produces now.
type rewinds struct {
	reviews map[int32]string // by node index: the answer it runs again for, as JSON
	rounds  map[string]int   // by approval: the round it opens as
}

// planRewinds finds the rewinds answers ask of d; nil when there are none.
func planRewinds(d *dag.DAG, answers map[string]*dag.ApprovalRecord) (*rewinds, error) {
	var rw *rewinds
	// Sorted, so that a node in the chains of two approvals runs with the same answer each time.
	for _, id := range slices.Sorted(maps.Keys(answers)) {
		ans, n := answers[id], d.ByID[id]
		if n == nil || ans == nil || ans.Answer["decision"] != nodes.DecisionReject {
			continue
		}
		cfg, ok := n.ApprovalConfig()
		round := max(ans.Round, 1)
		if !ok || cfg.OnReject.Mode != nodes.OnRejectRewind || round >= cfg.OnReject.MaxRounds {
			continue // the reject is the node's answer: it fails
		}
		chain := rewindChain(d, cfg.OnReject.Rewind, id)
		if len(chain) == 0 {
			continue // not upstream of the approval (lint's SEAM-E325): the reject fails the node
		}
		review, err := reviewJSON(id, round, ans)
		if err != nil {
			return nil, err
		}
		if rw == nil {
			rw = &rewinds{reviews: map[int32]string{}, rounds: map[string]int{}}
		}
		for i, node := range d.Nodes {
			if _, ok := rw.reviews[int32(i)]; !ok && chain[node.ID] {
				rw.reviews[int32(i)] = review
			}
		}
		rw.rounds[id] = round + 1
	}
	return rw, nil
}

// rewindChain is the set of from and every node between it and the approval: those
// upstream of the approval that from is upstream of. Empty when from is not upstream of it.
func rewindChain(d *dag.DAG, from, approval string) map[string]bool {
	up := d.Upstream(approval)
	if !slices.Contains(up, from) {
		return nil
	}
	chain := map[string]bool{from: true}
	for _, id := range up {
		if slices.Contains(d.Upstream(id), from) {
			chain[id] = true
		}
	}
	return chain
}

// reviewJSON is what $SEAM_REVIEW holds for a chain a reject rewinds: the approval, its
// round, and the answer (decision, the form's fields, comment, who and through what).
func reviewJSON(node string, round int, ans *dag.ApprovalRecord) (string, error) {
	fields := maps.Clone(ans.Answer)
	delete(fields, "decision")
	delete(fields, "comment")
	if fields == nil {
		fields = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{
		"node": node, "round": round, "decision": ans.Answer["decision"], "fields": fields,
		"comment": ans.Answer["comment"], "by": ans.By, "through": ans.Through,
	})
	if err != nil {
		return "", fmt.Errorf("approval %s: encode the answer for $SEAM_REVIEW: %w", node, err)
	}
	return string(b), nil
}

// review is $SEAM_REVIEW for node i: "" unless a reject rewinds it.
func (rw *rewinds) review(i int32) string {
	if rw == nil {
		return ""
	}
	return rw.reviews[i]
}

// reopens is the round approval id asks again in, 0 when no reject rewinds it.
func (rw *rewinds) reopens(id string) int {
	if rw == nil {
		return 0
	}
	return rw.rounds[id]
}
