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

// ChangeStoredFail is the change of a finding of StoredJudge: a warning.
const ChangeStoredFail = "stored-outputs-fail"

// ChangedOutputs returns the ids of the nodes of cur whose effective output contract differs
// from the same node's in old (in its own documents or in a file they refer to), in file order; none when old is nil (a new file).
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
		if !sameContract(n.Effective, o.Effective) {
			out = append(out, n.ID)
		}
	}
	return out
}

// sameContract reports whether a and b are the same contract: the same documents, the files
// their $refs reach included (a change to a shared file changes every contract using it).
func sameContract(a, b *contract.Schema) bool {
	da, db := a.Reached(), b.Reached()
	return slices.EqualFunc(da, db, func(x, y contract.Doc) bool { return reflect.DeepEqual(x.Value, y.Value) })
}

// StoredJudge validates the stored outputs of node id of cur, one at a time as they are read
// (so that N runs of large outputs are never held together: --against-store), against the
// node's effective output contract and against the input contract of each consumer whose
// input is the node's output alone: no input mapping and no other dependency, or an input
// that is one plain reference into the output. Findings returns a warning for each that
// some fail, with how many, the first failure and that value masked (its JSON type and
// size, never its content).
type StoredJudge struct {
	id     string
	opts   EvolveOptions
	checks []*storedCheck // the output's own contract first, then consumers in file order
}

// storedCheck is one contract the outputs are held to, and how they fared.
type storedCheck struct {
	Finding                                // where, and whose: the rest is Findings' to say
	total, failed    int                   // outputs judged, and those that failed
	violation, value string                // the first failure's, the value masked
	input            func(any) (any, bool) // the value the contract sees; nil: the output itself
	validate         func(any) []contract.Violation
}

// NewStoredJudge returns the judge of node id's stored outputs; nil when cur has no such node
// or it has no contract to judge by.
func NewStoredJudge(cur *dag.DAG, id string, opts EvolveOptions) *StoredJudge {
	n := cur.ByID[id]
	if n == nil || n.Effective == nil {
		return nil
	}
	lang := opts.Lang
	own := &storedCheck{validate: func(v any) []contract.Violation { return n.Effective.Validate(v, lang) }}
	own.Pos, own.Producers, own.subject = n.Pos, []string{id}, "stored output"
	j := &StoredJudge{id: id, opts: opts, checks: []*storedCheck{own}}
	for _, c := range cur.Nodes {
		if c.InputContract == nil {
			continue
		}
		input, ok := storedInput(c, id)
		if !ok {
			continue
		}
		ck := &storedCheck{input: input, validate: func(v any) []contract.Violation { return c.InputContract.ValidateInput(v, lang) }}
		ck.Pos, ck.Producers, ck.Consumer, ck.subject = c.Pos, []string{id}, c.ID, "stored input"
		j.checks = append(j.checks, ck)
	}
	return j
}

// Add judges one stored output (JSON); one that is not JSON is not what a passed attempt
// stores, and is skipped.
func (j *StoredJudge) Add(output []byte) {
	v, err := contract.ParseJSON(output)
	if err != nil {
		return
	}
	for _, ck := range j.checks {
		in := v
		if ck.input != nil {
			var ok bool
			if in, ok = ck.input(v); !ok {
				continue
			}
		}
		ck.total++
		vs := ck.validate(in)
		if len(vs) == 0 {
			continue
		}
		if ck.failed == 0 {
			ck.violation = vs[0].Message
			if vs[0].Pointer != "" {
				ck.violation = i18n.Sprintf(j.opts.Lang, "at %s: %s", vs[0].Pointer, ck.violation)
			}
			ck.value = masked(contract.ValueAt(in, vs[0].Pointer), j.opts.Lang)
		}
		ck.failed++
	}
}

// Findings are the warnings of the outputs added so far.
func (j *StoredJudge) Findings() []Finding {
	var out []Finding
	lang := j.opts.Lang
	for _, ck := range j.checks {
		if ck.failed == 0 {
			continue
		}
		f := ck.Finding
		if ck.Consumer == "" {
			f.Message = i18n.Sprintf(lang, "%d of %d stored outputs of node %s fail its new output contract: %s; e.g. value %s", ck.failed, ck.total, j.id, ck.violation, ck.value)
		} else {
			f.Message = i18n.Sprintf(lang, "%d of %d stored outputs of node %s fail the input contract of %s: %s; e.g. value %s", ck.failed, ck.total, j.id, ck.Consumer, ck.violation, ck.value)
		}
		f.Severity, f.Code, f.Change = SeverityWarning, CodeStored, ChangeStoredFail
		f.Hint = i18n.Sprintf(lang, "make sure the node no longer delivers such values before the change ships, or keep the contract accepting them")
		f.Fingerprint = fingerprint(j.opts.File, f)
		out = append(out, f)
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
