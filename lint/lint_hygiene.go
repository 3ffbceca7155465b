package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// Contract hygiene: the seed's anti-patterns, as warnings. They are judged only for nodes
// whose outputs something reads, since a contract matters where data crosses an edge.

// reads are the paths other nodes and the DAG's outputs read of one node's output.
type reads struct {
	readers []string   // node ids, or "outputs", in file order
	paths   [][]string // nil entry: the whole output
}

func (r *reads) add(reader string, path []string) {
	if !slices.Contains(r.readers, reader) {
		r.readers = append(r.readers, reader)
	}
	r.paths = append(r.paths, path)
}

// whole reports whether some reader reads the object at prefix as a whole (or an ancestor).
func (r *reads) whole(prefix []string) bool {
	for _, p := range r.paths {
		if len(p) <= len(prefix) && slices.Equal(p, prefix[:len(p)]) {
			return true
		}
	}
	return false
}

// members are the names read directly under prefix.
func (r *reads) members(prefix []string) map[string]bool {
	out := map[string]bool{}
	for _, p := range r.paths {
		if len(p) > len(prefix) && slices.Equal(p[:len(prefix)], prefix) {
			out[p[len(prefix)]] = true
		}
	}
	return out
}

// collectReads gathers, per producer id, what is read of its output.
func (l *linter) collectReads() map[string]*reads {
	all := map[string]*reads{}
	note := func(reader string, r dag.Ref) {
		if r.Root != "nodes" {
			return
		}
		rd := all[r.Node]
		if rd == nil {
			rd = &reads{}
			all[r.Node] = rd
		}
		rd.add(reader, itemPath(l.d.ByID[r.Node], r.Path))
	}
	for _, n := range l.d.Nodes {
		for _, e := range nodeExprs(n) {
			for _, r := range e.Refs() {
				note(n.ID, r)
			}
		}
		if n.Input == nil && n.InputContract != nil {
			// The default input hands on whole outputs, and the contract says it reads them.
			for _, id := range n.Deps {
				note(n.ID, dag.Ref{Root: "nodes", Node: id})
			}
		}
	}
	for _, o := range l.d.Outputs {
		for _, r := range o.Value.Refs() {
			note("outputs", r)
		}
	}
	return all
}

// itemPath is what a read of path in producer n's output reads of the output its contract
// is about. A foreach node's contract is each item's: data.items[N].x reads x of one, and
// data.items or above reads them whole.
func itemPath(n *dag.Node, path []string) []string {
	if n == nil || n.Foreach == nil || len(path) == 0 || path[0] != "data" {
		return path
	}
	switch {
	case len(path) == 1 || path[1] == "items" && len(path) <= 3:
		return nil
	case path[1] == "items":
		return path[3:]
	}
	return path
}

// hygiene reports the contract anti-patterns of nodes whose outputs are read.
func (l *linter) hygiene() []Finding {
	all := l.collectReads()
	var out []Finding
	for _, n := range l.d.Nodes {
		rd := all[n.ID]
		if rd == nil {
			continue
		}
		if n.OutputContract == nil {
			if n.Type != nil && n.Type.OutputSchema() != nil {
				continue // the type promises its own output
			}
			if beyondStandard(rd) {
				msg, hint := l.text.noContract(n.ID, strings.Join(rd.readers, i18n.Sprintf(l.text.lang, ", ")))
				out = append(out, Finding{Pos: n.Pos, Severity: SeverityWarning, Code: CodeNoContract,
					Producers: []string{n.ID}, Message: msg, Hint: hint})
			}
			continue
		}
		src := n.OutputContract.Source()
		for _, c := range contentConstraints(src, nil, 0) {
			msg, hint := l.text.content(n.ID, c.field, c.what)
			out = append(out, Finding{Pos: n.Pos, Severity: SeverityWarning, Code: CodeContent,
				Producers: []string{n.ID}, Message: msg, Hint: hint})
		}
		out = append(out, l.allRequired(n, src, nil, rd, 0)...)
	}
	return out
}

// beyondStandard reports whether some reader reads more than status and summary, which the
// standard contract already guarantees.
func beyondStandard(rd *reads) bool {
	for _, p := range rd.paths {
		if len(p) == 0 || (p[0] != "status" && p[0] != "summary") {
			return true
		}
	}
	return false
}

// freeText names members that usually hold prose, whose wording varies from run to run.
var freeText = []string{"summary", "description", "text", "message", "body", "content", "comment",
	"reason", "explanation", "title", "note", "notes", "details", "answer", "rationale", "reply"}

type contentFinding struct{ field, what string }

// contentConstraints finds, in a contract, constraints on content rather than structure: a
// string const (other than the top-level status), and a pattern or an exact length on a
// member that holds prose.
func contentConstraints(s any, at []string, depth int) []contentFinding {
	m, ok := s.(map[string]any)
	if !ok || depth > 16 {
		return nil
	}
	var out []contentFinding
	field := strings.Join(at, ".")
	name := ""
	if len(at) > 0 {
		name = strings.ToLower(at[len(at)-1])
	}
	if c, ok := m["const"].(string); ok && field != "status" {
		out = append(out, contentFinding{field, fmt.Sprintf("const %q", c)})
	}
	if slices.Contains(freeText, name) {
		if p, ok := m["pattern"].(string); ok {
			out = append(out, contentFinding{field, fmt.Sprintf("pattern %q", p)})
		}
		lo, okLo := m["minLength"]
		hi, okHi := m["maxLength"]
		if okLo && okHi && fmt.Sprint(lo) == fmt.Sprint(hi) {
			out = append(out, contentFinding{field, fmt.Sprintf("minLength == maxLength == %v", lo)})
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			out = append(out, contentConstraints(props[k], append(slices.Clip(at), k), depth+1)...)
		}
	}
	if it, ok := m["items"]; ok {
		out = append(out, contentConstraints(it, at, depth+1)...)
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			out = append(out, contentConstraints(a, at, depth+1)...)
		}
	}
	return out
}

// allRequired warns where a contract requires every member of an object (three or more,
// status and summary aside) while its readers read fewer than half of them.
func (l *linter) allRequired(n *dag.Node, s any, at []string, rd *reads, depth int) []Finding {
	m, ok := s.(map[string]any)
	if !ok || depth > 8 || rd.whole(at) {
		return nil
	}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	var names []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if depth == 0 && (k == "status" || k == "summary") {
			continue
		}
		names = append(names, k)
	}
	var out []Finding
	read := rd.members(at)
	all := len(names) >= 3
	var unread []string
	for _, k := range names {
		if !slices.Contains(req, any(k)) {
			all = false
		}
		if !read[k] {
			unread = append(unread, k)
		}
	}
	if all && len(read) > 0 && len(unread)*2 > len(names) {
		msg, hint := l.text.allRequired(n.ID, strings.Join(at, "."), len(names), unread)
		out = append(out, Finding{Pos: n.Pos, Severity: SeverityWarning, Code: CodeAllReq,
			Producers: []string{n.ID}, Message: msg, Hint: hint})
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if read[k] {
			out = append(out, l.allRequired(n, props[k], append(slices.Clip(at), k), rd, depth+1)...)
		}
	}
	return out
}
