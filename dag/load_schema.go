package dag

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
)

// schema compiles a schema written as a file path (relative to the DAG file) or inline.
func (l *loader) schema(n *yaml.Node, what string) *contract.Schema {
	v := deref(n)
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		return l.schemaFile(v, what)
	case v.Kind == yaml.MappingNode:
		val, err := toValue(v)
		if err != nil {
			l.valueError(err, v, what)
			return nil
		}
		location := fmt.Sprintf("%s:%d:%d", l.file, v.Line, v.Column)
		s, err := l.comp.InlineAt(l.dir, location, val)
		if err != nil {
			l.schemaError(err, v, true, location, what)
			return nil
		}
		return s
	}
	l.addAt(v, CodeInvalid, i18n.Format(l.lang, "give a path such as schemas/out.json (relative to this file), or write the schema inline as a mapping"),
		i18n.Sprintf(l.lang, "%s must be a schema file path or an inline schema, not %s", what, kindOf(l.lang, v)))
	return nil
}

func (l *loader) schemaFile(v *yaml.Node, what string) *contract.Schema {
	if strings.Contains(v.Value, "://") {
		l.addAt(v, CodeRemoteRef, i18n.Format(l.lang, "vendor the schema next to the DAG and use a relative path"),
			i18n.Sprintf(l.lang, "%s: schema %q refused: seam never fetches schemas over the network", what, v.Value))
		return nil
	}
	p := v.Value
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	r, ok := l.schemaFiles[p]
	if !ok {
		r.s, r.err = l.comp.File(p)
		l.schemaFiles[p] = r
	}
	if r.err != nil {
		// The compiler names the file by its absolute path in errors.
		abs, _ := filepath.Abs(p)
		l.schemaError(r.err, v, false, abs, what)
	}
	return r.s
}

// schemaError reports why a schema did not compile: for an inline schema at the YAML node
// its pointer designates, else at the path. self is how the compiler names the schema in
// errors; a problem in another document (a $ref'd file) is named with that document.
func (l *loader) schemaError(err error, n *yaml.Node, inline bool, self, what string) {
	target := n
	detail := err.Error()
	var se *contract.SchemaError
	if errors.As(err, &se) && sameLocation(se.Location, self) {
		detail = say(l.lang, se.Err) // a limit's reason alone (contract's limitError), or the error
		if se.Pointer != "" {
			detail = i18n.Sprintf(l.lang, "at %s: %s", se.Pointer, detail)
		}
		if inline {
			target = at(lookup(n, nil, se.Pointer))
		} else {
			detail = n.Value + " " + detail
		}
	}
	var refused *userfile.Error // a named pipe, a device, a file over the size limit
	switch {
	case errors.Is(err, contract.ErrLimit):
		l.addAt(target, CodeLimit, limitHint(l.lang, err),
			i18n.Sprintf(l.lang, "%s: schema beyond seam's limits: %v", what, strings.Replace(detail, contract.ErrLimit.Error()+": ", "", 1)))
	case errors.Is(err, contract.ErrUnknownDraft):
		l.addAt(target, CodeSchema, i18n.Format(l.lang, "declare one of the drafts listed in $schema, or leave $schema out for 2020-12"),
			i18n.Sprintf(l.lang, "%s: invalid JSON Schema: %v", what, detail))
	case errors.Is(err, contract.ErrRemoteRef):
		l.addAt(target, CodeRemoteRef, i18n.Format(l.lang, "vendor the schema next to the DAG and $ref it by a relative path"),
			i18n.Sprintf(l.lang, "%s: %v; seam never fetches schemas over the network", what, detail))
	case errors.As(err, &refused):
		name := refused.Path // a $ref'd file, by its absolute path
		if !inline && sameLocation(name, self) {
			name = n.Value // as the DAG names it
		}
		l.addAt(target, CodeSchema, i18n.Sprintf(l.lang, "name a JSON Schema file: a regular file within the size limit ($%s raises it)", userfile.EnvMaxSize),
			i18n.Sprintf(l.lang, "%s: schema file %s: %v", what, name, say(l.lang, refused.Err)))
	case errors.Is(err, os.ErrNotExist) && !inline:
		l.addAt(target, CodeSchemaMissing, i18n.Sprintf(l.lang, "create it, or fix the path: it is relative to the DAG file's directory (%s)", l.dir),
			i18n.Sprintf(l.lang, "%s: schema file %q not found", what, n.Value))
	case errors.Is(err, os.ErrNotExist):
		l.addAt(target, CodeSchemaMissing, i18n.Sprintf(l.lang, "create the file, or fix the $ref: it is relative to the DAG file's directory (%s)", l.dir),
			i18n.Sprintf(l.lang, "%s: schema file not found: %v", what, detail))
	default:
		l.addAt(target, CodeSchema, i18n.Format(l.lang, "fix the schema: it must be valid JSON Schema (draft 2020-12)"),
			i18n.Sprintf(l.lang, "%s: invalid JSON Schema: %v", what, detail))
	}
}

// sameLocation reports whether the compiler's name for a document is self, an inline
// location or a file's absolute path; the compiler may name a file relative to the working
// directory.
func sameLocation(name, self string) bool {
	if name == self {
		return true
	}
	abs, err := filepath.Abs(name)
	return err == nil && abs == self
}

// limitHint says how to bring what err (matching contract.ErrLimit) is about within the limits.
func limitHint(lang i18n.Lang, err error) string {
	var ne *contract.NumberError
	if errors.As(err, &ne) {
		return i18n.Sprintf(lang, "write numbers with at most %d digits and an exponent within ±%d; a string holds any number exactly",
			contract.MaxNumberDigits, contract.MaxNumberExponent)
	}
	return i18n.Sprintf(lang, "nest subschemas at most %d levels deep and keep them to %d in all: describe the structure of the data, not every case", contract.MaxSchemaDepth, contract.MaxSubschemas)
}

// valueError reports a YAML value that has no JSON equivalent, or is beyond seam's limits.
func (l *loader) valueError(err error, n *yaml.Node, what string) {
	var ve *valueError
	if errors.As(err, &ve) {
		n, err = ve.node, ve.err
	}
	if errors.Is(err, contract.ErrLimit) {
		l.addAt(n, CodeLimit, limitHint(l.lang, err), i18n.Sprintf(l.lang, "%s: %s", what, say(l.lang, err)))
		return
	}
	l.addAt(n, CodeInvalid, i18n.Format(l.lang, "write JSON-compatible values: strings, numbers, booleans, null, lists and mappings"),
		fmt.Sprintf("%s: %s", what, say(l.lang, err)))
}

// paramsSchema compiles params, which must describe an object.
func (l *loader) paramsSchema(f field) *contract.Schema {
	s := l.schema(f.val, "params")
	if s == nil {
		return nil
	}
	src, _ := s.Source().(map[string]any)
	if t, ok := src["type"]; ok && t != "object" {
		target := deref(f.val)
		if target.Kind == yaml.MappingNode {
			target = at(lookup(target, f.key, "/type"))
		}
		l.addAt(target, CodeInvalid, i18n.Format(l.lang, "write `type: object` and list the parameters under properties"),
			i18n.Sprintf(l.lang, "params must describe an object (type: object), not type %v", t))
		return nil
	}
	return s
}

// configSchema compiles a node type's config schema once per load.
func (l *loader) configSchema(t nodes.Type) *contract.Schema {
	if s, ok := l.configs[t.Name()]; ok {
		return s
	}
	var s *contract.Schema
	var err error
	if ts := l.opts.TypeSchemas; ts != nil {
		s, err = ts.config(t, l.comp.Standard().FormatAnnotated())
	} else {
		s, err = builtinSchema(l.comp, t.ConfigSchema(), "node type "+t.Name()+" config")
	}
	if err != nil {
		l.fatal = err
	}
	l.configs[t.Name()] = s
	return s
}

// typeOutputOf compiles the output schema a node of type t promises, given its `with`
// (nil when unknown), once per load and distinct schema.
func (l *loader) typeOutputOf(t nodes.Type, with map[string]any) *typeOutput {
	key, b := t.Name(), []byte(nil)
	co, configured := t.(nodes.ConfiguredOutput)
	if configured && with != nil {
		b = co.OutputSchemaFor(with)
		key += "\x00" + string(b)
	}
	if to, ok := l.typeOutputs[key]; ok {
		return to
	}
	if key == t.Name() {
		b = t.OutputSchema()
	}
	to := &typeOutput{}
	l.typeOutputs[key] = to
	var err error
	if to.output, err = builtinSchema(l.comp, b, "node type "+t.Name()+" output"); err != nil {
		l.fatal = err
		return to
	}
	if to.effective, err = l.comp.Effective(l.effectiveParts(to.output, nil)...); err != nil {
		l.fatal = fmt.Errorf("node type %s: effective output contract: %w", t.Name(), err)
	}
	return to
}

// builtinSchema compiles a schema a node type ships; nil stays nil. Failure is a bug in the
// type, not in the DAG file.
func builtinSchema(comp *contract.Compiler, b []byte, what string) (*contract.Schema, error) {
	if b == nil {
		return nil, nil
	}
	v, err := contract.ParseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", what, err)
	}
	s, err := comp.Inline(what, v)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", what, err)
	}
	return s, nil
}

func (l *loader) effectiveParts(typeOutput, declared *contract.Schema) []*contract.Schema {
	parts := []*contract.Schema{l.comp.Standard()}
	for _, s := range []*contract.Schema{typeOutput, declared} {
		if s != nil {
			parts = append(parts, s)
		}
	}
	return parts
}

// effective sets what the node's output is validated against: the standard contract, what
// its type promises and its declared output contract.
func (l *loader) effective(n *Node, src *nodeSource, declared *yaml.Node) {
	to := l.typeOutputOf(n.Type, src.with)
	switch {
	case declared == nil:
		n.Effective = to.effective
	case n.OutputContract != nil:
		e, err := l.comp.Effective(l.effectiveParts(to.output, n.OutputContract)...)
		if err != nil {
			l.addAt(declared, CodeSchema, i18n.Format(l.lang, "fix the output contract so that it can hold together with the standard one"),
				i18n.Sprintf(l.lang, "node %q contract.output: %v", n.ID, err))
			return
		}
		n.Effective = e
	}
}

// checkConfig checks a node's `with` at load time: against the type's config schema when
// it holds no reference, then, if that found nothing, with the type's own check, which
// knows what a schema cannot say (or what references hide from it).
func (l *loader) checkConfig(n *Node, src *nodeSource, what string) {
	hint := i18n.Sprintf(l.lang, "see `seam types %s` for its configuration", n.Type.Name())
	if v, ok := n.With.Literal(); ok && n.Config != nil {
		viols := n.Config.Validate(v, l.lang)
		for _, viol := range viols {
			p := n.Pos
			if src.withNode != nil {
				val, key := lookup(src.withNode, src.withKey, viol.Pointer)
				if key == nil || !aboutKey(viol) {
					key = at(val, key)
				}
				p = l.pos(key)
			}
			// Violation messages name the field themselves.
			msg := i18n.Sprintf(l.lang, "%s: with: %s", what, viol.Message)
			if s := suggestConfigKey(n.Config, viol); s != "" {
				msg = i18n.Sprintf(l.lang, "%s; did you mean %q?", msg, s)
			}
			l.add(p, CodeConfig, hint, msg)
		}
		if len(viols) > 0 {
			return
		}
	}
	if d, ok := l.check(n, src, what); ok {
		d.Hint = hint
		l.diags = append(l.diags, d)
	}
}

// aboutKey reports whether a violation is about a member's name rather than its value (it
// is not allowed), so that it is best shown at the key.
func aboutKey(viol contract.Violation) bool {
	kw := viol.Keyword[strings.LastIndexByte(viol.Keyword, '/')+1:]
	return kw == "additionalProperties" || kw == "unevaluatedProperties" || kw == "propertyNames"
}

// suggestConfigKey names the configuration key a top-level key that is not allowed was
// probably meant to be.
func suggestConfigKey(config *contract.Schema, viol contract.Violation) string {
	toks := strings.Split(viol.Pointer, "/")
	if len(toks) != 2 || !aboutKey(viol) {
		return ""
	}
	src, _ := config.Source().(map[string]any)
	props, _ := src["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return didYouMean(toks[1], names, nil)
}

// check runs the type's Checker, if it has one.
func (l *loader) check(n *Node, src *nodeSource, what string) (Diagnostic, bool) {
	c, ok := n.Type.(nodes.Checker)
	if !ok {
		return Diagnostic{}, false
	}
	if src.with == nil {
		return Diagnostic{}, false // not JSON: the template reported it
	}
	err := c.Check(src.with)
	if err == nil {
		return Diagnostic{}, false
	}
	p := n.Pos
	var ce *nodes.ConfigError
	switch {
	case errors.As(err, &ce) && src.withNode != nil:
		val, key, complete := walk(src.withNode, src.withKey, ce.Path)
		p = l.pos(at(val, key))
		if complete && val.Kind == yaml.ScalarNode {
			p = l.offsetPos(val, ce.Offset)
		}
	case src.withNode != nil:
		p = l.pos(at(src.withNode, src.withKey))
	}
	text := err.Error()
	if ce != nil {
		text = ce.Text(l.lang)
	}
	return Diagnostic{Pos: p, Code: CodeConfig, Message: fmt.Sprintf("%s: %s", what, text)}, true
}

// offsetPos is the position of byte offset off within scalar n's text, when it can be
// known: in a block scalar, or in a single-line plain or quoted one without escapes.
func (l *loader) offsetPos(n *yaml.Node, off int) Pos {
	p := l.pos(n)
	if off < 0 || off > len(n.Value) || n.Kind != yaml.ScalarNode {
		return p
	}
	// The end of a block scalar is past its last line break: point after its last character.
	off = min(off, len(strings.TrimRight(n.Value, "\n")))
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return l.rc.posAt(l.file, n, off)
	case 0:
		if strings.HasPrefix(l.textAt(n), n.Value) {
			p.Col += utf8.RuneCountInString(n.Value[:off])
		}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := `"`
		if n.Style == yaml.SingleQuotedStyle {
			q = "'"
		}
		if strings.HasPrefix(l.textAt(n), q+n.Value+q) {
			p.Col += 1 + utf8.RuneCountInString(n.Value[:off])
		}
	}
	return p
}

// textAt is the rest of n's line in the file from n's column on.
func (l *loader) textAt(n *yaml.Node) string {
	if n.Line < 1 || n.Line > len(l.lines) {
		return ""
	}
	text := l.lines[n.Line-1]
	for col := 1; col < n.Column && text != ""; col++ {
		_, size := utf8.DecodeRuneInString(text)
		text = text[size:]
	}
	return text
}
