package validate

import (
	"strings"

	"github.com/seam-dag/seam/n8n/catalog"
)

func isAgent(n *node) bool {
	return n.typ == catalog.LangchainPrefix+"agent" || n.typ == catalog.LangchainPrefix+"agentTool"
}

// isPromptNode: nodes whose parameters.text is the prompt.
func isPromptNode(n *node) bool {
	return isAgent(n) || n.typ == catalog.LangchainPrefix+"chainLlm"
}

// kind names the node's type for a message: "AI Agent".
func (c *checker) kind(n *node) string {
	if n.def != nil && n.def.DisplayName != "" {
		return n.def.DisplayName
	}
	return catalog.ShortType(n.typ)
}

// patterns: webhook response modes against the Respond to Webhook nodes after them, and
// (ai-friendly, strict) error handling.
func (c *checker) patterns() {
	for _, n := range c.nodes {
		if n.disabled || n.typ != catalog.BasePrefix+"webhook" {
			continue
		}
		mode := "onReceived"
		if v, ok := n.params["responseMode"].(string); ok {
			mode = v
		}
		if isExprValue(mode) {
			continue
		}
		respond := c.descendant(n, catalog.BasePrefix+"respondToWebhook")
		switch {
		case mode == "responseNode" && respond == nil:
			c.add(issue{code: "WEBHOOK_RESPONSE_NODE_MISSING", node: n, fixArgs: []any{n.name}})
		case respond != nil && mode != "responseNode" && mode != "streaming":
			c.add(issue{code: "RESPOND_TO_WEBHOOK_UNUSED", node: n, args: []any{respond.name, mode}, fixArgs: []any{n.name, respond.name}})
		}
	}
	c.errorHandling()
}

// descendant returns a node of type typ that main connections lead to from n.
func (c *checker) descendant(n *node, typ string) *node {
	seen := map[*node]bool{n: true}
	queue := []*node{n}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range x.out {
			if e.outType != "main" || seen[e.to] {
				continue
			}
			if e.to.typ == typ {
				return e.to
			}
			seen[e.to] = true
			queue = append(queue, e.to)
		}
	}
	return nil
}

func (c *checker) errorHandling() {
	if s, _ := c.wfSettings["errorWorkflow"].(string); s != "" {
		return
	}
	active := 0
	for _, n := range c.nodes {
		if n.sticky || n.disabled {
			continue
		}
		active++
		if n.onError == "continueErrorOutput" || n.onError == "continueRegularOutput" {
			return
		}
		if b, _ := n.raw["continueOnFail"].(bool); b {
			return
		}
		if catalog.ShortType(n.typ) == "errorTrigger" {
			return
		}
	}
	if active >= 3 {
		c.add(issue{code: "NO_ERROR_HANDLING"})
	}
}

// agents checks AI Agent nodes: one language model (two with needsFallback), at most one
// memory, an output parser only when enabled, the system message where n8n reads it
// (options.systemMessage), tools with descriptions, streaming with the trigger.
func (c *checker) agents() {
	streaming := map[*node]*node{} // agent → streaming trigger
	for _, n := range c.nodes {
		if n.disabled || !c.streams(n) {
			continue
		}
		c.forEachDescendant(n, func(d *node) {
			if isAgent(d) {
				streaming[d] = n
			}
		})
	}
	for _, n := range c.nodes {
		if n.disabled || !isAgent(n) || n.def == nil {
			continue
		}
		count := map[string][]*node{}
		for _, e := range n.in {
			count[e.inType] = append(count[e.inType], e.from)
		}
		kind := c.kind(n)
		models := len(count["ai_languageModel"])
		allowed := 1
		if b, _ := n.params["needsFallback"].(bool); b {
			allowed = 2
		}
		switch {
		case models == 0:
			c.add(issue{code: "AI_LANGUAGE_MODEL_MISSING", node: n, args: []any{kind}, fixArgs: []any{n.name}})
		case models > allowed:
			c.add(issue{code: "AI_TOO_MANY_LANGUAGE_MODELS", node: n, args: []any{kind, models, allowed}})
		}
		if k := len(count["ai_memory"]); k > 1 {
			c.add(issue{code: "AI_TOO_MANY_MEMORIES", node: n, args: []any{kind, k}, fixArgs: []any{n.name}})
		}
		if ps := count["ai_outputParser"]; len(ps) > 0 && n.version >= 1.3 {
			if b, _ := n.params["hasOutputParser"].(bool); !b {
				c.add(issue{code: "AI_OUTPUT_PARSER_DISABLED", node: n, args: []any{ps[0].name, kind}, fixArgs: []any{n.name}})
			}
		}
		c.systemMessage(n, kind)
		for _, t := range count["ai_tool"] {
			c.toolDescription(t)
		}
		if trig := streaming[n]; trig != nil && n.version >= 2.1 {
			opts, _ := n.params["options"].(map[string]any)
			if b, isB := opts["enableStreaming"].(bool); isB && !b {
				c.add(issue{code: "AI_STREAMING_DISABLED", node: n, args: []any{trig.name, kind}, fixArgs: []any{n.name}})
			}
		}
	}
}

func (c *checker) systemMessage(n *node, kind string) {
	if _, top := n.params["systemMessage"]; top && n.def.Prop("systemMessage") == nil {
		c.add(issue{code: "AI_SYSTEM_MESSAGE_MISPLACED", node: n, args: []any{kind}})
		return
	}
	// Version 1 agents other than the tools and conversational kinds have no system message.
	if n.version < 1.6 {
		kindParam, _ := n.params["agent"].(string)
		if kindParam == "" {
			kindParam = "conversationalAgent"
		}
		if kindParam != "toolsAgent" && kindParam != "conversationalAgent" && kindParam != "openAiFunctionsAgent" {
			return
		}
	}
	opts, _ := n.params["options"].(map[string]any)
	if s, _ := opts["systemMessage"].(string); strings.TrimSpace(strings.TrimPrefix(s, "=")) == "" {
		c.add(issue{code: "AI_SYSTEM_MESSAGE_MISSING", node: n, args: []any{kind}})
	}
}

// toolDescription: the description the agent reads to choose the tool.
func (c *checker) toolDescription(t *node) {
	if t.def == nil || t.disabled {
		return
	}
	key := ""
	switch {
	case t.def.ToolOf != "":
		if dt, _ := t.params["descriptionType"].(string); dt != "manual" {
			return // n8n writes the description from the node's parameters
		}
		key = "toolDescription"
	case t.typ == catalog.LangchainPrefix+"toolCode" || t.typ == catalog.LangchainPrefix+"toolWorkflow":
		key = "description"
	case t.typ == catalog.LangchainPrefix+"toolHttpRequest":
		key = "toolDescription"
	default:
		return
	}
	if v, ok := t.params[key]; !ok || empty(v) {
		c.add(issue{code: "AI_TOOL_DESCRIPTION_MISSING", node: t, fixArgs: []any{key}})
	}
}

// streams: a trigger that streams its response (Chat Trigger's or Webhook's responseMode).
func (c *checker) streams(n *node) bool {
	switch n.typ {
	case catalog.BasePrefix + "webhook":
		m, _ := n.params["responseMode"].(string)
		return m == "streaming"
	case catalog.LangchainPrefix + "chatTrigger":
		opts, _ := n.params["options"].(map[string]any)
		m, _ := opts["responseMode"].(string)
		return m == "streaming"
	}
	return false
}

func (c *checker) forEachDescendant(n *node, f func(*node)) {
	seen := map[*node]bool{n: true}
	queue := []*node{n}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range x.out {
			if e.outType == "main" && !seen[e.to] {
				seen[e.to] = true
				f(e.to)
				queue = append(queue, e.to)
			}
		}
	}
}
