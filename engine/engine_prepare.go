package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// prepare resolves node i's condition, configuration and input, and queues its first
// attempt (or its items' first attempts), unless it settles without running: skipped,
// failed, or reused from an earlier run.
func (r *runner) prepare(ctx context.Context, i int32) {
	node := r.d.Nodes[i]
	nr := &r.res.Nodes[i]
	run := &nodeRun{idx: i}
	if r.keyed {
		run.key = r.key(i)
	}
	fail := func(reason string, err error, vs []contract.Violation) {
		nr.Started = r.now()
		if r.hosted != nil && r.hosted.refs {
			reason += r.refHint(i)
		}
		// with and input quote resolved values, which may hold secrets.
		reason = nodes.MaskString(reason, r.secrets)
		if err != nil {
			nr.Error = nodes.MaskString(err.Error(), r.secrets)
		}
		for k := range vs {
			vs[k].Value = nodes.MaskString(vs[k].Value, r.secrets)
			vs[k].Message = nodes.MaskString(vs[k].Message, r.secrets)
		}
		nr.Violations = vs
		// Recorded as an attempt that never ran, so that the store can explain it.
		r.commits.record(dag.AttemptRecord{
			RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: -1,
			Status: dag.NodeFailed, Final: true, Key: run.key, Violations: vs, Reason: reason, Error: nr.Error,
			Started: nr.Started, Ended: r.now(),
		})
		r.settle(i, dag.NodeFailed, reason)
	}
	if node.When != nil {
		var ok bool
		var err error
		if perr := r.guard.call("when", func() { ok, err = node.When.Bool(&r.scope) }); perr != nil {
			fail(perr.Error(), perr, nil)
			return
		}
		if why := r.unread(node, node.When.Refs()); err != nil && why != "" {
			r.settle(i, dag.NodeSkipped, why)
			return
		}
		if err != nil {
			fail(i18n.Sprintf(r.opts.Lang, "when could not be evaluated: %v", err), err, nil)
			return
		}
		if !ok {
			r.settle(i, dag.NodeSkipped, i18n.Sprintf(r.opts.Lang, "when was false"))
			return
		}
	}
	prev, resumed := r.opts.Reuse[node.ID]
	// A node a reject rewinds runs again, with the answer, whatever it output before.
	resumed = resumed && r.rewind.review(i) == ""
	if resumed && prev.Key == run.key && prev.Output != nil && r.reuse(ctx, i, prev) {
		return
	}
	if node.Foreach == nil {
		call, reason, err, vs := r.guardedCall(i, node)
		if why := r.unread(node, node.With.Refs(), inputRefs(node)); reason != "" && why != "" {
			r.settle(i, dag.NodeSkipped, why)
			return
		}
		if reason != "" {
			fail(reason, err, vs)
			return
		}
		if runs, err := r.approval(i, run, call); err != nil || !runs {
			if err != nil {
				fail(err.Error(), err, nil)
			}
			return
		}
		// One allocation for the node, its unit and the list of it: most nodes are plain.
		run.one = unit{nr: run, item: -1, call: call}
		run.oneList[0] = &run.one
		run.units = run.oneList[:]
	} else {
		var list []any
		var reason string
		if perr := r.guard.call("foreach", func() { list, reason = r.items(node) }); perr != nil {
			reason = perr.Error()
		}
		if why := r.unread(node, node.Foreach.Refs()); reason != "" && why != "" {
			r.settle(i, dag.NodeSkipped, why)
			return
		}
		if reason != "" {
			fail(reason, nil, nil)
			return
		}
		run.units = make([]*unit, len(list))
		for k, item := range list {
			r.scope.Item, r.scope.Index, r.scope.HasItem = item, k, true
			call, reason, err, vs := r.guardedCall(i, node)
			if reason != "" {
				r.scope.Item, r.scope.Index, r.scope.HasItem = nil, 0, false
				if why := r.unread(node, node.With.Refs(), inputRefs(node)); why != "" {
					r.settle(i, dag.NodeSkipped, why)
					return
				}
				fail(i18n.Sprintf(r.opts.Lang, "item %d: %s", k, reason), err, prefix(vs, fmt.Sprintf("/%d", k)))
				return
			}
			run.units[k] = &unit{nr: run, item: k, call: call}
		}
		r.scope.Item, r.scope.Index, r.scope.HasItem = nil, 0, false
	}
	run.left = len(run.units)
	if node.Foreach != nil {
		nr.Items = len(run.units)
		if resumed {
			r.reuseItems(run, prev)
			nr.ItemsDone = len(run.units) - run.left
		}
	}
	nr.Status, nr.Started = dag.NodeRunning, r.now()
	r.tracing.startNode(ctx, i, nr.Started)
	r.emit(NodeStarted, i)
	if run.left == 0 {
		// foreach over an empty list, or every item reused: nothing to run.
		r.combine(run)
		r.apply(ctx, run)
		return
	}
	r.release(run)
}

// call resolves node's `with` and input in the current scope and checks them. When they cannot
// be used it returns why, instead of a call.
func (r *runner) call(i int32, node *dag.Node) (*nodes.Call, string, error, []contract.Violation) {
	w, err := node.With.Eval(&r.scope)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "with could not be resolved: %v", err), err, nil
	}
	with, ok := w.(map[string]any)
	if !ok {
		return nil, i18n.Sprintf(r.opts.Lang, "with resolved to %s, not an object", jsonKind(r.opts.Lang, w)), nil, nil
	}
	// A literal `with` was checked against the config schema when the DAG loaded; only one
	// holding references can break it now.
	if _, literal := node.With.Literal(); !literal && node.Config != nil {
		if vs := node.Config.Validate(with, r.opts.Lang); len(vs) > 0 {
			return nil, i18n.Sprintf(r.opts.Lang, "with breaks the config schema of %s", node.Type.Name()), nil, vs
		}
	}
	input, err := r.input(i, node)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "input could not be resolved: %v", err), err, nil
	}
	if node.InputContract != nil && !(r.hosted != nil && r.hosted.refs && holdsRef(input)) {
		// (An input holding outputs by reference is checked where they are read: Attempt.)
		if vs := node.InputContract.ValidateInput(input, r.opts.Lang); len(vs) > 0 {
			return nil, i18n.Sprintf(r.opts.Lang, "input breaks its contract"), nil, vs
		}
	}
	return &nodes.Call{
		Node:        node.ID,
		With:        with,
		Input:       input,
		Dir:         r.d.Dir,
		OutputLimit: r.opts.OutputLimit,
		Secrets:     r.secrets,
		Lang:        r.opts.Lang,
	}, "", nil, nil
}

// guardedCall is call, with a panic while resolving or checking with and input failing the
// node rather than the process.
func (r *runner) guardedCall(i int32, node *dag.Node) (call *nodes.Call, reason string, err error, vs []contract.Violation) {
	perr := r.guard.call("with or input", func() { call, reason, err, vs = r.call(i, node) })
	if perr != nil {
		return nil, perr.Error(), perr, nil
	}
	return call, reason, err, vs
}

// items evaluates a foreach node's list, or says why it cannot be run over.
func (r *runner) items(node *dag.Node) ([]any, string) {
	v, err := node.Foreach.Eval(&r.scope)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach could not be resolved: %v", err)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach resolved to %s, not a list", jsonKind(r.opts.Lang, v))
	}
	if len(list) > node.MaxItems {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach has %d items, more than max_items (%d); raise max_items or split the list",
			len(list), node.MaxItems)
	}
	return list, ""
}

// input is node i's input: its `input` template resolved, or else an object of its
// dependencies' validated outputs keyed by id ({} when it has none).
func (r *runner) input(i int32, node *dag.Node) (any, error) {
	if node.Input != nil {
		return node.Input.Eval(&r.scope)
	}
	deps := r.graph.depsOf(i)
	in := make(map[string]any, len(deps))
	for _, j := range deps {
		// A dependency that failed its contract or did not run hands nothing on.
		if out := r.handed[j]; out != nil {
			in[r.d.Nodes[j].ID] = out
		}
	}
	return in, nil
}

// inputRefs are the references of node's input template; none for the default input, which
// leaves out an upstream that handed nothing on.
func inputRefs(node *dag.Node) []dag.Ref {
	if node.Input == nil {
		return nil
	}
	return node.Input.Refs()
}

// release queues the first attempts of a node's units, as many as its foreach concurrency
// allows (all of one for a plain node). Items a resume reused are done already.
func (r *runner) release(run *nodeRun) {
	limit := max(r.d.Nodes[run.idx].ForeachConcurrency, 1)
	for run.next < len(run.units) && run.active < limit {
		u := run.units[run.next]
		run.next++
		if !u.done {
			r.runnable = append(r.runnable, u)
			run.active++
		}
	}
}

// reuseItems settles the items of a resumed foreach node that passed or warned in the run
// being resumed, under the same key (so over the same list), with their stored outputs: only
// the other items run again.
func (r *runner) reuseItems(run *nodeRun, prev dag.Reused) {
	node := r.d.Nodes[run.idx]
	for k, u := range run.units {
		p, ok := prev.Items[k]
		if !ok || p.Key != run.key {
			continue
		}
		var out any
		var usable bool
		perr := r.guard.call("output validation", func() {
			var err error
			out, err = contract.ParseJSON(p.Output)
			usable = err == nil && len(node.Effective.Validate(out, r.opts.Lang)) == 0
		})
		obj, _ := out.(map[string]any)
		status := map[any]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned}[obj["status"]]
		if perr != nil || !usable || status == "" {
			continue // the item runs again, and says what is wrong if it still is
		}
		now := r.now()
		u.done, u.status, u.output, u.raw, u.valid = true, status, out, p.Output, true
		u.started, u.ended = now, now
		run.left--
		r.commits.record(dag.AttemptRecord{
			RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: k,
			Status: status, Reused: true, Key: p.Key, Output: p.Output, Started: now, Ended: now,
		})
	}
}

// combine builds a foreach node's output once every item has a final attempt: the standard
// output with data.items in input order (a failed item as a failing standard output that
// says why) and the worst of the items' statuses.
func (r *runner) combine(run *nodeRun) {
	node := r.d.Nodes[run.idx]
	items := make([]any, len(run.units))
	counts := map[dag.NodeStatus]int{}
	status := "pass"
	attempts := 0
	var vs []contract.Violation
	var first *unit // the first failed item, for the node's reason
	for k, u := range run.units {
		attempts = max(attempts, u.attempts)
		counts[u.status]++
		switch {
		case u.valid:
			items[k] = u.output
		default:
			reason := u.reason
			if reason == "" {
				reason = i18n.Sprintf(r.opts.Lang, "output breaks its contract")
			}
			items[k] = map[string]any{"status": "fail", "summary": reason}
			vs = append(vs, prefix(u.violations, fmt.Sprintf("/data/items/%d", k))...)
		}
		switch u.status {
		case dag.NodeFailed, dag.NodeCanceled:
			status = "fail"
			if first == nil {
				first = u
			}
		case dag.NodeWarned:
			if status == "pass" {
				status = "warn"
			}
		}
	}
	lang := r.opts.Lang
	summary := i18n.Plural(lang, len(run.units), "%d item", "%d items", len(run.units))
	if len(run.units) > 0 {
		summary += i18n.Sprintf(lang, ": %d passed", counts[dag.NodePassed])
		if n := counts[dag.NodeWarned]; n > 0 {
			summary += i18n.Sprintf(lang, ", %d warned", n)
		}
		if n := counts[dag.NodeFailed] + counts[dag.NodeCanceled]; n > 0 {
			summary += i18n.Sprintf(lang, ", %d failed", n)
		}
	}
	out := map[string]any{"status": status, "summary": summary, "data": map[string]any{"items": items}}
	raw, err := json.Marshal(out)
	if err != nil {
		// Items are decoded JSON, so this cannot happen; fail loudly rather than hand on nothing.
		panic(fmt.Sprintf("encode foreach output of %s: %v", node.ID, err))
	}
	c := &unit{nr: run, item: -1, attempts: attempts, done: true, output: out, raw: raw, valid: true,
		violations: vs, status: dag.NodeStatus(map[string]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned, "fail": dag.NodeFailed}[status])}
	if first != nil {
		// The item's attempts, not the node's: each item is tried on its own.
		why := first.reason
		if obj, ok := first.output.(map[string]any); ok && why == "" && first.valid {
			why, _ = obj["summary"].(string) // the item's own verdict: its status was fail
		}
		if why == "" {
			why = i18n.Sprintf(lang, "output breaks its contract")
		}
		c.reason = i18n.Sprintf(lang, "item %d failed after %d attempts: %s", first.item, first.attempts, why)
		if first.attempts == 1 {
			c.reason = i18n.Sprintf(lang, "item %d failed after 1 attempt: %s", first.item, why)
		}
		if first.status == dag.NodeCanceled {
			c.reason = i18n.Sprintf(lang, "item %d was canceled", first.item)
		}
	}
	if len(run.units) > 0 {
		c.started, c.ended = run.units[0].started, r.now()
	} else {
		c.started, c.ended = r.now(), r.now()
	}
	r.commits.record(dag.AttemptRecord{
		RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: attempts, Item: -1,
		Status: c.status, Final: true, Key: run.key, Output: raw, Violations: vs, Reason: c.reason,
		Started: c.started, Ended: c.ended,
	})
	run.units = append(run.units, c)
}

// prefix returns vs with p put before each pointer.
func prefix(vs []contract.Violation, p string) []contract.Violation {
	if len(vs) == 0 {
		return nil
	}
	out := make([]contract.Violation, len(vs))
	for i, v := range vs {
		v.Pointer = p + v.Pointer
		out[i] = v
	}
	return out
}

// key identifies what node i would run: its definition, the params it references, the
// outputs handed to it and the upstream statuses it reads. A resume reuses an output only
// under the same key.
func (r *runner) key(i int32) string {
	node := r.d.Nodes[i]
	h := sha256.New()
	h.Write([]byte(node.Hash))
	params := func(refs []dag.Ref) {
		for _, ref := range refs {
			switch ref.Root {
			case "params":
				h.Write([]byte(strings.Join(ref.Path, ".")))
				h.Write([]byte{0})
				// A param the node does not reference does not change what it runs.
				v, _ := contract.Lookup(r.scope.Params, ref.Path)
				b, _ := json.Marshal(v) // decoded JSON always encodes
				h.Write(b)
			case "env":
				// A new token or endpoint changes what the node does; its hash, not the
				// value, goes into the key, which the store keeps.
				sum := sha256.Sum256([]byte(r.scope.Env[ref.Path[0]]))
				h.Write([]byte("env." + ref.Path[0]))
				h.Write(sum[:])
			case "status":
				// Upstreams that handed nothing on hash alike whether they failed or were
				// skipped; a node reading their status tells them apart.
				st, _ := r.statusOf(ref.Node)
				h.Write([]byte("status." + ref.Node + "\x00" + string(st)))
			}
		}
	}
	for _, t := range []*dag.Template{node.With, node.Input, node.Foreach} {
		if t != nil {
			params(t.Refs())
		}
	}
	if node.When != nil {
		params(node.When.Refs())
	}
	for _, j := range r.graph.depsOf(i) {
		h.Write([]byte(r.d.Nodes[j].ID))
		h.Write([]byte{0})
		h.Write(r.handedHash[j][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// reuse settles node i with an earlier run's output, when that output still parses (and,
// for a plain node, still meets its contract). It reports whether it did.
func (r *runner) reuse(ctx context.Context, i int32, prev dag.Reused) bool {
	node := r.d.Nodes[i]
	var out any
	var usable bool
	perr := r.guard.call("output validation", func() {
		var err error
		out, err = contract.ParseJSON(prev.Output)
		usable = err == nil && (node.Foreach != nil || len(node.Effective.Validate(out, r.opts.Lang)) == 0)
	})
	if perr != nil || !usable {
		return false // the node runs again, and says what is wrong if it still is
	}
	obj, _ := out.(map[string]any)
	status := map[any]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned}[obj["status"]]
	if status == "" {
		return false // only passed outputs are reused
	}
	now := r.now()
	nr := &r.res.Nodes[i]
	nr.Started, nr.Ended, nr.Reused, nr.Output = now, now, true, out
	nr.Summary, _ = obj["summary"].(string)
	r.commits.record(dag.AttemptRecord{
		RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: -1,
		Status: status, Final: true, Reused: true, Key: prev.Key, Output: prev.Output,
		Started: now, Ended: now,
	})
	// The output is in the store already, from the run being resumed.
	r.hand(i, out, prev.Output, "")
	r.settle(i, status, "")
	return true
}

// jsonKind names the JSON type of a decoded value, for messages in lang.
func jsonKind(lang i18n.Lang, v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return i18n.Format(lang, "an object")
	case []any:
		return i18n.Format(lang, "an array")
	case string:
		return i18n.Format(lang, "a string")
	case bool:
		return i18n.Format(lang, "a boolean")
	default:
		return i18n.Format(lang, "a number")
	}
}
