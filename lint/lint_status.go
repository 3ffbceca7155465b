package lint

import (
	"slices"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// statusWord is the status people mean by word when they come from another tool or from an
// output's own status: Argo's phases, Dagu's and GitHub Actions' words; "" for none.
func statusWord(word string) dag.NodeStatus {
	switch word {
	case "pass", "success", "succeeded":
		return dag.NodePassed
	case "warn", "warning":
		return dag.NodeWarned
	case "fail", "failure", "error", "errored":
		return dag.NodeFailed
	case "skip", "omitted":
		return dag.NodeSkipped
	case "cancel", "cancelled", "aborted":
		return dag.NodeCanceled
	}
	return ""
}

// statusNames reports SEAM-E317: nodes.<id>.status compared (==, != or in a list) with a
// string that is none of the statuses a node ends with, which never equals it, so the
// comparison is a constant the author did not mean.
func (l *linter) statusNames(consumer string, es []*dag.Expr) []Finding {
	var out []Finding
	for _, e := range es {
		if !slices.ContainsFunc(e.Refs(), func(r dag.Ref) bool { return r.Root == "status" }) {
			continue
		}
		parsed := l.parseAST(e.Src)
		if parsed == nil {
			continue // the loader reported it
		}
		info := parsed.SourceInfo()
		visitStatusCompares(parsed.Expr(), func(node string, lit ast.Expr) {
			word := string(lit.AsLiteral().(types.String))
			if slices.Contains(dag.FinalStatuses(), dag.NodeStatus(word)) {
				return
			}
			loc := info.GetStartLocation(lit.ID())
			pos := e.Pos
			pos.Line += loc.Line() - 1
			pos.Col += loc.Column()
			out = append(out, Finding{Pos: pos, Severity: SeverityError, Code: CodeStatusName,
				Producers: []string{node}, Consumer: consumer, subject: "status " + e.Src,
				Message: l.text.statusName(e.Src, node, word),
				Hint:    i18n.Sprintf(l.text.lang, "compare with one of the statuses a node ends with; what %s's output says of itself (pass, warn, fail) is nodes.%s.output.status", node, node)})
		})
	}
	return out
}

// visitStatusCompares calls f with each string literal that e compares a node's status with:
// nodes.a.status == 'x' (either way round, or !=) and nodes.a.status in ['x', …].
func visitStatusCompares(e ast.Expr, f func(node string, lit ast.Expr)) {
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() != ast.CallKind {
			return
		}
		c := x.AsCall()
		args := c.Args()
		if len(args) != 2 {
			return
		}
		switch c.FunctionName() {
		case "_==_", "_!=_":
			for k := range 2 {
				if node, ok := statusRef(args[k]); ok && isString(args[1-k]) {
					f(node, args[1-k])
				}
			}
		case "@in":
			if node, ok := statusRef(args[0]); ok && args[1].Kind() == ast.ListKind {
				for _, el := range args[1].AsList().Elements() {
					if isString(el) {
						f(node, el)
					}
				}
			}
		}
	}))
}

// statusRef reports whether e is nodes.<id>.status, and id.
func statusRef(e ast.Expr) (string, bool) {
	r, _, ok := dag.ChainRef(e)
	return r.Node, ok && r.Root == "status"
}

func isString(e ast.Expr) bool {
	if e.Kind() != ast.LiteralKind {
		return false
	}
	_, ok := e.AsLiteral().(types.String)
	return ok
}

// statusName is SEAM-E317's message: the statuses, and the one word meant when there is a
// likely one.
func (t lintText) statusName(src, node, word string) string {
	names := make([]string, 0, 5)
	for _, s := range dag.FinalStatuses() {
		names = append(names, string(s))
	}
	list := strings.Join(names, ", ")
	meant := string(statusWord(strings.ToLower(word)))
	if meant == "" {
		meant = suggest.Closest(strings.ToLower(word), names)
	}
	if meant != "" {
		return i18n.Sprintf(t.lang, "${{ %s }} compares nodes.%s.status with %q, which is not a status (%s); did you mean %q?", src, node, word, list, meant)
	}
	return i18n.Sprintf(t.lang, "${{ %s }} compares nodes.%s.status with %q, which is not a status (%s)", src, node, word, list)
}
