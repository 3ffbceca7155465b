package dag

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
)

// TypeChecker type-checks compiled expressions with each reference typed as its caller says:
// lint types them by the producers' contracts, where loading types params, nodes and item as
// dyn so that a load needs no contract (and stays as it is). It starts from the load's
// environment, so that both read CEL alike.
// It is used by one goroutine at a time.
type TypeChecker struct {
	env *cel.Env
	// envs are env extended by the variables of the typed references, keyed by their types
	// in order: extending costs more than checking, and expressions repeat their types.
	envs map[string]*cel.Env
}

// NewTypeChecker returns a TypeChecker. Its environment compares numbers of different CEL
// types (an int with a double) as a run does: the runtime orders and equates them across
// types, the checker alone does not unless told.
func NewTypeChecker() (*TypeChecker, error) {
	rc, err := newRefCompiler()
	if err != nil {
		return nil, err
	}
	env, err := rc.env.Extend(cel.CrossTypeNumericComparisons(true))
	if err != nil {
		return nil, fmt.Errorf("type-checking environment: %w", err)
	}
	return &TypeChecker{env: env, envs: map[string]*cel.Env{}}, nil
}

// TypeIssue is one error of CEL's type checker on an expression.
type TypeIssue struct {
	Pos     Pos
	Message string // the checker's, in English (CEL's own words)
}

// Check type-checks e with each of its references (each maximal chain root.a.b[0]…) typed by
// typeOf, or as the load typed it where typeOf gives nil. It returns the type of e's result,
// nil when the check found errors, and those errors. An equality or `in` between numbers of
// different CEL types is not one: a run compares 2 with 2.0 and finds them equal.
func (tc *TypeChecker) Check(e *Expr, typeOf func(Ref) *types.Type) (*types.Type, []TypeIssue, error) {
	parsed, iss := tc.env.Parse(e.Src)
	if iss != nil && iss.Err() != nil {
		return nil, nil, fmt.Errorf("type-check %q: %w", e.Src, iss.Err())
	}
	// Each typed reference becomes a variable of its type: CEL has no record types for the
	// members of a JSON object, so a chain is typed as a whole.
	fac := ast.NewExprFactory()
	var decls []cel.EnvOption
	var key strings.Builder
	collectRefs(parsed.NativeRep().Expr(), func(r Ref, _ int64, chain ast.Expr) {
		t := typeOf(r)
		if t == nil {
			return
		}
		name := fmt.Sprintf("_seam_ref%d", len(decls))
		chain.SetKindCase(fac.NewIdent(chain.ID(), name))
		decls = append(decls, cel.Variable(name, t))
		key.WriteString(t.String() + "\x00")
	})
	env, ok := tc.envs[key.String()]
	if !ok {
		var err error
		if env, err = tc.env.Extend(decls...); err != nil {
			return nil, nil, fmt.Errorf("type-check %q: %w", e.Src, err)
		}
		tc.envs[key.String()] = env
	}
	checked, iss := env.Check(parsed)
	if iss == nil || iss.Err() == nil {
		return checked.OutputType(), nil, nil
	}
	var out []TypeIssue
	for _, ce := range iss.Errors() {
		if comparedByValue(ce.Message) || branchesDiffer(ce.Message) {
			continue
		}
		p := e.Pos
		// Exact on the expression's first line, where nearly every expression is whole; a
		// later line's column is counted from the first's.
		p.Line += ce.Location.Line() - 1
		p.Col += ce.Location.Column()
		out = append(out, TypeIssue{Pos: p, Message: ce.Message})
	}
	return nil, out, nil
}

// Comparison reports whether the issue is an equality or `in` that finds no overload for its
// operands' types: an error only where they can never be equal, for a run compares values of
// different kinds and finds them unequal.
func (is TypeIssue) Comparison() bool {
	rest, ok := strings.CutPrefix(is.Message, "found no matching overload for '")
	return ok && (strings.HasPrefix(rest, "_==_'") || strings.HasPrefix(rest, "_!=_'") || strings.HasPrefix(rest, "@in'"))
}

// branchesDiffer reports whether a checker error is a conditional `c ? a : b` whose branches
// have different types (a string or null: the guarded default of a read that may be absent),
// which a run evaluates as it finds them: only a condition that is not a boolean fails it.
func branchesDiffer(msg string) bool {
	args, ok := strings.CutPrefix(msg, "found no matching overload for '_?_:_' applied to '(")
	return ok && (strings.HasPrefix(args, "bool,") || strings.HasPrefix(args, "dyn,"))
}

// comparedByValue reports whether a checker error is an equality or `in` that finds no
// overload only because its numbers are of different CEL types (int, uint, double), which a
// run compares by value, or an equality with null, which is how a value that may be null is
// tested (`o != null && has(o.k)`).
func comparedByValue(msg string) bool {
	rest, ok := strings.CutPrefix(msg, "found no matching overload for '")
	if !ok {
		return false
	}
	fn, args, ok := strings.Cut(rest, "' applied to '(")
	if !ok || (fn != "_==_" && fn != "_!=_" && fn != "@in") {
		return false
	}
	args = strings.TrimSuffix(args, ")'")
	num := strings.NewReplacer("uint", "int", "double", "int")
	a, b, ok := cutTop(num.Replace(args))
	if !ok {
		return false
	}
	if fn != "@in" && (a == "null" || b == "null") {
		return true
	}
	if fn == "@in" {
		// b is list(T) or map(K, V): a is compared with T or K.
		switch {
		case strings.HasPrefix(b, "list(") && strings.HasSuffix(b, ")"):
			b = b[len("list(") : len(b)-1]
		case strings.HasPrefix(b, "map(") && strings.HasSuffix(b, ")"):
			if b, _, ok = cutTop(b[len("map(") : len(b)-1]); !ok {
				return false
			}
		default:
			return false
		}
	}
	return a == b
}

// cutTop cuts a list of CEL type names "A, B" at its one comma outside parentheses.
func cutTop(s string) (a, b string, ok bool) {
	depth, at := 0, -1
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if at >= 0 {
					return "", "", false // more than two
				}
				at = i
			}
		}
	}
	if at < 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+1:]), true
}
