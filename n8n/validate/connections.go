package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/catalog"
)

// connectionType reports n8n's connection types (NodeConnectionTypes of n8n-workflow).
func connectionType(t string) bool {
	switch t {
	case "main", "ai_agent", "ai_chain", "ai_document", "ai_embedding", "ai_languageModel", "ai_memory",
		"ai_outputParser", "ai_retriever", "ai_reranker", "ai_textSplitter", "ai_tool", "ai_vectorStore":
		return true
	}
	return false
}

// buildEdges reads the connections object into edges, reporting what n8n cannot follow:
// unknown sources and targets (and node ids used for names), keys that are not connection
// types, malformed entries.
func (c *checker) buildEdges() {
	for _, n := range c.nodes {
		if n.def != nil {
			n.inputs, n.inKnown = n.def.ResolveInputs(n.version, n.params)
			n.outputs, n.outKnown = n.def.ResolveOutputs(n.version, n.params)
		}
	}
	report := c.opts.Connections
	add := func(is issue) {
		if report {
			c.add(is)
		}
	}
	for _, srcName := range sortedKeys(c.wfConnections) {
		src := c.byName[srcName]
		if src == nil {
			c.stats.InvalidConnections += countTargets(c.wfConnections[srcName])
			if byID := c.byID[srcName]; byID != nil && byID.name != "" {
				add(issue{code: "CONNECTION_SOURCE_IS_ID", node: byID, args: []any{srcName}, fixArgs: []any{srcName, byID.name}})
			} else {
				add(issue{code: "CONNECTION_SOURCE_UNKNOWN", args: []any{srcName}, fixArgs: []any{srcName}})
			}
			continue
		}
		outs, ok := c.wfConnections[srcName].(map[string]any)
		if !ok {
			add(issue{code: "CONNECTION_MALFORMED", node: src, args: []any{srcName, i18n.Sprintf(c.opts.Lang, "must be an object of connection types, got %s", jsonKind(c.wfConnections[srcName]))}})
			continue
		}
		for _, key := range sortedKeys(outs) {
			if !connectionType(key) {
				c.stats.InvalidConnections += countTargets(outs[key])
				fix := i18n.Sprintf(c.opts.Lang, "put the connections under \"main\" (or an ai_* type): connections[%q].main[OUTPUT]", srcName)
				add(issue{code: "UNKNOWN_CONNECTION_KEY", node: src, args: []any{srcName, key}, fixArgs: []any{fix}})
				continue
			}
			slots, ok := outs[key].([]any)
			if !ok {
				add(issue{code: "CONNECTION_MALFORMED", node: src, args: []any{srcName, i18n.Sprintf(c.opts.Lang, "%s must be an array of outputs, got %s", key, jsonKind(outs[key]))}})
				continue
			}
			for outIdx, slot := range slots {
				if slot == nil {
					continue
				}
				targets, ok := slot.([]any)
				if !ok {
					add(issue{code: "CONNECTION_MALFORMED", node: src, args: []any{srcName, i18n.Sprintf(c.opts.Lang, "%s[%d] must be an array of connections, got %s", key, outIdx, jsonKind(slot))}})
					continue
				}
				for _, t := range targets {
					if e := c.target(src, key, outIdx, t, add); e != nil {
						c.edges = append(c.edges, e)
						src.out = append(src.out, e)
						e.to.in = append(e.to.in, e)
						src.connected, e.to.connected = true, true
					} else {
						c.stats.InvalidConnections++
					}
				}
			}
		}
	}
}

func countTargets(v any) int {
	k := 0
	switch x := v.(type) {
	case map[string]any:
		for _, s := range x {
			k += countTargets(s)
		}
	case []any:
		for _, s := range x {
			if m, ok := s.(map[string]any); ok {
				if _, hasNode := m["node"]; hasNode {
					k++
				}
				continue
			}
			k += countTargets(s)
		}
	}
	return k
}

// target reads one connection entry.
func (c *checker) target(src *node, key string, outIdx int, t any, add func(issue)) *edge {
	m, ok := t.(map[string]any)
	if !ok {
		add(issue{code: "CONNECTION_MALFORMED", node: src, args: []any{src.name, i18n.Sprintf(c.opts.Lang, "%s[%d] holds %s instead of a connection object", key, outIdx, jsonKind(t))}})
		return nil
	}
	name, _ := m["node"].(string)
	to := c.byName[name]
	if to == nil {
		if byID := c.byID[name]; byID != nil && byID.name != "" {
			add(issue{code: "CONNECTION_TARGET_IS_ID", node: src, args: []any{src.name, name}, fixArgs: []any{byID.name}})
		} else {
			add(issue{code: "CONNECTION_TARGET_UNKNOWN", node: src, args: []any{src.name, name}, fixArgs: []any{c.refFix(name)}})
		}
		return nil
	}
	inType, _ := m["type"].(string)
	if inType != key {
		add(issue{code: "CONNECTION_TYPE_MISMATCH", node: src, args: []any{key, src.name, name, inType}, fixArgs: []any{key}})
		return nil
	}
	idx, isNum := number(m["index"])
	if _, present := m["index"]; !present {
		idx, isNum = 0, true
	}
	if !isNum || idx < 0 || idx != float64(int(idx)) {
		add(issue{code: "CONNECTION_MALFORMED", node: src, args: []any{src.name, i18n.Sprintf(c.opts.Lang, "the connection to %q has index %s; it must be a whole number from 0", name, describe(m["index"]))}})
		return nil
	}
	return &edge{from: src, outType: key, outIdx: outIdx, to: to, inType: inType, inIdx: int(idx)}
}

// connections checks each edge against its nodes' ports, then the graph.
func (c *checker) connections() {
	bad := map[*edge]bool{}
	for _, e := range c.edges {
		if !c.checkEdge(e) {
			bad[e] = true
		}
	}
	c.stats.ValidConnections = len(c.edges) - len(bad)
	c.stats.InvalidConnections += len(bad)
	c.errorOutputs()
	c.inputCounts()
	c.reachability()
	c.cycles()
}

// portsOf returns how many of ports have type t, and those ports.
func portsOf(ports []catalog.Port, _ bool, t string) (int, []catalog.Port) {
	var ps []catalog.Port
	for _, p := range ports {
		if p.Type == t {
			ps = append(ps, p)
		}
	}
	return len(ps), ps
}

// hasType reports whether a node's ports (or, when computed, its expression's types) have
// type t; sure is false when that cannot be told (an unknown node type).
func hasType(n *node, t string, in bool) (has, sure bool) {
	if n.def == nil {
		return true, false
	}
	ports, known, dyn := n.outputs, n.outKnown, n.def.DynOutputs
	if in {
		ports, known, dyn = n.inputs, n.inKnown, n.def.DynInputs
	}
	if known {
		for _, p := range ports {
			if p.Type == t {
				return true, true
			}
		}
		return false, true
	}
	if len(dyn) == 0 {
		return true, false // an expression that names no type: cannot tell
	}
	for _, d := range dyn {
		if d == t {
			return true, true
		}
	}
	return false, true
}

func typesText(n *node, in bool) string {
	ports, dyn := n.outputs, n.def.DynOutputs
	if in {
		ports, dyn = n.inputs, n.def.DynInputs
	}
	seen := map[string]bool{}
	var ts []string
	for _, p := range ports {
		if !seen[p.Type] {
			seen[p.Type] = true
			ts = append(ts, p.Type)
		}
	}
	if ports == nil {
		ts = append(ts, dyn...)
	}
	if len(ts) == 0 {
		return "none"
	}
	return strings.Join(ts, ", ")
}

// checkEdge checks one connection against the source's outputs and the target's inputs.
func (c *checker) checkEdge(e *edge) bool {
	src, dst := e.from, e.to
	if has, sure := hasType(src, e.outType, false); sure && !has {
		c.add(issue{code: "SOURCE_HAS_NO_OUTPUT_TYPE", node: src, args: []any{src.name, e.outType, typesText(src, false)}, fixArgs: []any{src.name, typesText(src, false)}})
		return false
	}
	if has, sure := hasType(dst, e.inType, true); sure && !has {
		var fix string
		switch {
		case e.inType == "main" && dst.def.IsSubNode():
			fix = i18n.Sprintf(c.opts.Lang, "%q is a sub-node: connect it from its %s output to the node that uses it", dst.name, typesText(dst, false))
		case e.inType == "main" && dst.trigger:
			fix = i18n.Sprintf(c.opts.Lang, "%q is a trigger and has no input: connect from it instead", dst.name)
		default:
			fix = i18n.Sprintf(c.opts.Lang, "connect %q to a node that takes %s (its inputs: %s)", src.name, e.inType, typesText(dst, true))
		}
		c.add(issue{code: "TARGET_HAS_NO_INPUT_TYPE", node: dst, args: []any{dst.name, e.inType, src.name}, fixArgs: []any{fix}})
		return false
	}
	if src.def != nil && src.outKnown {
		k := src.mainOutputs(e.outType)
		if e.outType == "main" && src.onError == "continueErrorOutput" {
			k++
		}
		if e.outIdx >= k {
			if e.outType == "main" && e.outIdx == k && src.onError != "continueErrorOutput" {
				// n8n's error output slot, without onError: dropped, not broken (#620).
				c.add(issue{code: "ERROR_OUTPUT_WITHOUT_ON_ERROR", node: src, args: []any{src.name, e.outIdx}, fixArgs: []any{src.name}})
				return false
			}
			c.add(issue{code: "OUTPUT_INDEX_OUT_OF_RANGE", node: src, args: []any{src.name, k, e.outType, e.outIdx}, fixArgs: []any{c.outputFix(src, k)},
				details: map[string]any{"outputs": k, "index": e.outIdx, "outputNames": src.def.OutputNames}})
			return false
		}
	}
	if dst.def != nil && dst.inKnown {
		k, _ := portsOf(dst.inputs, true, e.inType)
		if e.inIdx >= k {
			fix := i18n.Sprintf(c.opts.Lang, "connect to an input from 0 to %d", k-1)
			if catalog.ShortType(dst.typ) == "merge" {
				fix = i18n.Sprintf(c.opts.Lang, "set parameters.numberInputs to %d on %q, or connect to an input from 0 to %d", e.inIdx+1, dst.name, k-1)
			}
			c.add(issue{code: "INPUT_INDEX_OUT_OF_RANGE", node: dst, args: []any{dst.name, k, e.inType, src.name, e.inIdx}, fixArgs: []any{fix}})
			return false
		}
	}
	return true
}

func (c *checker) outputFix(n *node, k int) string {
	switch catalog.ShortType(n.typ) {
	case "switch":
		return i18n.Sprintf(c.opts.Lang, "add a rule for each output (rules.values), or set options.fallbackOutput to \"extra\" for a fallback output")
	case "if":
		return i18n.Sprintf(c.opts.Lang, "IF has two outputs: main[0] true, main[1] false")
	case "splitInBatches":
		if len(n.def.OutputNames) == 2 {
			return i18n.Sprintf(c.opts.Lang, "this version's outputs are main[0] %s and main[1] %s", n.def.OutputNames[0], n.def.OutputNames[1])
		}
	}
	if n.onError != "continueErrorOutput" {
		return i18n.Sprintf(c.opts.Lang, "connect from an output from 0 to %d, or set onError: continueErrorOutput for an error output", k-1)
	}
	return i18n.Sprintf(c.opts.Lang, "connect from an output from 0 to %d", k-1)
}

// errorOutputs: a node with onError continueErrorOutput whose error output leads nowhere.
func (c *checker) errorOutputs() {
	for _, n := range c.nodes {
		if n.onError != "continueErrorOutput" || n.def == nil || !n.outKnown || n.disabled {
			continue
		}
		k := n.mainOutputs("main")
		wired := false
		for _, e := range n.out {
			if e.outType == "main" && e.outIdx == k {
				wired = true
			}
		}
		if !wired {
			c.add(issue{code: "ERROR_OUTPUT_UNCONNECTED", node: n, args: []any{k}, fixArgs: []any{k}})
		}
	}
}

// inputCounts: maxConnections exceeded, required ai inputs missing. The AI agent's own
// checks (agents) say it in their words, so they are skipped here.
func (c *checker) inputCounts() {
	for _, n := range c.nodes {
		if n.def == nil || !n.inKnown || n.disabled || isAgent(n) {
			continue
		}
		byType := map[string]int{}
		for _, e := range n.in {
			byType[e.inType]++
		}
		seen := map[string]bool{}
		for _, p := range n.inputs {
			if p.Type == "main" || seen[p.Type] {
				continue
			}
			seen[p.Type] = true
			_, ps := portsOf(n.inputs, true, p.Type)
			max, required := 0, false
			for _, q := range ps {
				if q.Max == 0 {
					max = -1
				} else if max >= 0 {
					max += q.Max
				}
				required = required || q.Required
			}
			if got := byType[p.Type]; max > 0 && got > max {
				c.add(issue{code: "TOO_MANY_CONNECTIONS", node: n, args: []any{n.name, max, p.Type, got}, fixArgs: []any{p.Type, n.name}})
			}
			if required && byType[p.Type] == 0 {
				name := p.Name
				if name == "" {
					name = p.Type
				}
				c.add(issue{code: "REQUIRED_INPUT_MISSING", node: n, args: []any{n.name, p.Type, name}, fixArgs: []any{p.Type, n.name}})
			}
		}
	}
}

// reachability: from the triggers, following main connections forward and ai_* connections
// backward (a sub-node serves the node it connects to), which nodes run.
func (c *checker) reachability() {
	var triggers []*node
	active := 0
	for _, n := range c.nodes {
		if n.sticky || n.disabled {
			continue
		}
		active++
		if n.trigger {
			triggers = append(triggers, n)
		}
	}
	if len(triggers) == 0 {
		if active > 0 {
			c.add(issue{code: "NO_TRIGGER"})
		}
		// Without a trigger (a sub-workflow run by hand), only fully isolated nodes are reported.
		if active > 1 {
			for _, n := range c.nodes {
				if !n.sticky && !n.disabled && !n.connected {
					c.add(issue{code: "DISCONNECTED_NODE", node: n})
				}
			}
		}
		return
	}
	seen := make([]bool, len(c.nodes))
	queue := append([]*node(nil), triggers...)
	for _, t := range triggers {
		seen[t.idx] = true
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		var next []*node
		for _, e := range n.out {
			if e.outType == "main" {
				next = append(next, e.to)
			}
		}
		for _, e := range n.in {
			if e.inType != "main" {
				next = append(next, e.from)
			}
		}
		// A trigger fed by sub-nodes (MCP Server Trigger's tools) serves them too.
		for _, m := range next {
			if !seen[m.idx] {
				seen[m.idx] = true
				queue = append(queue, m)
			}
		}
	}
	for _, n := range c.nodes {
		if n.sticky || n.disabled || seen[n.idx] {
			continue
		}
		if !n.connected && active > 1 {
			c.add(issue{code: "DISCONNECTED_NODE", node: n})
			continue
		}
		c.add(issue{code: "UNREACHABLE_NODE", node: n})
	}
}

// cycles: loops of main connections that nothing leaves. A loop with a node that can send
// items elsewhere (IF, Switch, Loop Over Items, or any node with a connection out of the
// loop) has an exit.
func (c *checker) cycles() {
	// Tarjan's strongly connected components, over slices indexed by node position.
	index := make([]int, len(c.nodes))
	low := make([]int, len(c.nodes))
	on := make([]bool, len(c.nodes))
	for i := range index {
		index[i] = -1
	}
	var stack []*node
	next := 0
	var sccs [][]*node
	var strong func(v *node)
	strong = func(v *node) {
		index[v.idx], low[v.idx] = next, next
		next++
		stack = append(stack, v)
		on[v.idx] = true
		for _, e := range v.out {
			if e.outType != "main" {
				continue
			}
			w := e.to
			if index[w.idx] < 0 {
				strong(w)
				low[v.idx] = min(low[v.idx], low[w.idx])
			} else if on[w.idx] {
				low[v.idx] = min(low[v.idx], index[w.idx])
			}
		}
		if low[v.idx] == index[v.idx] {
			var scc []*node
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w.idx] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			sccs = append(sccs, scc)
		}
	}
	for _, n := range c.nodes {
		if index[n.idx] < 0 {
			strong(n)
		}
	}
	for _, scc := range sccs {
		if len(scc) == 1 && !selfLoop(scc[0]) {
			continue
		}
		if len(scc) > 1 {
			sort.Slice(scc, func(i, j int) bool { return scc[i].idx < scc[j].idx })
		}
		in := map[*node]bool{}
		for _, n := range scc {
			in[n] = true
		}
		exit := false
		for _, n := range scc {
			if loopNode(n) {
				exit = true
			}
			for _, e := range n.out {
				if e.outType == "main" && !in[e.to] {
					exit = true
				}
			}
		}
		if exit {
			continue
		}
		names := make([]string, len(scc))
		for i, n := range scc {
			names[i] = fmt.Sprintf("%q", n.name)
		}
		sort.Strings(names)
		c.add(issue{code: "CYCLE_WITHOUT_EXIT", node: scc[0], args: []any{strings.Join(names, ", ")}})
	}
}

func selfLoop(n *node) bool {
	for _, e := range n.out {
		if e.to == n && e.outType == "main" {
			return true
		}
	}
	return false
}

// loopNode: a node that decides which way items go, so a loop through it can end.
func loopNode(n *node) bool {
	switch catalog.ShortType(n.typ) {
	case "splitInBatches", "if", "switch", "filter", "wait", "stopAndError", "limit", "removeDuplicates":
		return true
	}
	return false
}

// mainOutputs counts a node's outputs of type t. Where the static description names more
// outputs than it lists (Filter, Remove Duplicates: Kept, Discarded), the names count: an
// index n8n's editor can show is never reported.
func (n *node) mainOutputs(t string) int {
	k, _ := portsOf(n.outputs, true, t)
	if t == "main" && n.def.DynOutputs == nil && len(n.def.OutputNames) > k && len(n.outputs) == len(n.def.Outputs) {
		k = len(n.def.OutputNames)
	}
	return k
}
