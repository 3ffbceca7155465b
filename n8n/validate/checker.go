package validate

import (
	"fmt"
	"math"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
	"github.com/seam-dag/seam/n8n/catalog"
)

// checker holds one validation's state.
type checker struct {
	opts   Options
	cat    *catalog.Catalog
	issues []Issue
	advice []string
	stats  Statistics

	nodes  []*node
	byName map[string]*node
	byID   map[string]*node
	edges  []*edge
	// wfConnections and wfSettings are the workflow's, as given.
	wfConnections map[string]any
	wfSettings    map[string]any
}

// node is a workflow node as the checks see it.
type node struct {
	idx        int
	raw        map[string]any
	name, id   string
	typ        string
	version    float64
	hasVersion bool
	params     map[string]any
	disabled   bool
	sticky     bool
	def        *catalog.Node // nil when the type is unknown
	onError    string
	trigger    bool

	inputs, outputs   []catalog.Port
	inKnown, outKnown bool
	in, out           []*edge
	connected         bool // has a valid connection, in or out
}

// edge is one valid connection.
type edge struct {
	from    *node
	outType string
	outIdx  int
	to      *node
	inType  string
	inIdx   int
}

// issue is a finding before it is rendered.
type issue struct {
	code    string
	node    *node
	args    []any
	fixArgs []any
	details map[string]any
}

func (c *checker) profileIndex() int {
	switch c.opts.Profile {
	case Minimal:
		return 0
	case AIFriendly:
		return 2
	case Strict:
		return 3
	}
	return 1
}

// add reports is with the severity its code has in the profile.
func (c *checker) add(is issue) {
	r := ruleOf(is.code)
	s := r.sev[c.profileIndex()]
	if s == off {
		return
	}
	out := Issue{Code: is.code, Message: i18n.Sprintf(c.opts.Lang, r.msg, is.args...), Details: is.details}
	if r.fix != "" {
		fa := is.fixArgs
		if fa == nil && strings.Contains(r.fix, "%") {
			fa = is.args
		}
		out.Fix = i18n.Sprintf(c.opts.Lang, r.fix, fa...)
	}
	if s == fail {
		out.Type = "error"
	} else {
		out.Type = "warning"
	}
	if is.node != nil {
		out.NodeID, out.NodeName = is.node.id, is.node.name
	}
	c.issues = append(c.issues, out)
}

// ---- structure ----

func (c *checker) structure(wf *Workflow) {
	c.byName = make(map[string]*node, len(wf.Nodes))
	c.byID = make(map[string]*node, len(wf.Nodes))
	c.wfConnections, c.wfSettings = wf.Connections, wf.Settings
	if len(wf.Nodes) == 0 {
		c.add(issue{code: "EMPTY_WORKFLOW"})
		return
	}
	for i, raw := range wf.Nodes {
		n := &node{idx: i, raw: raw}
		n.name, _ = raw["name"].(string)
		n.id = idString(raw["id"])
		n.typ, _ = raw["type"].(string)
		n.disabled, _ = raw["disabled"].(bool)
		n.sticky = n.typ == catalog.BasePrefix+"stickyNote"
		n.onError, _ = raw["onError"].(string)
		if p, ok := raw["parameters"].(map[string]any); ok {
			n.params = p
		} else {
			n.params = map[string]any{}
		}
		c.nodes = append(c.nodes, n)
		if strings.TrimSpace(n.name) == "" {
			c.add(issue{code: "NODE_NAME_MISSING", node: n, args: []any{i}})
		} else if prev, dup := c.byName[n.name]; dup {
			c.add(issue{code: "DUPLICATE_NODE_NAME", node: n, args: []any{n.name}, details: map[string]any{"nodeIndexes": []int{prev.idx, i}}})
		} else {
			c.byName[n.name] = n
		}
		if n.id != "" {
			if prev, dup := c.byID[n.id]; dup {
				c.add(issue{code: "DUPLICATE_NODE_ID", node: n, args: []any{n.id}, details: map[string]any{"nodeIndexes": []int{prev.idx, i}}})
			} else {
				c.byID[n.id] = n
			}
		}
		if l := len([]rune(n.name)); l > 128 {
			c.add(issue{code: "NODE_NAME_TOO_LONG", node: n, args: []any{l}})
		}
		if !validPosition(raw["position"]) {
			c.add(issue{code: "POSITION_INVALID", node: n, args: []any{describe(raw["position"])}})
		}
		if n.typ == "" {
			c.add(issue{code: "NODE_TYPE_MISSING", node: n})
		}
		c.version(n)
		if !n.sticky {
			c.stats.TotalNodes++
			if !n.disabled {
				c.stats.EnabledNodes++
			}
		}
	}
}

func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	}
	return ""
}

func validPosition(v any) bool {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return false
	}
	for _, x := range a {
		if _, ok := number(x); !ok {
			return false
		}
	}
	return true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// describe renders a value briefly for a message: its JSON kind, and short scalars.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("%q", x)
	case float64, bool:
		return fmt.Sprint(x)
	case nil:
		return "nothing"
	}
	return "an " + jsonKind(v)
}

// version reads typeVersion and looks the node's description up.
func (c *checker) version(n *node) {
	if n.typ == "" {
		return
	}
	known := c.cat.Known(n.typ)
	v, present := n.raw["typeVersion"]
	f, isNum := number(v)
	n.version, n.hasVersion = f, present && isNum && f > 0
	if known {
		if n.hasVersion {
			n.def, _ = c.cat.Lookup(n.typ, f)
		} else {
			n.def, _ = c.cat.Lookup(n.typ, c.cat.Latest(n.typ))
			n.version = c.cat.Latest(n.typ)
		}
	}
	if n.def != nil {
		n.trigger = n.def.Trigger
	} else {
		// A community node: trust its name.
		n.trigger = strings.HasSuffix(strings.ToLower(n.typ), "trigger")
	}
	if n.trigger && !n.disabled && !n.sticky {
		c.stats.TriggerNodes++
	}
}

// ---- nodes ----

func (c *checker) checkNodes() {
	for _, n := range c.nodes {
		if n.typ == "" || n.sticky {
			continue
		}
		c.nodeType(n)
		if n.def == nil {
			c.nodeSettings(n)
			continue
		}
		c.typeVersion(n)
		if p, ok := n.raw["parameters"]; ok {
			if _, isObj := p.(map[string]any); !isObj {
				c.add(issue{code: "PARAMETERS_NOT_OBJECT", node: n, args: []any{jsonKind(p)}})
			}
		}
		c.nodeSettings(n)
		if !n.disabled {
			c.parameters(n)
			c.credentials(n)
		}
	}
}

func (c *checker) nodeType(n *node) {
	if c.cat.Known(n.typ) {
		return
	}
	if !catalog.Official(n.typ) {
		// "webhook", "nodes-base.webhook", "n8n-nodes-langchain.agent": a package prefix
		// missing or cut short. Anything else is a community node: nothing to check it against.
		short := catalog.ShortType(n.typ)
		if looksLikePrefix(n.typ, short) {
			for _, prefix := range []string{catalog.BasePrefix, catalog.LangchainPrefix} {
				if full := prefix + short; c.cat.Known(full) {
					c.add(issue{code: "NODE_TYPE_PREFIX", node: n, args: []any{n.typ}, fixArgs: []any{full}})
					return
				}
			}
		}
		return
	}
	hint, fix := "", i18n.Sprintf(c.opts.Lang, "see the node types of n8n %s", c.cat.N8N())
	if near := suggest.Closest(n.typ, c.cat.Types()); near != "" {
		hint = i18n.Sprintf(c.opts.Lang, "; did you mean %q?", near)
		fix = i18n.Sprintf(c.opts.Lang, "use %q", near)
	}
	c.add(issue{code: "UNKNOWN_NODE_TYPE", node: n, args: []any{n.typ, hint}, fixArgs: []any{fix}})
}

// looksLikePrefix: typ is short alone or short behind a truncated package name
// (nodes-base., n8n-nodes-langchain.).
func looksLikePrefix(typ, short string) bool {
	if typ == short {
		return true
	}
	pkg := strings.TrimSuffix(typ, "."+short)
	switch pkg {
	case "nodes-base", "n8n-nodes-base", "nodes-langchain", "n8n-nodes-langchain", "@n8n/nodes-langchain", "langchain":
		return true
	}
	return false
}

func (c *checker) typeVersion(n *node) {
	latest := c.cat.Latest(n.typ)
	v, present := n.raw["typeVersion"]
	if !present {
		c.add(issue{code: "TYPE_VERSION_MISSING", node: n, fixArgs: []any{latest}})
		return
	}
	if !n.hasVersion {
		c.add(issue{code: "TYPE_VERSION_INVALID", node: n, args: []any{describe(v)}, fixArgs: []any{latest}})
		return
	}
	if n.version > latest+1e-9 {
		// A versioned type fails to load; a plain one runs its only version.
		code := "TYPE_VERSION_TOO_NEW"
		if !c.cat.Versioned(n.typ) {
			code = "TYPE_VERSION_ABOVE_KNOWN"
		}
		c.add(issue{code: code, node: n, args: []any{n.version, n.typ, c.cat.N8N(), latest}, fixArgs: []any{latest}})
		return
	}
	if c.cat.Versioned(n.typ) && !c.cat.HasVersion(n.typ, n.version) {
		list := versionList(c.cat.Versions(n.typ))
		c.add(issue{code: "TYPE_VERSION_UNKNOWN", node: n, args: []any{n.typ, n.version, list}, fixArgs: []any{list}})
		return
	}
	if cur := n.def.DefaultVersion; cur != 0 && n.version < cur-1e-9 {
		c.add(issue{code: "TYPE_VERSION_OUTDATED", node: n, args: []any{n.version, cur}, fixArgs: []any{cur}})
	}
}

func versionList(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// nodeSettings checks the node-level settings, and settings misplaced into parameters.
func (c *checker) nodeSettings(n *node) {
	if v, ok := n.raw["onError"]; ok {
		s, _ := v.(string)
		switch s {
		case "stopWorkflow", "continueRegularOutput", "continueErrorOutput":
		default:
			c.add(issue{code: "INVALID_ON_ERROR", node: n, args: []any{describe(v)}})
		}
	}
	for _, k := range []string{"retryOnFail", "alwaysOutputData", "executeOnce", "disabled", "continueOnFail"} {
		if v, ok := n.raw[k]; ok {
			if _, isBool := v.(bool); !isBool {
				c.add(issue{code: "INVALID_NODE_SETTING", node: n, args: []any{k, "true or false", describe(v)}, fixArgs: []any{k, "true or false"}})
			}
		}
	}
	ranges := []struct {
		k      string
		lo, hi float64
		text   string
	}{{"maxTries", 2, 5, "2 to 5"}, {"waitBetweenTries", 0, 5000, "0 to 5000 ms"}}
	for _, r := range ranges {
		v, ok := n.raw[r.k]
		if !ok {
			continue
		}
		f, isNum := number(v)
		if !isNum {
			c.add(issue{code: "INVALID_NODE_SETTING", node: n, args: []any{r.k, "a number", describe(v)}, fixArgs: []any{r.k, r.text}})
			continue
		}
		if f < r.lo || f > r.hi {
			c.add(issue{code: "RETRY_SETTING_RANGE", node: n, args: []any{r.k, f, r.text}, fixArgs: []any{r.k, r.text}})
		}
	}
	for _, k := range []string{"onError", "retryOnFail", "maxTries", "waitBetweenTries", "alwaysOutputData", "executeOnce", "continueOnFail", "notesInFlow"} {
		if _, in := n.params[k]; !in {
			continue
		}
		if n.def != nil && n.def.Prop(k) != nil {
			continue // the node has a parameter of that name
		}
		c.add(issue{code: "NODE_SETTING_IN_PARAMETERS", node: n, args: []any{k}})
	}
}

// credentials: ids present; required credentials set.
func (c *checker) credentials(n *node) {
	creds, _ := n.raw["credentials"].(map[string]any)
	for _, k := range sortedKeys(creds) {
		m, ok := creds[k].(map[string]any)
		if !ok {
			continue
		}
		if id := idString(m["id"]); id == "" {
			c.add(issue{code: "CREDENTIALS_WITHOUT_ID", node: n, args: []any{k}, fixArgs: []any{k}})
		}
	}
	if n.def.ToolOf == "" && len(creds) == 0 {
		s := c.scope(n, n.params, n.def.PropSet())
		for _, cr := range n.def.Credentials {
			if !cr.Required {
				continue
			}
			if shown, sure := catalog.Shown(cr.Show, cr.Hide, s); shown && sure {
				c.add(issue{code: "CREDENTIALS_MISSING", node: n, args: []any{cr.Name}, fixArgs: []any{cr.Name}})
				break
			}
		}
	}
}

func (c *checker) scope(n *node, here map[string]any, defs *catalog.PropSet) catalog.Scope {
	return catalog.Scope{Version: n.version, Root: n.params, RootDefs: n.def.PropSet(), Here: here, HereDefs: defs}
}
