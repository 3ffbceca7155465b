package lint

// The contract evolution gate (seam lint --against): a change is judged by what it does to
// edges, not by how its schemas differ. Both revisions of a DAG are linted; each edge — a
// consumer's input, with, foreach list or reference — has a state at each (compatible,
// unknown, incompatible), and only a move between states is reported. A contract change that
// no consumer depends on moves nothing.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// Changes a finding of Evolve reports (Finding.Change).
const (
	ChangeBroken   = "newly-incompatible" // an error: the edge was compatible, unknown or absent
	ChangeUnknown  = "newly-unknown"      // a warning: the edge is no longer proved
	ChangeFixed    = "fixed"              // a note: the edge was incompatible or unknown, now compatible
	ChangeWeakened = "weakened"           // a warning: a producer guarantees less than before
	ChangeAccepted = "accepted"           // a note: a break the policy file accepts (Policy.Apply)
	// ChangeStillUnknown is a warning (SEAM-W308): an edge the change touches (a contract on
	// it changed) that is unknown at both revisions, so the gate cannot tell whether it broke.
	ChangeStillUnknown = "still-unknown"
)

// SeverityInfo is the severity of a finding that needs nothing done (a fixed edge, an
// accepted break): SARIF's "note", GitHub's "notice".
const SeverityInfo = "info"

// EvolveOptions configure Evolve.
type EvolveOptions struct {
	Lang i18n.Lang
	// File is the DAG file's path relative to its repository, slash-separated: fingerprints
	// are made from it, so that they do not depend on where the checkout is.
	File string
	// Against names the older revision in messages, as the user gave it ("main").
	Against string
}

// Edge states, ordered: a move up is a regression.
const (
	stateCompatible = iota
	stateUnknown
	stateIncompatible
)

// Evolve compares a DAG as it is now (cur) with the same DAG at an older revision (old; nil
// when the file is new there) and reports what the change does to its edges:
//
//   - ChangeBroken (error): an edge incompatible now that was not, with lint's witness;
//   - ChangeUnknown (warning): an edge that can no longer be proved, with the reason;
//   - ChangeFixed (info): an edge incompatible or unknown before and compatible now;
//   - ChangeWeakened (warning): a node whose output contract now allows a value it rejected
//     before (new ⊄ old), for consumers seam cannot see; only a proven weakening, with a
//     witness, is reported;
//   - ChangeStillUnknown (warning, SEAM-W308): an edge unknown at both revisions that the
//     change touches (a producer's output contract, the consumer's definition or its input
//     contract changed, a file they refer to included): a change the gate cannot judge is not
//     passed in silence.
//
// An edge incompatible at both revisions is reported only for a break it did not have (by
// fingerprint: another place where the value fails, or another rule); the breaks it had
// are not (seam lint reports them). Every finding carries a Fingerprint. Findings come in file order.
func Evolve(ctx context.Context, old, cur *dag.DAG, opts EvolveOptions) []Finding {
	// The two revisions share nothing: they are linted side by side.
	// A panic there is handed to this goroutine, where the caller's recovery sees it, as it
	// would see one of a sequential Lint.
	var oldFs []Finding
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		if old != nil {
			oldFs = Lint(ctx, old, Options{Lang: opts.Lang})
		}
	}()
	curFs := Lint(ctx, cur, Options{Lang: opts.Lang})
	<-done
	if panicked != nil {
		panic(panicked)
	}
	curBy, curKeys := edgeStates(curFs)
	oldBy, oldKeys := edgeStates(oldFs)
	was := func(k, consumer string) string {
		switch {
		case old == nil:
			return i18n.Sprintf(opts.Lang, "the file is new since %s", opts.Against)
		case consumer != "" && old.ByID[consumer] == nil:
			return i18n.Sprintf(opts.Lang, "node %s is new since %s", consumer, opts.Against)
		case oldBy[k] == nil:
			return i18n.Sprintf(opts.Lang, "compatible at %s", opts.Against)
		}
		switch oldBy[k].state {
		case stateIncompatible:
			return i18n.Sprintf(opts.Lang, "incompatible at %s", opts.Against)
		case stateUnknown:
			return i18n.Sprintf(opts.Lang, "unknown at %s", opts.Against)
		}
		return i18n.Sprintf(opts.Lang, "compatible at %s", opts.Against)
	}
	changed := map[string]bool{}
	for _, id := range ChangedOutputs(old, cur) {
		changed[id] = true
	}
	var out []Finding
	for _, k := range curKeys {
		c, o := curBy[k], stateCompatible
		if oldBy[k] != nil {
			o = oldBy[k].state
		}
		var change, sev string
		switch {
		case c.state == stateIncompatible && o != stateIncompatible:
			change, sev = ChangeBroken, SeverityError
		case c.state == stateIncompatible:
			// Broken at both: the findings are compared, not the edge, so that a new break
			// beside one that was there (another field, another rule) is not passed.
			out = append(out, newBreaks(c.findings, oldBy[k].findings, opts)...)
			continue
		case c.state == stateUnknown && o != stateUnknown:
			change, sev = ChangeUnknown, SeverityWarning
		case c.state == stateUnknown && old != nil:
			out = append(out, stillUnknown(c.findings, old, cur, changed, opts)...)
			continue
		default:
			continue
		}
		for _, f := range c.findings {
			if f.Severity != sev {
				continue // an unknown part beside the break: the break says enough
			}
			f.Change = change
			f.Message = i18n.Sprintf(opts.Lang, "%s (%s)", f.Message, was(k, f.Consumer))
			out = append(out, f)
		}
	}
	for _, k := range oldKeys {
		o := oldBy[k]
		if curBy[k] != nil || o.state == stateCompatible {
			continue
		}
		f := o.findings[0]
		n := cur.ByID[f.Consumer]
		if n == nil && f.Consumer != "" {
			continue // the consumer is gone, and its edges with it
		}
		pos := dag.Pos{File: cur.File, Line: 1, Col: 1}
		if n != nil {
			pos = n.Pos
		}
		out = append(out, Finding{Pos: pos, Severity: SeverityInfo, Code: f.Code, Producers: f.Producers,
			Consumer: f.Consumer, Change: ChangeFixed, subject: f.subject, at: f.at,
			Message: i18n.Sprintf(opts.Lang, "fixed since %s: %s", opts.Against, f.Message)})
	}
	if old != nil {
		out = append(out, weakened(cur, old, opts)...)
	}
	for i := range out {
		out[i].Fingerprint = fingerprint(opts.File, out[i])
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return out
}

// newBreaks are the errors of an edge incompatible at both revisions (its findings now and
// then) that were not there before, by fingerprint: a break where the value fails
// elsewhere, or by another rule, is new; the same break reworded or moved is not.
func newBreaks(cur, old []Finding, opts EvolveOptions) []Finding {
	had := map[string]bool{}
	for _, f := range old {
		had[fingerprint(opts.File, f)] = true
	}
	var out []Finding
	for _, f := range cur {
		if f.Severity != SeverityError || had[fingerprint(opts.File, f)] {
			continue
		}
		f.Change = ChangeBroken
		f.Message = i18n.Sprintf(opts.Lang, "%s (a new break on an edge already incompatible at %s)", f.Message, opts.Against)
		out = append(out, f)
	}
	return out
}

// stillUnknown is SEAM-W308 for an edge unknown at both revisions (its findings now), when
// the change touches it: a producer's output contract changed (changed holds their ids), the
// consumer is written differently (its input mapping, with, contract) or its input contract
// changed (a file it refers to); nothing when it touches none of them.
func stillUnknown(fs []Finding, old, cur *dag.DAG, changed map[string]bool, opts EvolveOptions) []Finding {
	var why []string
	seen := map[string]bool{}
	for _, f := range fs {
		for _, p := range f.Producers {
			if changed[p] && !seen[p] {
				seen[p] = true
				why = append(why, i18n.Sprintf(opts.Lang, "the output contract of %s changed", p))
			}
		}
	}
	if n, o := cur.ByID[fs[0].Consumer], old.ByID[fs[0].Consumer]; n != nil && o != nil {
		switch {
		case n.Hash != o.Hash:
			why = append(why, i18n.Sprintf(opts.Lang, "node %s is written differently", n.ID))
		case !sameInput(n, o):
			why = append(why, i18n.Sprintf(opts.Lang, "the input contract of %s changed", n.ID))
		}
	}
	if len(why) == 0 {
		return nil
	}
	var out []Finding
	for _, f := range fs {
		if f.Severity != SeverityWarning {
			continue
		}
		f.Code, f.Change = CodeStillUnknown, ChangeStillUnknown
		f.Message = i18n.Sprintf(opts.Lang, "%s (unknown at %s too, and this change touches it: %s; the gate cannot tell whether it breaks)",
			f.Message, opts.Against, strings.Join(why, i18n.Sprintf(opts.Lang, ", ")))
		out = append(out, f)
	}
	return out
}

// sameInput reports whether nodes n and o have the same input contract.
func sameInput(n, o *dag.Node) bool {
	if n.InputContract == nil || o.InputContract == nil {
		return n.InputContract == nil && o.InputContract == nil
	}
	return sameContract(n.InputContract, o.InputContract)
}

// edgeState is an edge's verdict at one revision: its worst finding's, and the findings.
type edgeState struct {
	state    int
	findings []Finding
}

// edgeStates groups lint's edge findings by edge (consumer and subject), with the keys in
// the order the findings came; hygiene findings are not about an edge and are left out.
func edgeStates(fs []Finding) (map[string]*edgeState, []string) {
	by := map[string]*edgeState{}
	var keys []string
	for _, f := range fs {
		if f.subject == "" {
			continue
		}
		k := f.Consumer + "\x00" + f.subject
		s := by[k]
		if s == nil {
			s = &edgeState{}
			by[k] = s
			keys = append(keys, k)
		}
		st := stateUnknown
		if f.Severity == SeverityError {
			st = stateIncompatible
		}
		s.state = max(s.state, st)
		s.findings = append(s.findings, f)
	}
	return by, keys
}

// weakened reports the nodes of cur whose effective output contract allows a value the same
// node's contract in old rejected. Only a changed contract is checked (ChangedOutputs): an
// unchanged one allows nothing new.
func weakened(cur, old *dag.DAG, opts EvolveOptions) []Finding {
	var out []Finding
	for _, id := range ChangedOutputs(old, cur) {
		n := cur.ByID[id]
		res := subset.Check(n.Effective, old.ByID[id].Effective)
		if res.Verdict != subset.Incompatible {
			continue // compatible, or not proved either way: only a proven weakening is said
		}
		out = append(out, Finding{Pos: n.Pos, Severity: SeverityWarning, Code: CodeWeakened, Producers: []string{n.ID},
			Change: ChangeWeakened, Witness: res.Witness, HasWitness: true, subject: "output", at: res.Path,
			Message: i18n.Sprintf(opts.Lang, "node %s guarantees less than at %s: its output contract now allows a value it rejected there; consumers seam cannot see may break", n.ID, opts.Against),
			Hint:    i18n.Sprintf(opts.Lang, "keep the old guarantee, or tell the consumers outside this repository and accept the finding in the policy file")})
	}
	return out
}

// fingerprint identifies a finding of Evolve across edits that do not touch it: a hash of
// the DAG file's repository path, the code, the consumer and producers, what the finding
// judges and where the value fails, and never of positions or wording.
func fingerprint(file string, f Finding) string {
	ps := slices.Clone(f.Producers)
	slices.Sort(ps)
	h := sha256.Sum256([]byte(strings.Join([]string{"seam-gate/1", file, f.Code, f.Consumer, strings.Join(ps, ","), f.subject, f.at}, "\x1f")))
	return hex.EncodeToString(h[:8])
}

// refSubject names a reference as an edge finding's subject: "ref nodes.a.output.data.x".
func refSubject(r dag.Ref) string {
	parts := []string{"ref " + r.Root}
	if r.Root == "nodes" {
		parts = append(parts, r.Node, "output")
	}
	return strings.Join(append(parts, r.Path...), ".")
}
