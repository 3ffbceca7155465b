package runs

import (
	"slices"

	"github.com/seam-dag/seam/dag"
)

// NodeSummary is one node of a stored run, as its attempts tell it.
type NodeSummary struct {
	ID   string
	Type string
	// Final is the deciding attempt of the latest session, or the last one if none decided.
	Final *Attempt
	// Attempts counts the attempts that ran, across sessions. Each item of a foreach node is
	// tried on its own, so for one it is the most attempts any one item took, not their sum.
	Attempts int
	// Items counts the foreach items recorded.
	Items int
	// Decided is whether Final decided the node's status (false when its process died).
	Decided bool
}

// Summarize groups a run's attempts (in GetRun's order) by node, in the order nodes first
// appear.
func Summarize(as []Attempt) []*NodeSummary {
	// A foreach node's attempts are its items'; its own record only combines them.
	hasItems := map[string]bool{}
	for i := range as {
		if as[i].Item >= 0 {
			hasItems[as[i].Node] = true
		}
	}
	var order []*NodeSummary
	by := map[string]*NodeSummary{}
	type nodeItem struct {
		node string
		item int
	}
	itemAttempts := map[nodeItem]int{}
	for i := range as {
		a := &as[i]
		n := by[a.Node]
		if n == nil {
			n = &NodeSummary{ID: a.Node, Type: a.Type}
			by[a.Node] = n
			order = append(order, n)
		}
		ran := a.Attempt > 0 && !a.Reused
		switch {
		case ran && a.Item >= 0:
			k := nodeItem{a.Node, a.Item}
			itemAttempts[k]++
			n.Attempts = max(n.Attempts, itemAttempts[k])
		case ran && !hasItems[a.Node]:
			n.Attempts++
		}
		if a.Item >= 0 {
			n.Items = max(n.Items, a.Item+1)
			continue
		}
		// Attempts come in order, so the last deciding one wins; an undecided node (its
		// process died) shows its last attempt.
		if a.Final || !n.Decided {
			n.Final = a
			n.Decided = a.Final
		}
	}
	for _, n := range order {
		if n.Final == nil { // only items were recorded: the node was interrupted
			n.Final = &Attempt{Node: n.ID, Type: n.Type, Status: dag.NodeRunning, Item: -1}
		}
	}
	return order
}

// Unfinished is the status of a node no attempt decided and that is not running: its
// process died.
const Unfinished dag.NodeStatus = "unfinished"

// Status is the node's status: its final attempt's, or Unfinished when no attempt decided it
// and it is neither running nor an approval waiting for its answer (which no attempt
// decides until it is answered).
func (n *NodeSummary) Status() dag.NodeStatus {
	if !n.Decided && n.Final.Status != dag.NodeRunning && n.Final.Status != dag.NodeWaiting {
		return Unfinished
	}
	return n.Final.Status
}

// FailedItems returns the last attempt of each foreach item of node whose last attempt
// failed, in item order: their outputs say why, which the node's own record, combining the
// items, does not keep.
func FailedItems(as []Attempt, node string) []*Attempt {
	last := map[int]*Attempt{}
	for i := range as {
		if a := &as[i]; a.Node == node && a.Item >= 0 {
			last[a.Item] = a
		}
	}
	var out []*Attempt
	for _, a := range last {
		if a.Status == dag.NodeFailed {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *Attempt) int { return a.Item - b.Item })
	return out
}
