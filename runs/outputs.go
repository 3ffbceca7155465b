package runs

import (
	"context"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// EachDecidedOutput calls each with what each of nodes delivered in the last n runs of the
// DAG named dagName that ended success or warn, newest first: in each run, the output of the
// node's last deciding attempt (a resume's, if the run was resumed), when that attempt passed
// or warned. A node absent from a run, or that failed there, adds nothing. One output is read
// at a time, so that n runs of large outputs are never held together. Errors are said in
// lang.
func EachDecidedOutput(ctx context.Context, s Store, dagName string, nodes []string, n int, lang i18n.Lang, each func(node string, output []byte)) error {
	seen, cursor := 0, ""
	for seen < n {
		rs, next, err := s.ListRuns(ctx, Filter{DAG: dagName, Limit: n, Cursor: cursor})
		if err != nil {
			return i18n.Errorf(lang, "read the runs of %s: %w", dagName, err)
		}
		for _, r := range rs {
			if seen == n || (r.Status != dag.RunSuccess && r.Status != dag.RunWarn) {
				continue
			}
			seen++
			_, as, err := s.GetRun(ctx, r.ID)
			if err != nil {
				return i18n.Errorf(lang, "read run %s: %w", r.ID, err)
			}
			last := map[string]*Attempt{}
			for i := range as {
				if a := &as[i]; a.Item == -1 && a.Final && (a.Status == dag.NodePassed || a.Status == dag.NodeWarned) {
					last[a.Node] = a
				}
			}
			for _, id := range nodes {
				a := last[id]
				if a == nil {
					continue
				}
				out, err := AttemptOutput(ctx, s, a)
				if err != nil {
					return i18n.Errorf(lang, "read the output of %s in run %s: %w", id, r.ID, err)
				}
				if out != nil {
					each(id, out)
				}
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return nil
}

// NodeOutput returns what node recorded as its output in run r with its attempts as (GetRun's):
// the output of its deciding attempt, or with item ≥ 0 that of the deciding attempt of that
// foreach item. A *UnknownNodeError when the run has no such node; errors say which items
// there are, or that the node recorded no output, in lang.
func NodeOutput(ctx context.Context, s Store, r *Run, as []Attempt, node string, item int, lang i18n.Lang) ([]byte, error) {
	var n *NodeSummary
	nodes := Summarize(as)
	ids := make([]string, len(nodes))
	for i, x := range nodes {
		ids[i] = x.ID
		if x.ID == node {
			n = x
		}
	}
	if n == nil {
		return nil, &UnknownNodeError{Run: r.ID, Node: node, Nodes: ids, Lang: lang}
	}
	a := n.Final
	if item >= 0 {
		if n.Items == 0 {
			return nil, i18n.Errorf(lang, "node %s of run %s has no foreach items: leave --item out", node, r.ID)
		}
		if item >= n.Items {
			return nil, i18n.Errorf(lang, "node %s of run %s has %d items, 0 to %d: no item %d", node, r.ID, n.Items, n.Items-1, item)
		}
		a = nil
		for i := range as {
			if x := &as[i]; x.Node == node && x.Item == item && (x.Final || a == nil || !a.Final) {
				a = x
			}
		}
		if a == nil {
			return nil, i18n.Errorf(lang, "item %d of node %s in run %s recorded nothing", item, node, r.ID)
		}
	}
	out, err := AttemptOutput(ctx, s, a)
	if err != nil {
		return nil, i18n.Errorf(lang, "read the output of %s in run %s: %w", node, r.ID, err)
	}
	if out == nil {
		return nil, i18n.Errorf(lang, "node %s of run %s recorded no output: it ended %s", node, r.ID, StatusText(lang, a.Status))
	}
	return out, nil
}
