package dag

import (
	"github.com/seam-dag/seam/internal/i18n"

	"regexp"
	"slices"
	"strings"
)

// dep is a dependency of a node and where the node first names it.
type dep struct {
	id  string
	pos Pos
}

// resolveRefs checks what every reference and needs entry names, and sets each node's Deps.
func (l *loader) resolveRefs(d *DAG) {
	pf := paramFieldsOf(d)
	var ids []string // for "did you mean", built on the first unknown id
	unknownNode := func(id string, p Pos, how string) {
		if ids == nil {
			ids = make([]string, len(d.Nodes))
			for i, n := range d.Nodes {
				ids[i] = n.ID
			}
		}
		if s := didYouMean(id, ids, nil); s != "" {
			l.add(p, CodeUnknownNode, i18n.Sprintf(l.lang, "use %q, or add a node %q", s, id), i18n.Sprintf(l.lang, "%s unknown node %q; did you mean %q?", how, id, s))
			return
		}
		l.add(p, CodeUnknownNode, i18n.Sprintf(l.lang, "name one of the nodes under `nodes:`, or add a node %q", id), i18n.Sprintf(l.lang, "%s unknown node %q", how, id))
	}
	for i, n := range d.Nodes {
		src := l.srcs[i]
		var deps []dep
		check := func(r Ref, data bool) {
			switch r.Root {
			case "nodes", "status":
				if _, ok := d.ByID[r.Node]; !ok {
					unknownNode(r.Node, r.Pos, i18n.Format(l.lang, "reference to"))
					return
				}
				deps = append(deps, dep{id: r.Node, pos: r.Pos})
			case "params":
				l.checkParam(r, pf)
			case "env":
				l.checkEnv(r, d)
			case "trigger":
				l.noTriggerRefs(i18n.Sprintf(l.lang, "node %q", n.ID), []Ref{r})
			case "item", "index":
				switch {
				case n.Foreach == nil:
					l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "add `foreach:` to the node, or refer to the list itself"),
						i18n.Sprintf(l.lang, "node %q: %s is only defined in a node with foreach", n.ID, r.Root))
				case !data:
					l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "use item and index in with or input"),
						i18n.Sprintf(l.lang, "node %q: %s is not defined in when or foreach, which are evaluated once for the node", n.ID, r.Root))
				}
			}
		}
		for _, r := range src.dataRefs {
			check(r, true)
		}
		for _, r := range src.controlRefs {
			check(r, false)
		}
		for _, e := range src.needs {
			if _, ok := d.ByID[e.id]; !ok {
				unknownNode(e.id, e.pos, i18n.Sprintf(l.lang, "node %q needs", n.ID))
				continue
			}
			deps = append(deps, dep{id: e.id, pos: e.pos})
		}
		slices.SortStableFunc(deps, func(a, b dep) int { return comparePos(a.pos, b.pos) })
		n.Deps, src.deps = nil, nil
		var seen map[string]bool // for the few nodes with many dependencies
		if len(deps) > smallMapping {
			seen = make(map[string]bool, len(deps))
		}
		for _, x := range deps {
			if seen != nil && seen[x.id] || seen == nil && slices.Contains(n.Deps, x.id) {
				continue
			}
			if seen != nil {
				seen[x.id] = true
			}
			n.Deps = append(n.Deps, x.id)
			src.deps = append(src.deps, x)
		}
	}
	for _, o := range d.Outputs {
		for _, r := range o.Value.Refs() {
			switch r.Root {
			case "nodes", "status":
				if _, ok := d.ByID[r.Node]; !ok {
					unknownNode(r.Node, r.Pos, i18n.Sprintf(l.lang, "output %q: reference to", o.Name))
				}
			case "params":
				l.checkParam(r, pf)
			case "env":
				// Outputs are printed and stored: a secret must not become one.
				l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "use env in a node's with or input, where it is masked in what the node returns"),
					i18n.Sprintf(l.lang, "output %q: outputs may not read env, whose values are secrets", o.Name))
			case "trigger":
				l.noTriggerRefs(i18n.Sprintf(l.lang, "output %q", o.Name), []Ref{r})
			case "item", "index":
				l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "refer to a node's output instead"),
					i18n.Sprintf(l.lang, "output %q: %s is only defined in a node with foreach", o.Name, r.Root))
			}
		}
	}
}

func comparePos(a, b Pos) int {
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Col - b.Col
}

// paramFields is what a params schema says about its top-level fields, when it says enough
// to tell a typo: declared properties, and no additionalProperties allowing others.
type paramFields struct {
	names    []string
	patterns []*regexp.Regexp
}

// paramFieldsOf returns nil when any field name may be valid.
func paramFieldsOf(d *DAG) *paramFields {
	if d.Params == nil {
		return nil
	}
	src, ok := d.Params.Source().(map[string]any)
	if !ok {
		return nil
	}
	props, ok := src["properties"].(map[string]any)
	if !ok {
		return nil
	}
	// Keywords that can admit more fields than properties lists.
	for _, k := range []string{"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "unevaluatedProperties"} {
		if _, ok := src[k]; ok {
			return nil
		}
	}
	if ap, ok := src["additionalProperties"]; ok && ap != false {
		return nil
	}
	pf := &paramFields{}
	for name := range props {
		pf.names = append(pf.names, name)
	}
	slices.Sort(pf.names)
	if pp, ok := src["patternProperties"].(map[string]any); ok {
		for p := range pp {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil // a pattern Go cannot read may match anything
			}
			pf.patterns = append(pf.patterns, re)
		}
	}
	return pf
}

// checkParam reports a reference to a params field the params schema does not declare.
func (l *loader) checkParam(r Ref, pf *paramFields) {
	if pf == nil || len(r.Path) == 0 {
		return
	}
	name := r.Path[0]
	if slices.Contains(pf.names, name) || slices.ContainsFunc(pf.patterns, func(re *regexp.Regexp) bool { return re.MatchString(name) }) {
		return
	}
	hint := i18n.Sprintf(l.lang, "declare it under params.properties, or use one of: %s", strings.Join(pf.names, ", "))
	if s := didYouMean(name, pf.names, nil); s != "" {
		l.add(r.Pos, CodeUnknownParam, hint, i18n.Sprintf(l.lang, "unknown parameter params.%s; did you mean params.%s?", name, s))
		return
	}
	l.add(r.Pos, CodeUnknownParam, hint, i18n.Sprintf(l.lang, "unknown parameter params.%s: params declares no such property", name))
}
