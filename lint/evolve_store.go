package lint

// seam lint --against-store: the gate's proofs judge contracts; the run store holds what the
// nodes really delivered. Validating those values against the new contracts is evidence (a
// warning), not a proof: the next run may deliver other values.

import (
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// ChangeStoredFail is the change of a finding of Stored: a warning.
const ChangeStoredFail = "stored-outputs-fail"

// ChangedOutputs returns the ids of the nodes of cur whose effective output contract differs
// from the same node's in old, in file order; none when old is nil (a new file).
func ChangedOutputs(old, cur *dag.DAG) []string {
	if old == nil {
		return nil
	}
	var out []string
	for _, n := range cur.Nodes {
		o := old.ByID[n.ID]
		if o == nil || n.Effective == nil || o.Effective == nil {
			continue
		}
		if !reflect.DeepEqual(n.Effective.Source(), o.Effective.Source()) {
			out = append(out, n.ID)
		}
	}
	return out
}

// Stored validates outputs, the stored outputs of node id of cur (JSON, newest first),
// against the node's effective output contract and against the input contract of each
// consumer whose input is the node's output alone: no input mapping and no other
// dependency, or an input that is one plain reference into the output. It returns a
// warning for each that some fail, with how many, the first failure and that value masked
// (its JSON type and size, never its content).
func Stored(cur *dag.DAG, id string, outputs [][]byte, opts EvolveOptions) []Finding {
	n := cur.ByID[id]
	if n == nil || n.Effective == nil || len(outputs) == 0 {
		return nil
	}
	vals := make([]any, 0, len(outputs))
	for _, b := range outputs {
		v, err := contract.ParseJSON(b)
		if err != nil {
			continue // not what a passed attempt stores; nothing to judge
		}
		vals = append(vals, v)
	}
	var out []Finding
	if f, ok := storedCheck(vals, func(v any) []contract.Violation { return n.Effective.Validate(v, opts.Lang) }, opts.Lang); ok {
		f.Pos, f.Producers, f.subject = n.Pos, []string{id}, "stored output"
		f.Message = i18n.Sprintf(opts.Lang, "%d of %d stored outputs of node %s fail its new output contract: %s; e.g. value %s", f.failed, len(vals), id, f.violation, f.value)
		out = append(out, f.Finding)
	}
	for _, c := range cur.Nodes {
		if c.InputContract == nil {
			continue
		}
		input, ok := storedInput(c, id)
		if !ok {
			continue
		}
		ins := make([]any, 0, len(vals))
		for _, v := range vals {
			if in, ok := input(v); ok {
				ins = append(ins, in)
			}
		}
		f, ok := storedCheck(ins, func(v any) []contract.Violation { return c.InputContract.ValidateInput(v, opts.Lang) }, opts.Lang)
		if !ok {
			continue
		}
		f.Pos, f.Producers, f.Consumer, f.subject = c.Pos, []string{id}, c.ID, "stored input"
		f.Message = i18n.Sprintf(opts.Lang, "%d of %d stored outputs of node %s fail the input contract of %s: %s; e.g. value %s", f.failed, len(ins), id, c.ID, f.violation, f.value)
		out = append(out, f.Finding)
	}
	for i := range out {
		out[i].Severity, out[i].Code, out[i].Change = SeverityWarning, CodeStored, ChangeStoredFail
		out[i].Hint = i18n.Sprintf(opts.Lang, "make sure the node no longer delivers such values before the change ships, or keep the contract accepting them")
		out[i].Fingerprint = fingerprint(opts.File, out[i])
	}
	return out
}

// storedInput returns how consumer c's input is made from node id's output, when it is
// made from that output alone.
func storedInput(c *dag.Node, id string) (func(any) (any, bool), bool) {
	if c.Input == nil {
		if !slices.Equal(c.Deps, []string{id}) {
			return nil, false
		}
		return func(v any) (any, bool) { return map[string]any{id: v}, true }, true
	}
	r, ok := plainRef(c.Input)
	if !ok || r.Root != "nodes" || r.Node != id {
		return nil, false
	}
	return func(v any) (any, bool) { return contract.Lookup(v, r.Path) }, true
}

// storedFinding is a finding of Stored in the making.
type storedFinding struct {
	Finding
	failed           int
	violation, value string
}

// storedCheck validates each of vals with validate: ok when some fail, with the count, the
// first failure's violation and its value masked.
func storedCheck(vals []any, validate func(any) []contract.Violation, lang i18n.Lang) (storedFinding, bool) {
	var f storedFinding
	for _, v := range vals {
		vs := validate(v)
		if len(vs) == 0 {
			continue
		}
		if f.failed == 0 {
			f.violation = vs[0].Message
			if vs[0].Pointer != "" {
				f.violation = i18n.Sprintf(lang, "at %s: %s", vs[0].Pointer, f.violation)
			}
			f.value = masked(contract.ValueAt(v, vs[0].Pointer), lang)
		}
		f.failed++
	}
	return f, f.failed > 0
}

// masked shows a value by its JSON type and size only: stored outputs may hold anything,
// secrets included, and findings go to CI logs.
func masked(v any, lang i18n.Lang) string {
	switch x := v.(type) {
	case string:
		return i18n.Sprintf(lang, `"***" (a string of %d characters)`, utf8.RuneCountInString(x))
	case map[string]any:
		return i18n.Sprintf(lang, "{…} (an object of %d members)", len(x))
	case []any:
		return i18n.Sprintf(lang, "[…] (an array of %d items)", len(x))
	case bool:
		return i18n.Sprintf(lang, "*** (a boolean)")
	case nil:
		return "null"
	}
	return i18n.Sprintf(lang, "*** (a number)")
}
