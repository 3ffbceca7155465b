package catalog

import "strings"

// The hand-written rules for nodes whose inputs or outputs n8n computes from an expression
// over their parameters: every such rule is in this file. A rule returns known=false when
// the parameters do not decide (an expression where a count should be); the validator then
// checks only the connection types the expression can produce (Node.DynInputs/DynOutputs).

type portsRule func(n *Node, version float64, params map[string]any) (ports []Port, known bool)

// inputRule and outputRule return the rule of typ; nil means the catalog's ports are used.
func inputRule(typ string) portsRule {
	switch typ {
	case BasePrefix + "merge":
		return mergeInputs
	case LangchainPrefix + "agent":
		return agentInputs(true)
	case LangchainPrefix + "agentTool":
		return agentInputs(false)
	case LangchainPrefix + "chainLlm":
		return chainLlmInputs
	}
	return nil
}

func outputRule(typ string) portsRule {
	switch typ {
	case BasePrefix + "switch":
		return switchOutputs
	case BasePrefix + "webhook":
		return webhookOutputs
	case BasePrefix + "respondToWebhook":
		return respondOutputs
	case LangchainPrefix + "textClassifier":
		return classifierOutputs
	}
	return nil
}

// Inputs returns the node's inputs at version with params; known is false when they cannot
// be told without running n8n's expression.
func (n *Node) ResolveInputs(version float64, params map[string]any) ([]Port, bool) {
	if r := inputRule(n.Type); r != nil {
		return r(n, version, params)
	}
	return n.Inputs, n.DynInputs == nil
}

// ResolveOutputs is ResolveInputs for outputs.
func (n *Node) ResolveOutputs(version float64, params map[string]any) ([]Port, bool) {
	if r := outputRule(n.Type); r != nil {
		return r(n, version, params)
	}
	return n.Outputs, n.DynOutputs == nil
}

func mains(k int) []Port {
	ps := make([]Port, k)
	for i := range ps {
		ps[i] = Port{Type: "main"}
	}
	return ps
}

// Merge v3+: numberInputs (default 2) main inputs; earlier versions are static.
func mergeInputs(n *Node, _ float64, p map[string]any) ([]Port, bool) {
	if n.DynInputs == nil {
		return n.Inputs, true
	}
	v, ok := p["numberInputs"]
	if !ok {
		return mains(2), true
	}
	k, isNum := count(v)
	if !isNum || k < 1 {
		return nil, false
	}
	return mains(k), true
}

// Switch v1 is static; v2 and v3 have one output per rule, or numberOutputs (v2:
// outputsAmount) in expression mode; v3 adds the fallback output when fallbackOutput is
// "extra". The rules are under rules.values from v3, rules.rules in v2.
func switchOutputs(n *Node, version float64, p map[string]any) ([]Port, bool) {
	if n.DynOutputs == nil {
		return n.Outputs, true
	}
	mode, _ := stringParam(n, p, "mode")
	if isExpr(mode) {
		return nil, false
	}
	if mode == "expression" {
		key := "numberOutputs"
		if version < 3 {
			key = "outputsAmount"
		}
		v, ok := p[key]
		if !ok {
			v = defaultOf(n, key)
		}
		k, isNum := count(v)
		if !isNum {
			return nil, false
		}
		return mains(k), true
	}
	if mode != "rules" {
		return nil, false
	}
	listKey := "values"
	if version < 3 {
		listKey = "rules"
	}
	rules, _ := p["rules"].(map[string]any)
	var k int
	if rules != nil {
		list, ok := rules[listKey].([]any)
		if !ok && rules[listKey] != nil {
			return nil, false
		}
		k = len(list)
	}
	if version >= 3 {
		opts, _ := p["options"].(map[string]any)
		if fb, _ := opts["fallbackOutput"].(string); fb == "extra" {
			k++
		} else if isExpr(fb) {
			return nil, false
		}
	}
	return mains(k), true
}

// Webhook: one output per HTTP method when it accepts several, else one.
func webhookOutputs(_ *Node, _ float64, p map[string]any) ([]Port, bool) {
	if ms, ok := p["httpMethod"].([]any); ok {
		return mains(len(ms)), true
	}
	return mains(1), true
}

// Respond to Webhook: a second output (the response) at 1.3, and from 1.4 when
// enableResponseOutput is on.
func respondOutputs(_ *Node, version float64, p map[string]any) ([]Port, bool) {
	if sameVersion(version, 1.3) {
		return mains(2), true
	}
	if version >= 1.4 {
		switch v := p["enableResponseOutput"].(type) {
		case bool:
			if v {
				return mains(2), true
			}
		case string:
			return nil, false
		}
	}
	return mains(1), true
}

// Text Classifier: one output per category, plus "Other" when options.fallback is "other".
func classifierOutputs(_ *Node, _ float64, p map[string]any) ([]Port, bool) {
	cats, _ := p["categories"].(map[string]any)
	list, _ := cats["categories"].([]any)
	k := len(list)
	opts, _ := p["options"].(map[string]any)
	if fb, _ := opts["fallback"].(string); fb == "other" {
		k++
	} else if isExpr(fb) {
		return nil, false
	}
	return mains(k), true
}

// AI Agent (v2+; agentTool without the main input): a chat model (a second one as fallback
// when needsFallback), at most one memory, tools, and an output parser when hasOutputParser.
// An absent hasOutputParser is read as true, as n8n's expression does. Version 1 chooses its
// inputs by agent kind: left to the expression's types.
func agentInputs(main bool) portsRule {
	return func(n *Node, version float64, p map[string]any) ([]Port, bool) {
		if main && version < 2 {
			return nil, false
		}
		var ps []Port
		if main {
			ps = append(ps, Port{Type: "main"})
		}
		ps = append(ps, Port{Type: "ai_languageModel", Name: "Chat Model", Required: true, Max: 1})
		fb, fbSet := p["needsFallback"]
		if b, _ := fb.(bool); b {
			ps = append(ps, Port{Type: "ai_languageModel", Name: "Fallback Model", Required: true, Max: 1})
		} else if fbSet && !isBool(fb) {
			return nil, false
		}
		ps = append(ps, Port{Type: "ai_memory", Name: "Memory", Max: 1}, Port{Type: "ai_tool", Name: "Tool"})
		op, opSet := p["hasOutputParser"]
		if b, isB := op.(bool); !opSet || (isB && b) {
			ps = append(ps, Port{Type: "ai_outputParser", Name: "Output Parser", Max: 1})
		} else if !isB {
			return nil, false
		}
		return ps, true
	}
}

// Basic LLM Chain: main, a model (and a fallback model), an output parser unless
// hasOutputParser is false.
func chainLlmInputs(n *Node, _ float64, p map[string]any) ([]Port, bool) {
	if n.DynInputs == nil {
		return n.Inputs, true
	}
	ps := []Port{{Type: "main"}, {Type: "ai_languageModel", Name: "Model", Required: true, Max: 1}}
	if b, _ := p["needsFallback"].(bool); b {
		ps = append(ps, Port{Type: "ai_languageModel", Name: "Fallback Model", Required: true, Max: 1})
	}
	op, opSet := p["hasOutputParser"]
	if b, isB := op.(bool); !opSet || (isB && b) {
		ps = append(ps, Port{Type: "ai_outputParser", Name: "Output Parser", Max: 1})
	} else if !isB {
		return nil, false
	}
	return ps, true
}

// ---- helpers ----

func isExpr(s string) bool { return strings.HasPrefix(s, "=") }

func isBool(v any) bool { _, ok := v.(bool); return ok }

// maxPorts bounds a computed port count: more is not a workflow n8n can draw, and would
// only cost memory here.
const maxPorts = 1000

// count reads a whole number of ports; an expression or anything else is not one.
func count(v any) (int, bool) {
	f, ok := num(v)
	if !ok || f != float64(int(f)) || f < 0 || f > maxPorts {
		return 0, false
	}
	return int(f), true
}

func defaultOf(n *Node, name string) any {
	if p := n.Prop(name); p != nil {
		return p.Default
	}
	return nil
}

func stringParam(n *Node, p map[string]any, name string) (string, bool) {
	v, ok := p[name]
	if !ok {
		v = defaultOf(n, name)
	}
	s, isStr := v.(string)
	return s, isStr
}
