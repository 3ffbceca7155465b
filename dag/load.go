package dag

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/schemas"
)

// LoadOptions configure Load.
type LoadOptions struct {
	// Types are the node types a DAG may use; nil allows none.
	Types *nodes.Registry
	// Root, when set, confines the schema files the DAG names to this directory (see
	// contract.Options.Root).
	Root string
	// MaxFileSize caps the DAG file, its schema files and sub-DAG files, in bytes;
	// 0 is userfile.DefaultMaxSize. Named pipes and devices are refused whatever it is.
	MaxFileSize int64
	// Lang is the language of the diagnostics' messages and fixes: "en" (the default) or "ja".
	// Codes, keys, ids and values stay as they are; so do the words seam quotes from others
	// (YAML, CEL and JSON Schema compiler errors).
	Lang i18n.Lang
	// ReadFile, when set, reads the DAG file (Load), its schema files and its sub-DAG files in
	// place of the file system, each with its path as the loader resolved it: the Temporal
	// engine records what a DAG reads, and loads it again from that record. MaxFileSize is
	// then ReadFile's to hold.
	ReadFile func(path string) ([]byte, error)
	// TypeSchemas, when set, holds the node types' config schemas compiled for every load
	// given it (see TypeSchemas); nil compiles them in each load.
	TypeSchemas *TypeSchemas
	// Files, when set, keeps the contract files compiled for every load given it, as long as
	// the files they read are unchanged (see contract.FileCache); nil compiles them in each
	// load.
	Files *contract.FileCache
}

// Format defaults, kept in step with schemas/dag.schema.json.
const (
	defaultConcurrency = 8
	defaultMaxItems    = 1000
	defaultFactor      = 2
	maxAttempts        = 100
	// maxRepairs bounds on_invalid.repair: repairs re-run at once, with no backoff, and an
	// output that twenty told corrections have not fixed will not be fixed by more.
	maxRepairs = 20
)

// Load reads, parses and checks the DAG file at path. When the file is wrong the error is
// Diagnostics, holding every problem found; other errors (an unreadable file) are plain.
func Load(ctx context.Context, path string, opts LoadOptions) (*DAG, error) {
	src, err := opts.read(path)
	if err != nil {
		return nil, fmt.Errorf("load DAG: %w", err)
	}
	return LoadBytes(ctx, path, src, opts)
}

// LoadBytes parses and checks src as the DAG file at path: path names the file in positions,
// and relative schema paths resolve against its directory.
func LoadBytes(ctx context.Context, path string, src []byte, opts LoadOptions) (*DAG, error) {
	l, err := newLoader(path, src, opts)
	if err != nil {
		return nil, err
	}
	d := l.load(ctx)
	if l.fatal != nil {
		return nil, l.fatal
	}
	if len(l.diags) > 0 {
		l.diags.sort()
		return nil, l.diags
	}
	return d, nil
}

// loader holds the state of one Load.
type loader struct {
	opts   LoadOptions
	lang   i18n.Lang // of the messages: LoadOptions.Lang
	file   string
	dir    string
	src    []byte
	starts []int    // byte offset of each line's start, then len(src)
	lines  []string // without their line breaks
	types  *nodes.Registry
	comp   *contract.Compiler
	rc     *refCompiler
	diags  Diagnostics
	// fatal is an error that is not the file's fault (a built-in schema that does not
	// compile); it stops the load.
	fatal error

	configs     map[string]*contract.Schema // node type → its config schema
	typeOutputs map[string]*typeOutput      // node type and output schema → compiled
	schemaFiles map[string]schemaResult     // by absolute path
	parents     []string                    // absolute paths of the DAG files running this one
	maxFileSize int64                       // LoadOptions.MaxFileSize, for sub-DAG files
	nodesMap    *yaml.Node                  // the `nodes` mapping, whose duplicate keys are E102
	mergedKeys  map[*yaml.Node]bool         // keys a merge key (<<) copied from an anchor, checked where written
	srcs        []*nodeSource               // parallel to the DAG's Nodes
	sources     *sourceSet                  // the files this load read, at any depth
	subDAGs     map[string]*DAG             // by the id of the dag node that runs each
}

// typeOutput is a node type's output schema compiled, shared by its nodes.
type typeOutput struct {
	output    *contract.Schema // nil: the type promises nothing beyond the standard contract
	effective *contract.Schema // standard ∧ output, for nodes that declare no output contract
}

type schemaResult struct {
	s   *contract.Schema
	err error
}

// nodeSource is what the loader keeps of a node's YAML until references are checked.
type nodeSource struct {
	withNode *yaml.Node // nil when absent
	withKey  *yaml.Node
	// with is `with` as a JSON value, references left as strings, as a Checker sees it;
	// nil when it has no JSON equivalent.
	with        map[string]any
	dataRefs    []Ref // references in with and input: item and index allowed under foreach
	controlRefs []Ref // references in when and foreach: evaluated once per node
	needs       []needsEntry
	deps        []dep // the node's dependencies where first named, for cycles
}

type needsEntry struct {
	id  string
	pos Pos
}

// compilerOptions are the options of the loader's schema compiler.
// read reads the file at path, with ReadFile when it is set.
func (opts LoadOptions) read(path string) ([]byte, error) {
	if opts.ReadFile != nil {
		return opts.ReadFile(path)
	}
	return userfile.Read(path, opts.MaxFileSize)
}

func compilerOptions(opts LoadOptions, annotateFormat bool, catalog []contract.CatalogEntry) contract.Options {
	return contract.Options{
		Standard:       schemas.NodeOutput,
		Root:           opts.Root,
		ReadFile:       opts.read,
		AnnotateFormat: annotateFormat,
		Catalog:        catalog,
		Files:          opts.Files,
	}
}

// recompile replaces the loader's compiler with one for d's formats and catalog; it must be
// called before the first schema is compiled.
func (l *loader) recompile(d *DAG) error {
	comp, err := contract.NewCompiler(compilerOptions(l.opts, d.Formats == FormatsAnnotate, d.Catalog))
	if err != nil {
		return err
	}
	l.comp = comp
	return nil
}

func newLoader(path string, src []byte, opts LoadOptions) (*loader, error) {
	sources := &sourceSet{files: map[string]Source{}}
	sources.add(path, src)
	opts = opts.recording(sources)
	comp, err := contract.NewCompiler(compilerOptions(opts, false, nil))
	if err != nil {
		return nil, fmt.Errorf("load DAG: %w", err)
	}
	rc, err := newRefCompiler()
	if err != nil {
		return nil, fmt.Errorf("load DAG: %w", err)
	}
	rc.withSource(src)
	rc.lang = opts.Lang
	starts := lineStarts(src)
	lines := make([]string, len(starts)-1)
	for i := range lines {
		lines[i] = strings.TrimRight(string(src[starts[i]:starts[i+1]]), "\r\n\u0085\u2028\u2029")
	}
	types := opts.Types
	if types == nil {
		types = nodes.NewRegistry()
	}
	return &loader{
		file:        path,
		dir:         filepath.Dir(path),
		src:         src,
		starts:      starts,
		lines:       lines,
		types:       types,
		comp:        comp,
		rc:          rc,
		configs:     make(map[string]*contract.Schema),
		typeOutputs: make(map[string]*typeOutput),
		schemaFiles: make(map[string]schemaResult),
		maxFileSize: opts.MaxFileSize,
		sources:     sources,
		subDAGs:     map[string]*DAG{},
		opts:        opts,
		lang:        opts.Lang,
	}, nil
}

func (l *loader) pos(n *yaml.Node) Pos { return Pos{File: l.file, Line: n.Line, Col: n.Column} }

// add reports a problem at a position; msg and hint are said in l.lang already (i18n.Sprintf
// at each call, so that the catalog test finds every format).
func (l *loader) add(at Pos, code, hint, msg string) {
	l.diags = append(l.diags, Diagnostic{Pos: at, Code: code, Message: msg, Hint: hint})
}

func (l *loader) addAt(n *yaml.Node, code, hint, msg string) {
	l.add(l.pos(n), code, hint, msg)
}

// of names key of what in messages: `node "a" timeout`, in Japanese `ノード "a" の timeout`.
func (l *loader) of(what, key string) string {
	return i18n.Sprintf(l.lang, "%s %s", what, key)
}

// Top-level, node and nested keys of the format. Aliases map names other tools use to ours,
// for "did you mean".
var (
	topKeys      = []string{"version", "name", "description", "formats", "catalog", "params", "env", "defaults", "concurrency", "timeout", "n8n", "nodes", "outputs", "triggers"}
	formatsVals  = []string{FormatsAssert, FormatsAnnotate}
	defaultsKeys = []string{"timeout", "retry"}
	nodeKeys     = []string{"type", "with", "input", "needs", "when", "run_if", "foreach", "concurrency", "max_items", "retry", "timeout", "on_invalid", "contract"}
	retryKeys    = []string{"attempts", "backoff", "factor", "max_backoff", "on"}
	contractKeys = []string{"input", "output"}
	onInvalidKey = []string{"repair"}
	retryOnVals  = []string{"error", "timeout", "contract"}
	runIfVals    = []string{string(RunIfSuccess), string(RunIfAlways), string(RunIfFailure)}

	topKeyAliases = map[string]string{
		"steps": "nodes", "tasks": "nodes", "jobs": "nodes",
		"parameters": "params", "inputs": "params",
		"parallelism": "concurrency", "max_concurrency": "concurrency", "max_active_steps": "concurrency",
	}
	nodeKeyAliases = map[string]string{
		"depends": "needs", "depends_on": "needs", "dependencies": "needs", "after": "needs",
		"if": "when", "condition": "when",
		"config": "with", "args": "with", "params": "with", "parameters": "with",
		"retries": "retry", "for_each": "foreach", "with_items": "foreach", "loop": "foreach",
		"schema": "contract",
		// Dagu's and Argo's words for a step's condition, failure handling and command.
		"preconditions": "when", "precondition": "when", "continueOn": "run_if", "continue_on": "run_if",
		"retryPolicy": "retry", "retry_policy": "retry", "timeoutSec": "timeout", "timeout_sec": "timeout",
		"command": "with", "script": "with", "executor": "type",
	}
)

func (l *loader) load(ctx context.Context) *DAG {
	root, ok := l.parse()
	if !ok {
		return nil
	}
	sum := sha256.Sum256(l.src)
	d := &DAG{
		File:        l.file,
		Hash:        hex.EncodeToString(sum[:]),
		Dir:         l.dir,
		Version:     1,
		Concurrency: defaultConcurrency,
		ByID:        make(map[string]*Node),
		// By default a contract violation is not retried but left to on_invalid, which tells
		// the node what was wrong.
		Defaults: Defaults{Retry: Retry{Attempts: 1, Factor: defaultFactor, On: []string{"error", "timeout"}}},
	}
	if root.Kind != yaml.MappingNode {
		l.addAt(root, CodeInvalid, i18n.Format(l.lang, "start from `version: 1`, `name:` and `nodes:`"),
			i18n.Sprintf(l.lang, "a DAG file is a mapping of version, name and nodes, not %s", kindOf(l.lang, root)))
		return nil
	}
	// Top-level keys that start with x- are the file's own (Docker Compose's extension
	// fields): a place for anchors that nodes merge with `<<: *name`.
	known := topKeys
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i].Value; strings.HasPrefix(k, "x-") {
			known = append(slices.Clip(known), k)
		}
	}
	fs := l.fields(root, i18n.Format(l.lang, "the DAG file"), known, topKeyAliases)
	d.Formats = FormatsAssert
	if f, ok := fs.get("formats"); ok {
		// Before any schema is compiled: the compiler asserts format or not for all of them.
		if v, ok := l.enum(f.val, "formats", formatsVals); ok && v == FormatsAnnotate {
			d.Formats = v
			if err := l.recompile(d); err != nil {
				l.addAt(f.val, CodeInvalid, "", fmt.Sprintf("formats: %v", err))
			}
		}
	}
	if f, ok := fs.get("catalog"); ok {
		l.catalog(d, f)
	}
	if f, ok := fs.get("nodes"); ok {
		l.nodesMap = deref(f.val)
	}
	l.checkTree(root)

	if f, ok := fs.get("version"); ok {
		v := deref(f.val)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Value != "1" {
			l.addAt(v, CodeVersion, i18n.Format(l.lang, "write `version: 1`"), i18n.Sprintf(l.lang, "unsupported version %s: this seam reads version 1", describeScalar(l.lang, v)))
		}
	}
	if f, ok := fs.get("name"); ok {
		if s, ok := l.str(f, "name"); ok {
			if strings.TrimSpace(s) == "" {
				l.addAt(f.val, CodeInvalid, i18n.Format(l.lang, "name the DAG, e.g. `name: nightly-report`"), i18n.Format(l.lang, "name must not be empty"))
			}
			d.Name, d.NamePos = s, l.pos(f.val)
		}
	} else {
		l.add(Pos{File: l.file, Line: root.Line, Col: root.Column}, CodeInvalid, i18n.Format(l.lang, "add a `name:` that says what the DAG does, e.g. `name: nightly-report`"), i18n.Format(l.lang, "missing required key \"name\""))
	}
	if f, ok := fs.get("description"); ok {
		d.Description, _ = l.str(f, "description")
	}
	if f, ok := fs.get("params"); ok {
		d.Params = l.paramsSchema(f)
	}
	if f, ok := fs.get("env"); ok {
		d.Env = l.envVars(f)
	}
	if f, ok := fs.get("triggers"); ok {
		l.triggers(f, d)
	}
	if f, ok := fs.get("concurrency"); ok {
		if c, ok := l.integer(f, "concurrency", 1); ok {
			d.Concurrency = c
		}
	}
	if f, ok := fs.get("timeout"); ok {
		if dur, ok := l.positiveDuration(f, "timeout"); ok {
			d.Timeout = dur
		}
	}
	if f, ok := fs.get("defaults"); ok {
		l.defaults(f, &d.Defaults)
	}
	l.n8nDefaults(fs) // before the nodes are read: it fills in their with
	if f, ok := fs.get("nodes"); ok {
		l.nodes(ctx, f, d)
	} else {
		l.add(Pos{File: l.file, Line: root.Line, Col: root.Column}, CodeInvalid, i18n.Format(l.lang, "add a `nodes:` mapping of node ids to nodes"), i18n.Format(l.lang, "missing required key \"nodes\""))
	}
	if f, ok := fs.get("outputs"); ok {
		d.Outputs = l.outputs(f, d)
	}
	if ctx.Err() != nil {
		l.fatal = fmt.Errorf("load %s: %w", l.file, ctx.Err())
		return nil
	}
	l.resolveRefs(d)
	l.order(d)
	d.Sources = l.sources.all()
	if len(l.subDAGs) > 0 {
		d.SubDAGs = l.subDAGs
	}
	return d
}

// sort orders diagnostics by position, keeping the order found among equals.
func (ds Diagnostics) sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int { return comparePos(a.Pos, b.Pos) })
}

// yamlLine matches the position yaml.v3 puts in its syntax errors.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// parse decodes the one YAML document of the file.
func (l *loader) parse() (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(l.src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.add(Pos{File: l.file, Line: 1, Col: 1}, CodeInvalid, i18n.Format(l.lang, "start from `version: 1`, `name:` and `nodes:`"), i18n.Format(l.lang, "the file is empty"))
			return nil, false
		}
		l.syntaxError(err)
		return nil, false
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		l.addAt(&next, CodeYAML, i18n.Format(l.lang, "keep one DAG per file: remove the `---` and what follows"),
			i18n.Format(l.lang, "more than one YAML document in the file"))
		return nil, false
	case !errors.Is(err, io.EOF):
		l.syntaxError(err)
		return nil, false
	}
	if len(doc.Content) == 0 {
		l.add(Pos{File: l.file, Line: 1, Col: 1}, CodeInvalid, i18n.Format(l.lang, "start from `version: 1`, `name:` and `nodes:`"), i18n.Format(l.lang, "the file is empty"))
		return nil, false
	}
	if !l.checkAliases(&doc) || !l.expandMerges(&doc) {
		return nil, false
	}
	return doc.Content[0], true
}

// syntaxError reports a yaml.v3 syntax error. Its message says what is wrong, but the line it
// carries is that of the enclosing construct, 0-based for some errors and 1-based for others,
// and there is no column. So the line is found again: the first line whose addition turns a
// prefix of the file that parses into one that does not (binary search, O(log n) parses);
// the column is that line's first character.
func (l *loader) syntaxError(err error) {
	msg := strings.TrimPrefix(yamlLine().ReplaceAllString(err.Error(), ""), "yaml: ")
	starts := l.starts
	lo, hi := 0, len(starts)-1 // the first lo lines parse, the first hi do not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if parses(l.src[:starts[mid]]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	at := Pos{File: l.file, Line: hi, Col: 1}
	if hi-1 < len(l.lines) {
		text := l.lines[hi-1]
		at.Col = len(text) - len(strings.TrimLeft(text, " ")) + 1
	}
	l.add(at, CodeYAML, i18n.Format(l.lang, "check the indentation and quoting here: quote values that contain \": \" or start with one of {}[]*&!|>'\"%@`"),
		i18n.Sprintf(l.lang, "YAML syntax error: %s", msg))
}

// lineStarts returns the byte offset of each line's start in src, then len(src). Lines end
// where yaml.v3 ends them: at CR LF, CR, LF, NEL, LS or PS.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		n := 0
		switch {
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			n = 2
		case src[i] == '\r' || src[i] == '\n':
			n = 1
		case src[i] == 0xC2 && i+1 < len(src) && src[i+1] == 0x85:
			n = 2
		case src[i] == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9):
			n = 3
		}
		if n > 0 {
			i += n - 1
			if i+1 < len(src) {
				starts = append(starts, i+1)
			}
		}
	}
	return append(starts, len(src))
}

// parses reports whether every YAML document in b parses.
func parses(b []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// field is a key and its value in a mapping.
type field struct {
	key, val *yaml.Node
}

// fieldSet holds the known keys of a mapping and their values.
type fieldSet struct {
	known []string
	vals  []field // by index in known; key is nil when absent
}

func (fs fieldSet) get(name string) (field, bool) {
	for i, k := range fs.known {
		if k == name {
			return fs.vals[i], fs.vals[i].key != nil
		}
	}
	return field{}, false
}

// fields returns the known keys of mapping n and reports the unknown ones; what names n in
// messages. Only the first of duplicate keys counts (checkTree reports the others).
func (l *loader) fields(n *yaml.Node, what string, known []string, aliases map[string]string) fieldSet {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		if n.Tag != "!!null" {
			l.addAt(n, CodeInvalid, i18n.Sprintf(l.lang, "write it as `key: value` lines: %s", strings.Join(known, ", ")),
				i18n.Sprintf(l.lang, "%s must be a mapping, not %s", what, kindOf(l.lang, n)))
		}
		return fieldSet{}
	}
	fs := fieldSet{known: known, vals: make([]field, len(known))}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		j := slices.Index(known, k.Value)
		switch {
		case j < 0:
			if k.Kind == yaml.ScalarNode {
				l.unknownKey(k, what, known, aliases)
			}
		case fs.vals[j].key == nil:
			fs.vals[j] = field{key: k, val: v}
		}
	}
	return fs
}

func (l *loader) unknownKey(k *yaml.Node, what string, known []string, aliases map[string]string) {
	if s := didYouMean(k.Value, known, aliases); s != "" {
		l.addAt(k, CodeUnknownKey, i18n.Sprintf(l.lang, "rename it to %q", s),
			i18n.Sprintf(l.lang, "unknown key %q in %s; did you mean %q?", k.Value, what, s))
		return
	}
	l.addAt(k, CodeUnknownKey, i18n.Sprintf(l.lang, "remove it; %s may have: %s", what, strings.Join(known, ", ")),
		i18n.Sprintf(l.lang, "unknown key %q in %s", k.Value, what))
}

// str reads a string value.
func (l *loader) str(f field, what string) (string, bool) {
	v := deref(f.val)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		l.addAt(v, CodeInvalid, i18n.Format(l.lang, "quote it if it is meant as text"), i18n.Sprintf(l.lang, "%s must be a string, not %s", what, kindOf(l.lang, v)))
		return "", false
	}
	return v.Value, true
}

// integer reads an integer of at least minimum.
func (l *loader) integer(f field, what string, minimum int) (int, bool) {
	v := deref(f.val)
	i, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
		l.addAt(v, CodeInvalid, i18n.Sprintf(l.lang, "write a whole number, e.g. `%s: %d`", f.key.Value, max(minimum, 1)),
			i18n.Sprintf(l.lang, "%s must be an integer, not %s", what, describeScalar(l.lang, v)))
		return 0, false
	}
	if i < minimum {
		l.addAt(v, CodeInvalid, i18n.Sprintf(l.lang, "use %d or more", minimum), i18n.Sprintf(l.lang, "%s must be at least %d, got %d", what, minimum, i))
		return 0, false
	}
	return i, true
}

// duration reads a Go duration such as 30s, 2m or 1h30m.
func (l *loader) duration(f field, what string) (time.Duration, bool) {
	hint := i18n.Format(l.lang, "use Go duration syntax such as 30s, 2m or 1h30m")
	v := deref(f.val)
	if v.Kind != yaml.ScalarNode {
		l.addAt(v, CodeDuration, hint, i18n.Sprintf(l.lang, "%s: a duration must be a string such as 30s, not %s", what, kindOf(l.lang, v)))
		return 0, false
	}
	dur, err := time.ParseDuration(v.Value)
	if err != nil {
		l.addAt(v, CodeDuration, hint, i18n.Sprintf(l.lang, "%s: bad duration %q: %v", what, v.Value, err))
		return 0, false
	}
	if dur < 0 {
		l.addAt(v, CodeDuration, i18n.Format(l.lang, "durations count forward: drop the minus sign"), i18n.Sprintf(l.lang, "%s: bad duration %q: negative", what, v.Value))
		return 0, false
	}
	return dur, true
}

// enum reads a string that must be one of vals.
func (l *loader) enum(n *yaml.Node, what string, vals []string) (string, bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && slices.Contains(vals, n.Value) {
		return n.Value, true
	}
	hint := i18n.Sprintf(l.lang, "use one of: %s", strings.Join(vals, ", "))
	if s := didYouMean(n.Value, vals, nil); n.Kind == yaml.ScalarNode && s != "" {
		l.addAt(n, CodeInvalid, hint, i18n.Sprintf(l.lang, "%s: unknown value %q; did you mean %q?", what, n.Value, s))
		return "", false
	}
	l.addAt(n, CodeInvalid, hint, i18n.Sprintf(l.lang, "%s must be one of %s, not %s", what, strings.Join(vals, ", "), describeScalar(l.lang, n)))
	return "", false
}

func (l *loader) defaults(f field, def *Defaults) {
	fs := l.fields(f.val, "defaults", defaultsKeys, nil)
	if t, ok := fs.get("timeout"); ok {
		if dur, ok := l.positiveDuration(t, "defaults.timeout"); ok {
			def.Timeout = dur
		}
	}
	if r, ok := fs.get("retry"); ok {
		def.Retry = l.retry(r, "defaults.retry", def.Retry)
	}
}

// positiveDuration reads a timeout, which must be more than zero when given.
func (l *loader) positiveDuration(f field, what string) (time.Duration, bool) {
	dur, ok := l.duration(f, what)
	if ok && dur == 0 {
		l.addAt(f.val, CodeDuration, i18n.Format(l.lang, "remove it for no timeout, or give a positive duration such as 30s"), i18n.Sprintf(l.lang, "%s must be more than 0", what))
		return 0, false
	}
	return dur, ok
}

// retry reads a retry mapping; fields it does not set keep base's values.
func (l *loader) retry(f field, what string, base Retry) Retry {
	r := base
	fs := l.fields(f.val, what, retryKeys, nil)
	if a, ok := fs.get("attempts"); ok {
		if n, ok := l.integer(a, what+".attempts", 1); ok {
			if n > maxAttempts {
				// A retry storm against a failing service helps nobody; past this, fix the cause.
				l.addAt(a.val, CodeInvalid, i18n.Sprintf(l.lang, "use at most %d, with a backoff", maxAttempts),
					i18n.Sprintf(l.lang, "%s.attempts must be at most %d, got %d", what, maxAttempts, n))
			}
			r.Attempts = min(n, maxAttempts)
		}
	}
	if b, ok := fs.get("backoff"); ok {
		if dur, ok := l.duration(b, what+".backoff"); ok {
			r.Backoff = dur
		}
	}
	if m, ok := fs.get("max_backoff"); ok {
		if dur, ok := l.duration(m, what+".max_backoff"); ok {
			r.MaxBackoff = dur
		}
	}
	if fa, ok := fs.get("factor"); ok {
		v := deref(fa.val)
		x, err := strconv.ParseFloat(v.Value, 64)
		switch {
		case v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || err != nil:
			l.addAt(v, CodeInvalid, i18n.Format(l.lang, "write a number such as 2 or 1.5"), i18n.Sprintf(l.lang, "%s.factor must be a number, not %s", what, describeScalar(l.lang, v)))
		case x < 1:
			l.addAt(v, CodeInvalid, i18n.Format(l.lang, "use 1 for a constant backoff, or more to grow it"), i18n.Sprintf(l.lang, "%s.factor must be at least 1, got %s", what, v.Value))
		default:
			r.Factor = x
		}
	}
	if o, ok := fs.get("on"); ok {
		r.On = l.retryOn(o, what)
	}
	if m, ok := fs.get("max_backoff"); ok && r.MaxBackoff > 0 && r.MaxBackoff < r.Backoff {
		l.addAt(m.val, CodeInvalid, i18n.Format(l.lang, "make max_backoff at least backoff, or remove it"),
			i18n.Sprintf(l.lang, "%s.max_backoff %s is less than backoff %s", what, r.MaxBackoff, r.Backoff))
	}
	return r
}

func (l *loader) retryOn(f field, what string) []string {
	v := deref(f.val)
	if v.Kind != yaml.SequenceNode {
		l.addAt(v, CodeInvalid, i18n.Format(l.lang, "write a list, e.g. `on: [error, timeout]`"), i18n.Sprintf(l.lang, "%s.on must be a list of %s, not %s",
			what, strings.Join(retryOnVals, ", "), kindOf(l.lang, v)))
		return nil
	}
	var on []string
	for _, c := range v.Content {
		if s, ok := l.enum(c, what+".on", retryOnVals); ok && !slices.Contains(on, s) {
			on = append(on, s)
		}
	}
	return on
}

// nodes reads the nodes mapping, in file order.
func (l *loader) nodes(ctx context.Context, f field, d *DAG) {
	m := deref(f.val)
	if m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		at := m
		if m.Kind != yaml.MappingNode && m.Tag == "!!null" {
			at = f.key
		}
		l.addAt(at, CodeInvalid, i18n.Format(l.lang, "add at least one node, e.g. `hello: {type: const, with: {value: {status: pass, summary: hi}}}`"),
			i18n.Format(l.lang, "nodes must be a mapping of node ids to nodes, with at least one node"))
		return
	}
	first := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if i%1024 == 0 && ctx.Err() != nil {
			return
		}
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // checkTree reports it
		}
		id := k.Value
		if prev, dup := first[id]; dup {
			l.addAt(k, CodeDuplicateNode, i18n.Format(l.lang, "rename one of them: node ids are unique"),
				i18n.Sprintf(l.lang, "duplicate node id %q (first defined at line %d)", id, prev.Line))
			continue
		}
		first[id] = k
		if !validID(id) {
			l.addAt(k, CodeBadID, i18n.Sprintf(l.lang, "rename it to %q", suggestID(id)),
				i18n.Sprintf(l.lang, "bad node id %q: ids are a lowercase letter followed by lowercase letters, digits, _ or -", id))
		}
		n, src := l.node(id, k, v, d)
		l.subDAG(ctx, n, src)
		d.Nodes = append(d.Nodes, n)
		l.srcs = append(l.srcs, src)
		d.ByID[id] = n
	}
}

// validID reports whether id matches [a-z][a-z0-9_-]*.
func validID(id string) bool {
	if id == "" || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// suggestID turns an invalid id into a valid one: fetchData and "Fetch Data" become
// fetch_data. It prefers _ to -, which CEL reads as minus.
func suggestID(id string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range id {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(r - 'A' + 'a')
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-':
			b.WriteRune(r)
			prevLower = r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	s := strings.Trim(b.String(), "_-")
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "n" + s
	}
	return s
}

func (l *loader) node(id string, key, val *yaml.Node, d *DAG) (*Node, *nodeSource) {
	n := &Node{
		ID:       id,
		Pos:      l.pos(key),
		RunIf:    RunIfSuccess,
		MaxItems: defaultMaxItems,
		Retry:    cloneRetry(d.Defaults.Retry),
		Timeout:  d.Defaults.Timeout,
		With:     LiteralTemplate(map[string]any{}),
	}
	n.Hash = nodeHash(id, val)
	src := &nodeSource{}
	what := i18n.Sprintf(l.lang, "node %q", id)
	fs := l.fields(val, what, nodeKeys, nodeKeyAliases)
	if v := deref(val); v.Kind != yaml.MappingNode {
		if v.Tag == "!!null" {
			l.addAt(key, CodeInvalid, i18n.Format(l.lang, "add `type:` naming a node type; `seam types` lists them"), i18n.Sprintf(l.lang, "%s has no type", what))
		}
		return n, src
	}

	if f, ok := fs.get("type"); !ok {
		l.addAt(key, CodeInvalid, i18n.Format(l.lang, "add `type:` naming a node type; `seam types` lists them"), i18n.Sprintf(l.lang, "%s has no type", what))
	} else if name, ok := l.str(f, l.of(what, "type")); ok {
		if t, ok := l.types.Lookup(name); ok {
			n.Type = t
			n.Config = l.configSchema(t)
		} else {
			hint := i18n.Format(l.lang, "see `seam types` for the node types")
			if s := didYouMean(name, l.types.Names(), nil); s != "" {
				l.addAt(f.val, CodeUnknownType, hint, i18n.Sprintf(l.lang, "unknown node type %q; did you mean %q?", name, s))
			} else {
				l.addAt(f.val, CodeUnknownType, hint, i18n.Sprintf(l.lang, "unknown node type %q", name))
			}
		}
	}
	src.with = map[string]any{}
	if f, ok := fs.get("with"); ok {
		src.withKey = f.key
		if v := deref(f.val); v.Kind == yaml.MappingNode {
			src.withNode = v
			n.With = l.template(v)
			n.WithPos = make(map[string]Pos, len(v.Content)/2)
			for i := 0; i+1 < len(v.Content); i += 2 {
				n.WithPos[v.Content[i].Value] = l.pos(deref(v.Content[i+1]))
			}
			src.dataRefs = append(src.dataRefs, n.With.Refs()...)
			src.with = nil
			if wantsValue(n.Type) {
				if w, err := toValue(v); err == nil {
					src.with = w.(map[string]any)
				}
			}
			if n.Type != nil {
				l.approvalForm(n, src, what)
			}
		} else if v.Tag != "!!null" {
			l.addAt(v, CodeInvalid, i18n.Format(l.lang, "write the type's configuration as `key: value` lines"), i18n.Sprintf(l.lang, "%s: with must be a mapping, not %s", what, kindOf(l.lang, v)))
		}
	}
	if f, ok := fs.get("input"); ok {
		n.Input = l.template(f.val)
		n.InputPos = l.pos(f.key)
		src.dataRefs = append(src.dataRefs, n.Input.Refs()...)
	}
	if f, ok := fs.get("needs"); ok {
		l.needs(f, n, src)
	}
	if f, ok := fs.get("when"); ok {
		e, ds := l.rc.expr(l.file, deref(f.val))
		l.diags = append(l.diags, ds...)
		if e != nil {
			n.When = e
			src.controlRefs = append(src.controlRefs, e.Refs()...)
		}
	}
	if f, ok := fs.get("run_if"); ok {
		if s, ok := l.enum(f.val, l.of(what, "run_if"), runIfVals); ok {
			n.RunIf = RunIf(s)
		}
	}
	l.foreach(fs, n, src, d, what)
	if f, ok := fs.get("retry"); ok {
		n.Retry = l.retry(f, l.of(what, "retry"), d.Defaults.Retry)
	}
	if f, ok := fs.get("timeout"); ok {
		if dur, ok := l.positiveDuration(f, l.of(what, "timeout")); ok {
			n.Timeout = dur
		}
	}
	if f, ok := fs.get("on_invalid"); ok {
		oi := l.fields(f.val, l.of(what, "on_invalid"), onInvalidKey, nil)
		if r, ok := oi.get("repair"); ok {
			if k, ok := l.integer(r, l.of(what, "on_invalid.repair"), 0); ok {
				if k > maxRepairs {
					l.addAt(r.val, CodeInvalid, i18n.Sprintf(l.lang, "use at most %d; an output that so many corrections did not fix needs a change to the node", maxRepairs),
						i18n.Sprintf(l.lang, "%s.repair must be at most %d, got %d", l.of(what, "on_invalid"), maxRepairs, k))
				}
				n.Repair = min(k, maxRepairs)
			}
		}
	}
	var declaredOutput *yaml.Node
	if f, ok := fs.get("contract"); ok {
		cs := l.fields(f.val, l.of(what, "contract"), contractKeys, nil)
		if c, ok := cs.get("input"); ok {
			n.InputContract = l.schema(c.val, l.of(what, "contract.input"))
		}
		if c, ok := cs.get("output"); ok {
			declaredOutput = c.val
			n.OutputContract = l.schema(c.val, l.of(what, "contract.output"))
		}
	}
	if n.Type != nil {
		l.effective(n, src, declaredOutput)
		l.checkConfig(n, src, what)
	}
	return n, src
}

// wantsValue reports whether a node type reads `with` at load time: to check it, or to
// choose its output schema.
func wantsValue(t nodes.Type) bool {
	_, checks := t.(nodes.Checker)
	_, configured := t.(nodes.ConfiguredOutput)
	return checks || configured
}

func cloneRetry(r Retry) Retry {
	r.On = slices.Clone(r.On)
	return r
}

// template compiles a value whose strings may hold references.
func (l *loader) template(n *yaml.Node) *Template {
	t, ds := l.rc.template(l.file, n)
	l.diags = append(l.diags, ds...)
	return t
}

func (l *loader) needs(f field, n *Node, src *nodeSource) {
	v := deref(f.val)
	if v.Kind != yaml.SequenceNode {
		l.addAt(v, CodeInvalid, i18n.Format(l.lang, "write a list of node ids, e.g. `needs: [fetch]`"), i18n.Sprintf(l.lang, "node %q: needs must be a list of node ids, not %s", n.ID, kindOf(l.lang, v)))
		return
	}
	seen := make(map[string]bool, len(v.Content))
	for _, c := range v.Content {
		c = deref(c)
		if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
			l.addAt(c, CodeInvalid, i18n.Format(l.lang, "write a node id"), i18n.Sprintf(l.lang, "node %q: needs entries must be node ids, not %s", n.ID, kindOf(l.lang, c)))
			continue
		}
		if !seen[c.Value] {
			seen[c.Value] = true
			n.Needs = append(n.Needs, c.Value)
		}
		src.needs = append(src.needs, needsEntry{id: c.Value, pos: l.pos(c)})
	}
}

// foreach reads foreach and the keys that only apply with it.
func (l *loader) foreach(fs fieldSet, n *Node, src *nodeSource, d *DAG, what string) {
	f, ok := fs.get("foreach")
	if !ok {
		for _, k := range []string{"concurrency", "max_items"} {
			if g, ok := fs.get(k); ok {
				l.addAt(g.key, CodeInvalid, i18n.Sprintf(l.lang, "add `foreach:`, or remove %s (the DAG's concurrency is set at the top level)", k),
					i18n.Sprintf(l.lang, "%s: %s applies to foreach, and the node has none", what, k))
			}
		}
		return
	}
	v := deref(f.val)
	switch {
	case v.Kind == yaml.SequenceNode:
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str" && isOneRef(v.Value):
	default:
		l.addAt(v, CodeInvalid, i18n.Format(l.lang, "write `foreach: \"${{ nodes.<id>.output.data.items }}\"` or a list"),
			i18n.Sprintf(l.lang, "%s: foreach must be a list or one ${{ }} reference to a list, not %s", what, describeScalar(l.lang, v)))
		return
	}
	n.Foreach = l.template(v)
	src.controlRefs = append(src.controlRefs, n.Foreach.Refs()...)
	n.ForeachConcurrency = d.Concurrency
	if g, ok := fs.get("concurrency"); ok {
		if c, ok := l.integer(g, l.of(what, "concurrency"), 1); ok {
			n.ForeachConcurrency = c
		}
	}
	if g, ok := fs.get("max_items"); ok {
		if m, ok := l.integer(g, l.of(what, "max_items"), 1); ok {
			n.MaxItems = m
		}
	}
}

// isOneRef reports whether s is exactly one ${{ }} reference.
func isOneRef(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "${{") && strings.HasSuffix(s, "}}") &&
		strings.Count(s, "${{") == 1 && strings.Index(s, "}}") == len(s)-2
}

func (l *loader) outputs(f field, d *DAG) []Output {
	m := deref(f.val)
	if m.Kind != yaml.MappingNode {
		if m.Tag != "!!null" {
			l.addAt(m, CodeInvalid, i18n.Format(l.lang, "write `name: \"${{ nodes.<id>.output.<field> }}\"` lines"), i18n.Sprintf(l.lang, "outputs must be a mapping, not %s", kindOf(l.lang, m)))
		}
		return nil
	}
	var outs []Output
	seen := make(map[string]bool)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		outs = append(outs, Output{Name: k.Value, Pos: l.pos(k), Value: l.template(v)})
	}
	return outs
}

// nodeHash identifies a node's definition: its id and its YAML tree (kinds, tags and values;
// comments, layout and positions do not count). Walking the tree costs a tenth of encoding it.
func nodeHash(id string, val *yaml.Node) string {
	h := sha256.New()
	h.Write([]byte(id))
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		n = deref(n)
		fmt.Fprintf(h, "\x00%d:%s:%d:%s:%d", n.Kind, n.Tag, len(n.Value), n.Value, len(n.Content))
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(val)
	return hex.EncodeToString(h.Sum(nil))
}
