package validate

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// chunk is a piece of an expression as n8n splits it: text, or code between {{ and }}.
type chunk struct {
	code   bool
	text   string
	closed bool
}

// splitExpression splits s the way n8n's expression splitter does: {{ opens code and the
// first }} closes it, whatever is between (a backslash escapes either).
func splitExpression(s string) []chunk {
	var out []chunk
	var buf strings.Builder
	open := false
	for i := 0; i < len(s); {
		marker := "{{"
		if open {
			marker = "}}"
		}
		j := strings.Index(s[i:], marker)
		if j < 0 {
			buf.WriteString(s[i:])
			break
		}
		j += i
		if j > 0 && s[j-1] == '\\' {
			buf.WriteString(s[i : j+2])
			i = j + 2
			continue
		}
		buf.WriteString(s[i:j])
		out = append(out, chunk{code: open, text: buf.String(), closed: open})
		buf.Reset()
		open = !open
		i = j + 2
	}
	out = append(out, chunk{code: open, text: buf.String(), closed: false})
	if !open && out[len(out)-1].text == "" {
		out = out[:len(out)-1]
	}
	return out
}

// References to other nodes by name in expressions and code.
var (
	refPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$(?:node\[\s*|\(\s*|items\(\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*[\)\],]`)
	})
	jsonUse   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$json\b`) })
	looksExpr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\{\{[^}]*\$(?:json|node|input|\(|items|now|today|env|vars|execution|workflow)`)
	})
)

func codeField(name string) bool {
	switch name {
	case "jsCode", "pythonCode", "functionCode", "code":
		return true
	}
	return false
}

// expressions checks every string parameter of every enabled node.
func (c *checker) expressions() {
	for _, n := range c.nodes {
		if n.sticky || n.disabled {
			continue
		}
		jsonReported := false
		noInput := !n.trigger && !hasMainInput(n) && (n.def == nil || !n.def.IsSubNode())
		walk(n.params, "", func(path, key string, s string) {
			if codeField(key) && !strings.HasPrefix(s, "=") {
				c.codeRefs(n, s)
				return
			}
			if !strings.HasPrefix(s, "=") {
				if strings.Contains(s, "{{") && looksExpr().MatchString(s) {
					c.add(issue{code: "EXPRESSION_MISSING_EQUALS", node: n, args: []any{path}})
				}
				return
			}
			c.stats.ExpressionsValidated++
			codes := c.expression(n, path, s[1:])
			for _, code := range codes {
				c.refs(n, path, code)
				if noInput && !jsonReported && jsonUse().MatchString(code) {
					jsonReported = true
					c.add(issue{code: "JSON_WITHOUT_INPUT", node: n, args: []any{path}})
				}
			}
		})
	}
}

func hasMainInput(n *node) bool {
	for _, e := range n.in {
		if e.inType == "main" {
			return true
		}
	}
	return false
}

// walk calls f on every string in v, with its path (options.systemMessage, rules.values[0]).
func walk(v any, path string, f func(path, key, s string)) {
	var rec func(v any, path, key string)
	rec = func(v any, path, key string) {
		switch x := v.(type) {
		case string:
			f(path, key, x)
		case map[string]any:
			for _, k := range sortedKeys(x) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				rec(x[k], p, k)
			}
		case []any:
			for i, e := range x {
				rec(e, path+"["+strconv.Itoa(i)+"]", key)
			}
		}
	}
	rec(v, path, "")
}

// expression checks one expression's syntax and returns its code chunks.
func (c *checker) expression(n *node, path, s string) []string {
	var codes []string
	chunks := splitExpression(s)
	for i, ch := range chunks {
		if !ch.code {
			continue
		}
		if !ch.closed {
			// "}}" as an argument: the loader's hint "close the expression with }}" reads alike
			// in English but its Japanese ends a sentence, this one does not.
			c.add(issue{code: "EXPRESSION_UNCLOSED", node: n, args: []any{path}, fixArgs: []any{"}}"}})
			return codes
		}
		if strings.Contains(ch.text, "{{") {
			c.add(issue{code: "EXPRESSION_NESTED", node: n, args: []any{path}})
			continue
		}
		if strings.TrimSpace(ch.text) == "" {
			c.add(issue{code: "EXPRESSION_EMPTY", node: n, args: []any{path}})
			continue
		}
		if !balanced(ch.text) && closesEarly(ch.text, chunks, i) {
			snippet := strings.TrimSpace(ch.text)
			if len(snippet) > 60 {
				snippet = snippet[:60] + "…"
			}
			c.add(issue{code: "EXPRESSION_UNBALANCED", node: n, args: []any{path, snippet}})
			continue
		}
		codes = append(codes, ch.text)
	}
	return codes
}

// closesEarly tells an imbalance n8n causes from one the author did: the code ends inside
// an object ({a: {b: 1}} }}: n8n closed it at the first }}) and the text after it starts
// with }; or the code has no slash that could start a regular expression literal, whose
// brackets this reading does not understand.
func closesEarly(code string, chunks []chunk, i int) bool {
	if i+1 < len(chunks) && !chunks[i+1].code && strings.HasPrefix(strings.TrimLeft(chunks[i+1].text, " \t\n"), "}") {
		return true
	}
	return !strings.Contains(code, "/")
}

// balanced reports whether the brackets of JavaScript code match, outside string literals.
func balanced(code string) bool {
	var stack []byte
	pairs := map[byte]byte{')': '(', ']': '[', '}': '{'}
	for i := 0; i < len(code); i++ {
		ch := code[i]
		switch ch {
		case '\'', '"', '`':
			j := i + 1
			for j < len(code) && code[j] != ch {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(code) {
				return false
			}
			i = j
		case '(', '[', '{':
			stack = append(stack, ch)
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[ch] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0
}

// refs reports references to nodes that do not exist.
func (c *checker) refs(n *node, path, code string) {
	for _, name := range refNames(code) {
		if c.byName[name] != nil {
			continue
		}
		c.add(issue{code: "EXPRESSION_UNKNOWN_NODE", node: n, args: []any{path, name}, fixArgs: []any{c.refFix(name)}})
	}
}

func (c *checker) codeRefs(n *node, code string) {
	for _, name := range refNames(code) {
		if c.byName[name] == nil {
			c.add(issue{code: "CODE_UNKNOWN_NODE", node: n, args: []any{name}, fixArgs: []any{c.refFix(name)}})
		}
	}
}

func (c *checker) refFix(name string) string {
	names := make([]string, 0, len(c.byName))
	for k := range c.byName {
		names = append(names, k)
	}
	if near := suggest.Closest(name, names); near != "" {
		return i18n.Sprintf(c.opts.Lang, "did you mean %q?", near)
	}
	return i18n.Sprintf(c.opts.Lang, "refer to an existing node by its exact name")
}

// refNames extracts the literal node names of $node["X"], $('X') and $items("X").
func refNames(code string) []string {
	var out []string
	for _, m := range refPattern().FindAllStringSubmatch(code, -1) {
		q := m[1]
		body := q[1 : len(q)-1]
		if strings.Contains(body, "${") {
			continue
		}
		if q[0] == '\'' {
			body = strings.ReplaceAll(body, `\'`, `'`)
			body = strings.ReplaceAll(body, `"`, `\"`)
		}
		name, err := strconv.Unquote(`"` + body + `"`)
		if err != nil {
			continue
		}
		out = append(out, name)
	}
	return out
}
