package dag

import (
	"github.com/seam-dag/seam/internal/i18n"

	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// n8nKeys are the keys of the DAG's `n8n:` block: how its n8n.* nodes reach n8n.
var n8nKeys = []string{"url", "api_key_env", "insecure"}

var envVarName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// n8nDefaults reads the `n8n:` block and writes its keys into the `with` of every node whose
// type starts with "n8n.", unless the node sets them itself. It works on the YAML, before
// nodes are read, so that the merged keys are checked against the type's config schema and
// reported at the block's position like any other value.
func (l *loader) n8nDefaults(fs fieldSet) {
	f, ok := fs.get("n8n")
	if !ok {
		return
	}
	block := l.fields(f.val, "n8n", n8nKeys, map[string]string{
		"api_key": "api_key_env", "apikey": "api_key_env", "key": "api_key_env", "base_url": "url", "host": "url",
	})
	var defaults []field // in n8nKeys order
	if v, ok := block.get("url"); ok {
		if s, ok := l.str(v, "n8n.url"); ok {
			if strings.TrimSpace(s) == "" {
				l.addAt(v.val, CodeInvalid, i18n.Format(l.lang, "remove it to use $N8N_URL, or write the base URL, e.g. https://n8n.example.com"), i18n.Format(l.lang, "n8n.url must not be empty"))
			} else {
				defaults = append(defaults, v)
			}
		}
	}
	if v, ok := block.get("api_key_env"); ok {
		if s, ok := l.str(v, "n8n.api_key_env"); ok {
			if !envVarName().MatchString(s) {
				l.addAt(v.val, CodeInvalid, i18n.Format(l.lang, "name the environment variable that holds the key, e.g. `api_key_env: N8N_API_KEY`; never write the key itself"),
					i18n.Sprintf(l.lang, "n8n.api_key_env must be an environment variable name, not %q", s))
			} else {
				defaults = append(defaults, v)
			}
		}
	}
	if v, ok := block.get("insecure"); ok {
		if n := deref(v.val); n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			l.addAt(n, CodeInvalid, i18n.Format(l.lang, "write `insecure: true` or `insecure: false`"), i18n.Sprintf(l.lang, "n8n.insecure must be a boolean, not %s", describeScalar(l.lang, n)))
		} else {
			defaults = append(defaults, v)
		}
	}
	if len(defaults) == 0 {
		return
	}
	nf, ok := fs.get("nodes")
	if !ok {
		return
	}
	m := deref(nf.val)
	if m.Kind != yaml.MappingNode {
		return // nodes() reports it
	}
	for i := 1; i < len(m.Content); i += 2 {
		if merged := mergeN8n(deref(m.Content[i]), defaults); merged != nil {
			m.Content[i] = merged
		}
	}
}

// mergeN8n returns a copy of the node with defaults added to its `with`, or nil when the node
// is not of an n8n type or its `with` is not a mapping (reported when the node is read).
// Copies, not edits: an anchored node or `with` may be shared through aliases.
func mergeN8n(node *yaml.Node, defaults []field) *yaml.Node {
	if node.Kind != yaml.MappingNode {
		return nil
	}
	withAt := -1
	isN8n := false
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], deref(node.Content[i+1])
		switch k.Value {
		case "type":
			isN8n = v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "n8n.")
		case "with":
			if withAt < 0 {
				withAt = i
			}
		}
	}
	if !isN8n {
		return nil
	}
	var with yaml.Node
	if withAt >= 0 {
		w := deref(node.Content[withAt+1])
		switch {
		case w.Kind == yaml.MappingNode:
			with = *w
		case w.Kind == yaml.ScalarNode && w.Tag == "!!null":
			with = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: w.Line, Column: w.Column}
		default:
			return nil
		}
	} else {
		with = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: node.Line, Column: node.Column}
	}
	with.Content = slices.Clone(with.Content)
	for _, d := range defaults {
		set := false
		for i := 0; i < len(with.Content); i += 2 {
			if with.Content[i].Value == d.key.Value {
				set = true
				break
			}
		}
		if !set {
			with.Content = append(with.Content, d.key, d.val)
		}
	}
	out := *node
	out.Content = slices.Clone(node.Content)
	if withAt >= 0 {
		out.Content[withAt+1] = &with
	} else {
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "with", Line: node.Line, Column: node.Column}
		out.Content = append(out.Content, key, &with)
	}
	return &out
}
