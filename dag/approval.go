package dag

import (
	"github.com/seam-dag/seam/nodes"
)

// approvalForm compiles an approval node's form, inline or from its file, into n.Form, and
// gives the type the inline schema in place of a path, so that the node's output contract
// holds the form's fields whichever way the form is written.
func (l *loader) approvalForm(n *Node, src *nodeSource, what string) {
	if _, ok := n.Type.(nodes.Approval); !ok || src.withNode == nil {
		return
	}
	for i := 0; i+1 < len(src.withNode.Content); i += 2 {
		if src.withNode.Content[i].Value != "form" {
			continue
		}
		n.Form = l.schema(src.withNode.Content[i+1], l.of(what, "with.form"))
		if n.Form == nil || src.with == nil {
			return
		}
		if form, ok := n.Form.Source().(map[string]any); ok {
			src.with["form"] = form
		}
		return
	}
}

// ApprovalConfig reads an approval node's `with` as written (references left as strings);
// ok is false for a node of another type, or one whose `with` cannot be read.
func (n *Node) ApprovalConfig() (*nodes.ApprovalConfig, bool) {
	if _, ok := n.Type.(nodes.Approval); !ok {
		return nil, false
	}
	m, ok := n.With.Unresolved().(map[string]any)
	if !ok {
		return nil, false
	}
	cfg, err := nodes.ParseApproval(m)
	return cfg, err == nil
}

// Upstream lists the nodes id depends on, directly or through others, in topological order:
// what a rewind may go back to.
func (d *DAG) Upstream(id string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(id string) {
		n := d.ByID[id]
		if n == nil {
			return
		}
		for _, dep := range n.Deps {
			if !seen[dep] {
				seen[dep] = true
				walk(dep)
			}
		}
	}
	walk(id)
	var out []string
	for _, n := range d.Order {
		if seen[n.ID] {
			out = append(out, n.ID)
		}
	}
	return out
}
