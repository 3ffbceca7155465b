// Package simulate runs a DAG without its side effects (seam run --simulate, issue 40): every
// node whose type is not pure (exec, http, the n8n operations) is given an output generated
// from its effective contract instead of running, `dag` nodes simulate their sub-DAG inside,
// and const and transform nodes run for real. The embedded engine runs the rest as in a real
// run (references, when, foreach, input, validation), once per path: per when, outputs that
// make it true and outputs that make it false where the contracts allow (lint's constraints
// of each outcome, met with the producer's contract by subset.Generate), and per foreach an
// empty list and a non-empty one. Nothing is recorded in a run store, and no secret is read:
// a variable the DAG reads through env is given a placeholder.
package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
)

// Bounds of one simulation: past them it stops and says so (Report.Bound).
const (
	// MaxPaths is the number of distinct paths run at most.
	MaxPaths = 32
	// MaxCombinations is the number of combinations of outcomes tried at most: with more
	// than 7 whens and foreaches, not every combination is.
	MaxCombinations = 128
	// maxSubDepth bounds sub-DAGs simulated inside sub-DAGs.
	maxSubDepth = 8
)

// Options configure a simulation.
type Options struct {
	// Params are the run's parameters; nil: generated from the params schema, and varied
	// like a node's output where a when reads them.
	Params map[string]any
	// Stubs pin nodes' outputs, by node id (seam run --simulate --stub): each must meet
	// the node's contract.
	Stubs map[string]any
	// Replays, when given, are the paths: one per real run, its simulated nodes handing on
	// the outputs it delivered (those that still meet their contracts; the others are
	// generated), instead of the combinations of outcomes (FromStore reads them).
	Replays []Replay
	Lang    i18n.Lang
}

// Report is what a simulation found.
type Report struct {
	DAG   string `json:"dag"`
	File  string `json:"file"`
	Paths []Path `json:"paths"`
	// Branches are the DAG's whens and foreaches, in file order, with the paths that took
	// each outcome.
	Branches []Branch `json:"branches"`
	// Unknown are the nodes no output could be generated for: they fail in every path.
	Unknown []Unknown `json:"unknown,omitempty"`
	// Tried counts the combinations of outcomes tried, of Combinations; Infeasible those
	// the contracts exclude (no output meets them).
	Tried        int `json:"tried"`
	Combinations int `json:"combinations"`
	Infeasible   int `json:"infeasible"`
	// Bound, when set, says which bound stopped the simulation before every combination was
	// tried.
	Bound string `json:"bound,omitempty"`
}

// Path is one run of the DAG with one combination of outcomes.
type Path struct {
	N int `json:"n"` // from 1
	// Replay is the run whose outputs this path replays (Options.Replays).
	Replay string        `json:"replay,omitempty"`
	Status dag.RunStatus `json:"status"`
	// Run are the nodes that ran for real, Simulated those whose output was generated (or
	// stubbed), Skipped and Failed those that did not pass or warn.
	Run       []string `json:"run"`
	Simulated []string `json:"simulated"`
	Skipped   []string `json:"skipped"`
	Failed    []string `json:"failed"`
	// Outcomes are the outcome of each when and foreach evaluated on this path, by node:
	// "true" or "false" for a when, "empty" or "items" for a foreach.
	Outcomes map[string]string `json:"outcomes"`
	// Generated are the simulated nodes' outputs (and "params": the params), by node id.
	Generated map[string]any `json:"generated"`
	Outputs   map[string]any `json:"outputs,omitempty"`
	// Reasons say why the failed nodes failed, by node id; Error why the run failed where
	// no node's reason does (an output that could not be evaluated).
	Reasons map[string]string `json:"reasons,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// Branch is one when or foreach and how the paths took it.
type Branch struct {
	Node string  `json:"node"`
	Kind string  `json:"kind"` // "when" or "foreach"
	Src  string  `json:"src"`
	Pos  dag.Pos `json:"pos"`
	// True and False are the paths where the when was true or false (for a foreach: its
	// list had items, or none).
	True  []int `json:"true"`
	False []int `json:"false"`
	// NeverTrue and NeverFalse, when set, prove that outcome impossible (lint's SEAM-W312).
	NeverTrue  *lint.Never `json:"never_true,omitempty"`
	NeverFalse *lint.Never `json:"never_false,omitempty"`
}

// Unknown is a node whose contract no output could be generated for.
type Unknown struct {
	Node string `json:"node"`
	// Empty is set when the contract provably accepts no value; Reason says what stopped
	// the search otherwise (the keyword).
	Empty  bool   `json:"empty"`
	Reason string `json:"reason"`
}

// StubError is a stub that breaks its node's contract, or names no node.
type StubError struct {
	Node       string
	Violations []contract.Violation // none: no such node
	Lang       i18n.Lang
}

func (e *StubError) Error() string {
	if len(e.Violations) == 0 {
		return i18n.Sprintf(e.Lang, "--stub %s: the DAG has no node %s", e.Node, e.Node)
	}
	v := e.Violations[0]
	return i18n.Sprintf(e.Lang, "--stub %s: the output breaks the node's contract at %s: %s", e.Node, pointer(v.Pointer), v.Message)
}

func pointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// decision is one when or foreach, with what each of its outcomes requires (index 0: false
// or empty; 1: true or items).
type decision struct {
	node, kind string
	want       [2][]lint.Constraint
}

// Simulate simulates d along every combination of outcomes of its whens and foreaches that
// its contracts allow, up to the bounds. It returns an error only for bad input (a stub
// that breaks its contract, params the schema rejects) or when ctx ends.
func Simulate(ctx context.Context, d *dag.DAG, opts Options) (*Report, error) {
	s, err := newSim(d, opts, 0)
	if err != nil {
		return nil, err
	}
	return s.explore(ctx)
}

// sim is one simulation of one DAG.
type sim struct {
	d     *dag.DAG
	opts  Options
	comp  *contract.Compiler
	depth int // of sub-DAGs
	// plain are the outputs generated from the contracts alone, by node id (and "params"),
	// unknown the nodes none could be generated for.
	plain     map[string]any
	unknown   map[string]Unknown
	decisions []decision
	compiled  map[string]*contract.Schema // constraints, by their JSON
	// reads are what the DAG's plain references require of each node's output (lint.Reads),
	// compiled: generated outputs hold them where the contract allows.
	reads map[string][]*contract.Schema
	// failing are the nodes whose status a when reads: explored failing too.
	failing map[string]bool
	// generated caches generate's answers, by root and schemas.
	generated map[string]subset.Generated
}

// Keys of a path's values beside node ids, which never start with NUL: the params, and a
// node made to fail (failKey + its id).
const (
	paramsRoot = "\x00params"
	failKey    = "\x00fail\x00"
)

func newSim(d *dag.DAG, opts Options, depth int) (*sim, error) {
	if opts.Lang == "" {
		opts.Lang = i18n.English
	}
	comp, err := contract.NewCompiler(contract.Options{AnnotateFormat: d.Formats == dag.FormatsAnnotate, Catalog: d.Catalog})
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", d.Name, err)
	}
	s := &sim{d: d, opts: opts, comp: comp, depth: depth, plain: map[string]any{}, unknown: map[string]Unknown{},
		compiled: map[string]*contract.Schema{}, reads: map[string][]*contract.Schema{}, failing: map[string]bool{}, generated: map[string]subset.Generated{}}
	for _, id := range slices.Sorted(maps.Keys(opts.Stubs)) {
		n := d.ByID[id]
		if n == nil {
			return nil, &StubError{Node: id, Lang: opts.Lang}
		}
		if vs := n.Effective.Validate(opts.Stubs[id], opts.Lang); len(vs) > 0 {
			return nil, &StubError{Node: id, Violations: vs, Lang: opts.Lang}
		}
	}
	for _, c := range lint.Reads(d) {
		if cc, err := s.constraint(c.Schema); err == nil {
			s.reads[c.Node] = append(s.reads[c.Node], cc)
		}
	}
	for _, n := range d.Nodes {
		if !s.simulated(n) || s.stubbed(n.ID) {
			continue
		}
		g := s.generate(n.ID, []*contract.Schema{n.Effective})
		switch {
		case g.Found:
			s.plain[n.ID] = g.Value
		case g.Empty:
			s.unknown[n.ID] = Unknown{Node: n.ID, Empty: true, Reason: i18n.Sprintf(opts.Lang, "its contract accepts no value")}
		default:
			s.unknown[n.ID] = Unknown{Node: n.ID, Reason: g.Why.ReasonIn(opts.Lang)}
		}
	}
	if opts.Params == nil && d.Params != nil {
		g := subset.Generate(0, d.Params)
		if !g.Found {
			return nil, i18n.Errorf(opts.Lang, "simulate %s: no params could be generated from the params schema; give them with -p", d.Name)
		}
		s.plain[paramsRoot] = g.Value
	}
	branches := lint.NodeBranches(d)
	for _, n := range d.Nodes {
		b, ok := branches[n.ID]
		if !ok {
			continue
		}
		if n.When != nil {
			s.decisions = append(s.decisions, decision{node: n.ID, kind: "when", want: [2][]lint.Constraint{b.WhenFalse, b.WhenTrue}})
		}
		if n.Foreach != nil {
			s.decisions = append(s.decisions, decision{node: n.ID, kind: "foreach", want: [2][]lint.Constraint{b.ForeachEmpty, b.ForeachItems}})
		}
	}
	// A when that reads how a node ended (nodes.x.status) is explored with x failing too:
	// its attempt fails, once (failKey).
	for _, n := range d.Nodes {
		for _, id := range n.Deps {
			if n.WhenReadsStatus(id) && !s.failing[id] && s.controls(id) {
				s.failing[id] = true
				s.decisions = append(s.decisions, decision{node: id, kind: "status"})
			}
		}
	}
	return s, nil
}

// simulated reports whether n's output is generated rather than computed: every type but
// the pure ones (const, transform) has a side effect or reaches outside the run.
func (s *sim) simulated(n *dag.Node) bool {
	_, pure := n.Type.(nodes.Pure)
	return !pure
}

func (s *sim) stubbed(id string) bool {
	_, ok := s.opts.Stubs[id]
	return ok
}

// controls reports whether a simulation chooses the value of root (a node id, or "" for
// the params): a simulated node's output, not stubbed, not a foreach's (whose output is
// its items'), or the params when not given.
func (s *sim) controls(root string) bool {
	if root == "" {
		return s.opts.Params == nil && s.d.Params != nil
	}
	n := s.d.ByID[root]
	return n != nil && n.Foreach == nil && s.simulated(n) && !s.stubbed(root) && s.unknown[root].Node == ""
}

// explore runs one path per distinct combination of outcomes, within the bounds.
func (s *sim) explore(ctx context.Context) (*Report, error) {
	rep := &Report{DAG: s.d.Name, File: s.d.File}
	for _, id := range slices.Sorted(maps.Keys(s.unknown)) {
		rep.Unknown = append(rep.Unknown, s.unknown[id])
	}
	if len(s.opts.Replays) > 0 {
		return s.replay(ctx, rep)
	}
	k := len(s.decisions)
	rep.Combinations = 1 << min(k, 30)
	seen := map[string]bool{}
	for _, combo := range combinations(k) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if rep.Tried == MaxCombinations {
			rep.Bound = i18n.Sprintf(s.opts.Lang, "%d combinations of outcomes tried, of %d", MaxCombinations, rep.Combinations)
			break
		}
		if len(rep.Paths) == MaxPaths {
			rep.Bound = i18n.Sprintf(s.opts.Lang, "%d paths run, the most one simulation runs", MaxPaths)
			break
		}
		rep.Tried++
		values, ok := s.values(combo)
		if !ok {
			rep.Infeasible++
			continue
		}
		p, err := s.run(ctx, values)
		if err != nil {
			return nil, err
		}
		key := pathKey(p)
		if seen[key] {
			continue
		}
		seen[key] = true
		p.N = len(rep.Paths) + 1
		rep.Paths = append(rep.Paths, *p)
	}
	rep.Branches = s.branches(ctx, rep.Paths)
	return rep, nil
}

// replay runs one path per replay: the outputs a real run delivered, where they still meet
// their nodes' contracts; generated ones elsewhere.
func (s *sim) replay(ctx context.Context, rep *Report) (*Report, error) {
	for _, rp := range s.opts.Replays {
		values := maps.Clone(s.plain)
		for id, v := range rp.Outputs {
			if n := s.d.ByID[id]; n != nil && s.controls(id) && len(n.Effective.Validate(v, s.opts.Lang)) == 0 {
				values[id] = v
			}
		}
		p, err := s.run(ctx, values)
		if err != nil {
			return nil, err
		}
		p.N, p.Replay = len(rep.Paths)+1, rp.Run
		rep.Paths = append(rep.Paths, *p)
		rep.Tried++
	}
	rep.Combinations = rep.Tried
	rep.Branches = s.branches(ctx, rep.Paths)
	return rep, nil
}

// combinations lists the combinations of k two-way outcomes to try, as bit masks (bit i:
// decision i's outcome 1): all outcomes 1, all 0, then each one alone flipped, then the
// rest, so that each outcome is aimed at early when not every combination can be tried.
func combinations(k int) []uint64 {
	k = min(k, 30)
	all := uint64(1)<<k - 1
	out := []uint64{all}
	seen := map[uint64]bool{all: true}
	add := func(m uint64) {
		if !seen[m] && len(out) < MaxCombinations+1 {
			seen[m] = true
			out = append(out, m)
		}
	}
	add(0)
	for i := range k {
		add(all &^ (1 << i))
		add(1 << i)
	}
	for m := uint64(0); m <= all && len(out) < MaxCombinations+1; m++ {
		add(m)
	}
	return out
}

// values are the generated outputs (and params) of one combination: per controlled root,
// a value of its contract meeting every constraint the combination's outcomes put on it.
// ok is false when the contracts exclude the combination (no value meets them). A root
// whose constraints no value could be built for, though none was proved impossible, takes
// its plain value: the run then says which outcome it gives.
func (s *sim) values(combo uint64) (map[string]any, bool) {
	wants := map[string][]any{}
	members := map[string][]lint.Member{}
	out := maps.Clone(s.plain)
	for i, dc := range s.decisions {
		if dc.kind == "status" && combo>>i&1 == 1 {
			out[failKey+dc.node] = true
		}
		for _, c := range dc.want[combo>>i&1] {
			if s.controls(c.Node) {
				wants[c.Node] = append(wants[c.Node], c.Schema)
				members[c.Node] = append(members[c.Node], c.Members...)
			}
		}
	}
	for root, cs := range wants {
		base := s.d.Params
		if root != "" {
			base = s.d.ByID[root].Effective
		}
		all := []*contract.Schema{base}
		for _, c := range cs {
			cc, err := s.constraint(c)
			if err != nil {
				all = nil
				break
			}
			all = append(all, cc)
		}
		if all == nil {
			continue
		}
		key := root
		if root == "" {
			key = paramsRoot
		}
		if v, ok := s.plain[key]; ok && meets(v, all[1:]) {
			continue // the plain value meets them already: no search
		}
		if s.contradict(all[1:]) {
			return nil, false // the outcomes exclude each other whatever the contract says
		}
		if v, ok := s.mend(root, key, all, members[root]); ok {
			out[key] = v
			continue
		}
		g := s.generate(root, all)
		switch {
		case g.Empty:
			return nil, false
		case g.Found:
			out[key] = g.Value
		}
	}
	return out, true
}

// contradict reports whether the constraints cs accept no value together, proved on them
// alone: two outcomes that exclude each other (a == null and a != null) need no search of
// a contract that may be large (a webhook's), only of the few keywords they hold.
func (s *sim) contradict(cs []*contract.Schema) bool {
	if len(cs) < 2 {
		return false
	}
	return s.generate("\x00constraints", cs).Empty
}

// mend is the plain value of root (at key) with only the members the constraints are about
// (ms) replaced by values that meet them there, when the whole then meets all (and what
// the DAG reads of it, if the plain value did): the rest of the value is kept, and the
// whole contract, which may be large (a webhook's), is not searched again. ok is false
// when that does not work out; the caller searches then.
func (s *sim) mend(root, key string, all []*contract.Schema, ms []lint.Member) (any, bool) {
	plain, ok := s.plain[key]
	if !ok || len(ms) == 0 {
		return nil, false
	}
	cacheKey := "\x00mend\x00" + key
	for _, c := range all {
		cacheKey += fmt.Sprintf("\x00%p", c)
	}
	if g, ok := s.generated[cacheKey]; ok {
		return g.Value, g.Found
	}
	v, ok := s.mended(plain, ms)
	ok = ok && meets(v, all) && (root == "" || meets(v, s.reads[root]) || !meets(plain, s.reads[root]))
	s.generated[cacheKey] = subset.Generated{Value: v, Found: ok}
	return v, ok
}

// mended is v with each member of ms that misses what its constraint needs there replaced
// by a value of the contract there that meets it.
func (s *sim) mended(v any, ms []lint.Member) (any, bool) {
	for _, m := range ms {
		want, err := s.constraint(m.Want)
		if err != nil {
			return nil, false
		}
		if cur, ok := at(v, m.Path); ok && meets(cur, []*contract.Schema{want}) {
			continue
		}
		c, err := s.constraint(m.Contract)
		if err != nil {
			return nil, false
		}
		g := s.generate("\x00member", []*contract.Schema{c, want})
		if !g.Found {
			return nil, false
		}
		w, ok := with(v, m.Path, g.Value)
		if !ok {
			return nil, false
		}
		v = w
	}
	return v, true
}

// at is the member of v at path, if there is one.
func at(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch t := v.(type) {
		case map[string]any:
			m, ok := t[seg]
			if !ok {
				return nil, false
			}
			v = m
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// with is v with its member at path set to x, v left as it is (the objects and lists on the
// way are copied): ok is false when a member on the way to the last is missing.
func with(v any, path []string, x any) (any, bool) {
	if len(path) == 0 {
		return x, true
	}
	switch t := v.(type) {
	case map[string]any:
		sub, ok := with(t[path[0]], path[1:], x)
		if !ok {
			return nil, false
		}
		c := maps.Clone(t)
		c[path[0]] = sub
		return c, true
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(t) {
			return nil, false
		}
		sub, ok := with(t[i], path[1:], x)
		if !ok {
			return nil, false
		}
		c := slices.Clone(t)
		c[i] = sub
		return c, true
	}
	return nil, false
}

// meets reports whether v meets every schema of cs.
func meets(v any, cs []*contract.Schema) bool {
	for _, c := range cs {
		if len(c.Validate(v, i18n.English)) > 0 {
			return false
		}
	}
	return true
}

// generate is a value meeting all, and what the DAG reads of root's output where that
// can be had too.
func (s *sim) generate(root string, all []*contract.Schema) subset.Generated {
	key := root
	for _, c := range all {
		key += fmt.Sprintf("\x00%p", c) // each schema is compiled once
	}
	if g, ok := s.generated[key]; ok {
		return g
	}
	g := s.search(root, all)
	s.generated[key] = g
	return g
}

// search is generate's answer, searched for.
func (s *sim) search(root string, all []*contract.Schema) subset.Generated {
	if reads := s.reads[root]; root != "" && len(reads) > 0 {
		if g := subset.Generate(0, slices.Concat(all, reads)...); g.Found {
			return g
		}
	}
	return subset.Generate(0, all...)
}

// constraint compiles a constraint's schema, once.
func (s *sim) constraint(v any) (*contract.Schema, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if c, ok := s.compiled[string(b)]; ok {
		return c, nil
	}
	c, err := s.comp.Inline("an outcome's constraint", v)
	if err != nil {
		return nil, err
	}
	s.compiled[string(b)] = c
	return c, nil
}

// run runs the DAG once with the simulated nodes' outputs values.
func (s *sim) run(ctx context.Context, values map[string]any) (*Path, error) {
	d := s.swapped(values)
	params := s.opts.Params
	if params == nil {
		params, _ = values[paramsRoot].(map[string]any)
	}
	res, err := engine.Run(ctx, d, engine.RunOptions{Params: params, Lang: s.opts.Lang, Getenv: placeholder,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", s.d.Name, err)
	}
	p := &Path{Status: res.Status, Outcomes: map[string]string{}, Generated: map[string]any{}, Outputs: res.Outputs, Error: res.Error}
	if v, ok := values[paramsRoot]; ok && s.opts.Params == nil {
		p.Generated["params"] = v
	}
	whenFalse := i18n.Sprintf(s.opts.Lang, "when was false")
	for _, nr := range res.Nodes {
		n := s.d.ByID[nr.ID]
		switch nr.Status {
		case dag.NodePassed, dag.NodeWarned:
			if s.simulated(n) {
				p.Simulated = append(p.Simulated, nr.ID)
				if n.Foreach == nil {
					p.Generated[nr.ID] = nr.Output
				}
			} else {
				p.Run = append(p.Run, nr.ID)
			}
		case dag.NodeSkipped:
			p.Skipped = append(p.Skipped, nr.ID)
		default:
			p.Failed = append(p.Failed, nr.ID)
			if p.Reasons == nil {
				p.Reasons = map[string]string{}
			}
			p.Reasons[nr.ID] = nr.Reason
		}
		done := nr.Status == dag.NodePassed || nr.Status == dag.NodeWarned
		started := done || nr.Status == dag.NodeFailed && (nr.Attempts > 0 || nr.Items > 0)
		if n.When != nil {
			switch {
			case nr.Status == dag.NodeSkipped && nr.Reason == whenFalse:
				p.Outcomes["when:"+nr.ID] = "false"
			case started:
				p.Outcomes["when:"+nr.ID] = "true"
			}
		}
		if s.failing[nr.ID] && (done || nr.Status == dag.NodeFailed) {
			p.Outcomes["status:"+nr.ID] = map[bool]string{true: "passed", false: "failed"}[done]
		}
		if n.Foreach != nil && started {
			if nr.Items == 0 {
				p.Outcomes["foreach:"+nr.ID] = "empty"
			} else {
				p.Outcomes["foreach:"+nr.ID] = "items"
			}
		}
	}
	return p, nil
}

// placeholder is what a simulation reads for a variable the DAG declares under env: never
// the variable itself.
func placeholder(name string) string { return "simulated-" + name }

// pathKey identifies a path by the outcomes it took and what became of each node.
func pathKey(p *Path) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p.Outcomes)) {
		fmt.Fprintf(&b, "%s=%s;", k, p.Outcomes[k])
	}
	fmt.Fprintf(&b, "|%v|%v|%v|%v", p.Run, p.Simulated, p.Skipped, p.Failed)
	return b.String()
}

// branches says, per when and foreach, which paths took each outcome, and which outcomes
// lint proves impossible.
func (s *sim) branches(ctx context.Context, paths []Path) []Branch {
	never := map[string][2]*lint.Never{}
	for _, pf := range lint.NeverOutcomes(ctx, s.d) {
		nv := never[pf.Node]
		if pf.Truth {
			nv[1] = &pf
		} else {
			nv[0] = &pf
		}
		never[pf.Node] = nv
	}
	var out []Branch
	for _, dc := range s.decisions {
		n := s.d.ByID[dc.node]
		b := Branch{Node: dc.node, Kind: dc.kind, True: []int{}, False: []int{}}
		yes, no := "true", "false"
		switch dc.kind {
		case "when":
			b.Src, b.Pos = n.When.Src, n.When.Pos
			b.NeverFalse, b.NeverTrue = never[dc.node][0], never[dc.node][1]
		case "foreach":
			b.Src, b.Pos, yes, no = foreachSrc(n), n.Pos, "items", "empty"
		default:
			b.Src, b.Pos, yes, no = "nodes."+n.ID+".status", n.Pos, "failed", "passed"
		}
		for _, p := range paths {
			switch p.Outcomes[dc.kind+":"+dc.node] {
			case yes:
				b.True = append(b.True, p.N)
			case no:
				b.False = append(b.False, p.N)
			}
		}
		out = append(out, b)
	}
	return out
}

// foreachSrc is how n's foreach is written, for the report.
func foreachSrc(n *dag.Node) string {
	if n.Foreach.Kind() == dag.TemplateExpr {
		return n.Foreach.Expr().Src
	}
	return "[…]"
}

// swapped is a copy of the DAG whose simulated nodes give the outputs values holds (or
// their stubs) instead of running, and whose `dag` nodes simulate their sub-DAG.
func (s *sim) swapped(values map[string]any) *dag.DAG {
	d := *s.d
	d.Nodes = make([]*dag.Node, len(s.d.Nodes))
	d.ByID = make(map[string]*dag.Node, len(s.d.Nodes))
	for i, n := range s.d.Nodes {
		c := *n
		if s.simulated(n) {
			t := &fake{Type: n.Type, sim: s, node: n.ID}
			switch v, ok := s.opts.Stubs[n.ID]; {
			case values[failKey+n.ID] == true:
				// Once, without repair: a simulated failure is not worth a backoff.
				t.err, t.failed = i18n.Sprintf(s.opts.Lang, "simulated failure"), true
				c.Retry.Attempts, c.Repair = 1, 0
			case ok:
				t.out = v
			case s.unknown[n.ID].Node != "":
				t.err = s.unknown[n.ID].Reason
				c.Retry.Attempts, c.Repair = 1, 0
			default:
				t.out = values[n.ID]
			}
			c.Type = t
		}
		d.Nodes[i], d.ByID[n.ID] = &c, &c
	}
	d.Order = make([]*dag.Node, len(s.d.Order))
	for i, n := range s.d.Order {
		d.Order[i] = d.ByID[n.ID]
	}
	return &d
}

// fake is a simulated node's type: it gives the generated output without running.
type fake struct {
	nodes.Type
	sim  *sim
	node string
	out  any
	err  string // no output could be generated: why
	// failed: err is the failure a when reading the node's status is explored with.
	failed bool
}

func (f *fake) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	if f.failed {
		return nil, errors.New(f.err)
	}
	if f.err != "" {
		return nil, i18n.Errorf(call.Lang, "simulated: no output could be generated from the contract: %s", f.err)
	}
	if sub := f.sim.d.SubDAGs[f.node]; sub != nil && f.Type.Name() == "dag" && f.sim.depth < maxSubDepth {
		return f.sim.subDAG(ctx, sub, call)
	}
	b, err := json.Marshal(f.out)
	if err != nil {
		return nil, fmt.Errorf("simulated output of %s: %w", f.node, err)
	}
	return &nodes.Result{Output: b, Log: i18n.Sprintf(call.Lang, "simulated: the output was generated from the contract")}, nil
}

// subDAG simulates a `dag` node's sub-DAG inside, along its plainest path, with the node's
// input as its params, and gives what the `dag` type would make of that run.
func (s *sim) subDAG(ctx context.Context, sub *dag.DAG, call *nodes.Call) (*nodes.Result, error) {
	params, _ := call.Input.(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	inner, err := newSim(sub, Options{Params: params, Lang: call.Lang}, s.depth+1)
	if err != nil {
		return nil, err
	}
	d := inner.swapped(inner.plain)
	res, err := engine.Run(ctx, d, engine.RunOptions{Params: params, Lang: call.Lang, Getenv: placeholder,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, fmt.Errorf("simulate sub-DAG %s: %w", sub.Name, err)
	}
	b, err := engine.SubOutput(call.Lang, sub.Name, res)
	if err != nil {
		return nil, err
	}
	return &nodes.Result{Output: b, Log: i18n.Sprintf(call.Lang, "simulated: the sub-DAG %s was simulated inside", sub.Name)}, nil
}
