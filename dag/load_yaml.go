package dag

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// kindOf names a node's kind for messages in lang.
func kindOf(lang i18n.Lang, n *yaml.Node) string {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return i18n.Format(lang, "a mapping")
	case yaml.SequenceNode:
		return i18n.Format(lang, "a list")
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool":
			return i18n.Format(lang, "a boolean")
		case "!!int", "!!float":
			return i18n.Format(lang, "a number")
		case "!!str":
			return i18n.Format(lang, "a string")
		}
		return i18n.Sprintf(lang, "a %s", strings.TrimPrefix(n.Tag, "!!"))
	}
	return i18n.Format(lang, "nothing")
}

// describeScalar names a node for messages in lang, quoting a scalar's text.
func describeScalar(lang i18n.Lang, n *yaml.Node) string {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return strconv.Quote(n.Value)
	}
	return kindOf(lang, n)
}

// Aliases may repeat what an anchor holds; beyond this many nodes per node written (plus a
// constant allowance) the file is refused, so that a small file cannot expand without bound.
const (
	aliasGrowth    = 10
	aliasAllowance = 100_000
)

// checkAliases refuses anchors that contain themselves and alias expansion beyond the bound.
func (l *loader) checkAliases(doc *yaml.Node) bool {
	raw, aliases := 0, false
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		raw++
		aliases = aliases || n.Kind == yaml.AliasNode
		for _, c := range n.Content {
			count(c)
		}
	}
	count(doc)
	if !aliases {
		return true
	}
	limit := aliasGrowth*raw + aliasAllowance
	const inProgress = -1
	memo := make(map[*yaml.Node]int)
	var cycle *yaml.Node
	// size is the number of nodes n stands for once aliases are expanded, capped past limit.
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return 1
			}
			if memo[n.Alias] == inProgress {
				cycle = n
				return limit + 1
			}
			return 1 + size(n.Alias)
		}
		if s, ok := memo[n]; ok {
			return s
		}
		memo[n] = inProgress
		total := 1
		for _, c := range n.Content {
			total += size(c)
			if total > limit {
				break
			}
		}
		memo[n] = total
		return total
	}
	if size(doc) <= limit {
		return true
	}
	if cycle != nil {
		l.addAt(cycle, CodeYAML, i18n.Format(l.lang, "an alias cannot stand inside the value its anchor names"),
			i18n.Sprintf(l.lang, "alias *%s refers to a value that contains it", cycle.Value))
		return false
	}
	l.add(Pos{File: l.file, Line: 1, Col: 1}, CodeYAML, i18n.Format(l.lang, "repeat fewer values through aliases"),
		i18n.Sprintf(l.lang, "aliases expand the file beyond %d values", limit))
	return false
}

// expandMerges applies YAML merge keys (`<<: *defaults`, `<<: [*a, *b]`) in place: a mapping
// gains each key of the mappings its << names that it does not write itself, an earlier one in
// a list winning over a later one, as YAML 1.1's merge type says. It runs after checkAliases,
// so what it copies is bounded as aliases are; copied nodes keep the position of the anchor
// that writes them.
func (l *loader) expandMerges(doc *yaml.Node) bool {
	done := make(map[*yaml.Node]bool)
	ok := true
	var expand func(n *yaml.Node)
	expand = func(n *yaml.Node) {
		n = deref(n)
		if done[n] {
			return
		}
		done[n] = true
		for _, c := range n.Content {
			expand(c)
		}
		if n.Kind != yaml.MappingNode {
			return
		}
		var own, merged []*yaml.Node
		has := make(map[string]bool)
		var sources []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!merge" {
				own = append(own, k, v)
				has[k.Value] = true
				continue
			}
			list := []*yaml.Node{v}
			if deref(v).Kind == yaml.SequenceNode {
				list = deref(v).Content
			}
			for _, src := range list {
				if deref(src).Kind != yaml.MappingNode {
					l.addAt(src, CodeInvalid, i18n.Format(l.lang, "merge an anchored mapping: `<<: *defaults` or `<<: [*a, *b]`"),
						i18n.Sprintf(l.lang, "a merge key (<<) takes a mapping or a list of mappings, not %s", kindOf(l.lang, src)))
					ok = false
					continue
				}
				sources = append(sources, src)
			}
		}
		if len(own) == len(n.Content) {
			return
		}
		for _, src := range sources {
			m := deref(src)
			for i := 0; i+1 < len(m.Content); i += 2 {
				k := m.Content[i]
				if has[k.Value] {
					continue
				}
				has[k.Value] = true
				merged = append(merged, k, m.Content[i+1])
				if src.Kind == yaml.AliasNode {
					if l.mergedKeys == nil {
						l.mergedKeys = make(map[*yaml.Node]bool)
					}
					l.mergedKeys[k] = true
				}
			}
		}
		n.Content = append(own, merged...)
	}
	expand(doc)
	return ok
}

// smallMapping is the size up to which duplicate keys are found by scanning.
const smallMapping = 16

// checkTree reports what yaml.v3 accepts but a DAG file may not: duplicate keys, keys that
// are not scalars. It does not follow aliases: an anchored value is checked
// where it is written.
func (l *loader) checkTree(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		// Most mappings are small: a map pays off only for large ones.
		var first map[string]*yaml.Node
		if len(n.Content) > 2*smallMapping {
			first = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			switch {
			case k.Kind != yaml.ScalarNode:
				l.addAt(k, CodeInvalid, i18n.Format(l.lang, "use a plain string as the key"), i18n.Sprintf(l.lang, "a key must be a string, not %s", kindOf(l.lang, k)))
			case l.mergedKeys[k]:
				continue // checked where its anchor writes it
			case n == l.nodesMap:
				// Duplicate node ids are reported as such by nodes().
			default:
				var prev *yaml.Node
				if first != nil {
					if prev = first[k.Value]; prev == nil {
						first[k.Value] = k
					}
				} else {
					for j := 0; j < i && prev == nil; j += 2 {
						if c := n.Content[j]; c.Kind == yaml.ScalarNode && c.Value == k.Value {
							prev = c
						}
					}
				}
				if prev != nil {
					l.addAt(k, CodeDuplicateKey, i18n.Format(l.lang, "remove one of them: keys are unique within a mapping"),
						i18n.Sprintf(l.lang, "duplicate key %q (first at line %d)", k.Value, prev.Line))
				}
			}
			l.checkTree(k)
			l.checkTree(n.Content[i+1])
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			l.checkTree(c)
		}
	}
}

// valueError is a YAML value with no JSON equivalent.
type valueError struct {
	node *yaml.Node
	err  error
}

func (e *valueError) Error() string { return e.err.Error() }

// toValue converts a YAML value to a JSON value (numbers as json.Number), keeping strings
// that hold ${{ }} as they are.
func toValue(n *yaml.Node) (any, error) {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; dup {
				continue
			}
			v, err := toValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		a := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := toValue(c)
			if err != nil {
				return nil, err
			}
			a[i] = v
		}
		return a, nil
	case yaml.ScalarNode:
		v, err := scalarValue(n)
		if err != nil {
			return nil, &valueError{node: n, err: err}
		}
		return v, nil
	}
	return nil, &valueError{node: n, err: fmt.Errorf("unexpected YAML node")}
}

// lookup returns the YAML node a JSON Pointer designates below n, or the deepest one on the
// way when the pointer goes further than the YAML does (a missing property). key is the key
// whose value n is, or nil; the result's key is that of the returned node.
func lookup(n, key *yaml.Node, ptr string) (val, valKey *yaml.Node) {
	val, valKey, _ = walk(n, key, ptr)
	return val, valKey
}

// walk is lookup that also reports whether the pointer was followed to its end.
func walk(n, key *yaml.Node, ptr string) (val, valKey *yaml.Node, complete bool) {
	val, valKey = deref(n), key
	if ptr == "" {
		return val, valKey, true
	}
	for _, tok := range contract.PointerTokens(ptr) {
		switch val.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(val.Content); i += 2 {
				if val.Content[i].Value == tok {
					val, valKey = deref(val.Content[i+1]), val.Content[i]
					found = true
					break
				}
			}
			if !found {
				return val, valKey, false
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(val.Content) {
				return val, valKey, false
			}
			val, valKey = deref(val.Content[i]), nil
		default:
			return val, valKey, false
		}
	}
	return val, valKey, true
}

// at is where to point for a value: a scalar or a flow collection itself, a block
// collection at its key (yaml.v3 places block collections at their first entry).
func at(val, key *yaml.Node) *yaml.Node {
	if key != nil && (val.Kind == yaml.MappingNode || val.Kind == yaml.SequenceNode) && val.Style&yaml.FlowStyle == 0 {
		return key
	}
	return val
}
