package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
)

// Explanation says why a node of a recorded run failed or rejected its input. `seam explain`
// prints it and the MCP tool explain_node returns it.
type Explanation struct {
	Run      string         `json:"run"`
	DAG      string         `json:"dag,omitempty"` // the sub-run's DAG's name, in SubRun
	Node     string         `json:"node"`
	Type     string         `json:"type,omitempty"`
	Status   dag.NodeStatus `json:"status"` // as NodeSummary.Status
	Attempts int            `json:"attempts"`
	// Items counts a foreach node's items. Its Attempts are per item (NodeSummary.Attempts),
	// and its reason names the item that failed and that item's attempts.
	Items int `json:"items,omitempty"`
	// Reason is why the node ended so, in a phrase: the recorded reason, or "output breaks
	// its contract" when it failed on violations without one.
	Reason string `json:"reason,omitempty"`
	// Error is the node's error when it says more than Reason.
	Error string `json:"error,omitempty"`
	Log   string `json:"log,omitempty"`
	// Item and Output are, for a foreach node, its first failed item and that item's output,
	// shortened to outputExcerpt bytes: an item that fails often says why in it.
	Item   *int   `json:"item,omitempty"`
	Output string `json:"output,omitempty"`
	// Upstream is, for a skipped node, the upstream node whose failure skipped it: the one
	// to explain instead.
	Upstream   string               `json:"upstream,omitempty"`
	Violations []ExplainedViolation `json:"violations,omitempty"`
	// File is the run's DAG file, shown as ExplainOptions.ShowPath says, when it was needed
	// (there are violations); FileNote says why the explanation may be partial: the file
	// changed since the run, or could not be read.
	File     string `json:"file,omitempty"`
	FileNote string `json:"file_note,omitempty"`
	// SubRun, for a `dag` node that failed, explains the first node that failed in the
	// sub-run its reason names.
	SubRun *Explanation `json:"sub_run,omitempty"`
}

// ExplainedViolation is one contract violation with where its value came from and the
// contract lines it broke.
type ExplainedViolation struct {
	Pointer string `json:"pointer"` // JSON Pointer to the value ("" is the root)
	Message string `json:"message"`
	// Value is the value at fault as JSON, shortened; empty when the field is missing.
	Value string `json:"value,omitempty"`
	// Input is whether the node's input broke its contract.input (else its output broke
	// its output contract).
	Input bool `json:"input,omitempty"`
	// From says where the value came from: the node's own output, or for an input the
	// upstream output, param or literal that produced it.
	From string `json:"from"`
	// Producer is the upstream node that produced an input value, when it is one.
	Producer string      `json:"producer,omitempty"`
	Contract ContractRef `json:"contract"`
}

// At is where the violation is, for people: its pointer, "/" for the root.
func (v ExplainedViolation) At() string { return contract.Violation{Pointer: v.Pointer}.At() }

// ContractRef locates a broken keyword in the node's contract in the DAG file.
type ContractRef struct {
	// Keyword is the broken keyword as the validator reports it: a JSON Pointer into the
	// schema it validated against.
	Keyword string `json:"keyword"`
	// Declared is whether the node declares the schema that was broken (contract.output or
	// contract.input) in the DAG file.
	Declared bool `json:"declared"`
	// File, Line, Path (the keyword within the node, e.g. contract.output/properties/x/maximum,
	// or within the contract's own file, /properties/x/maximum) and Lines locate the keyword
	// in the DAG file or the contract file; empty when it is not there, and Note says why.
	File  string       `json:"file,omitempty"`
	Line  int          `json:"line,omitempty"`
	Path  string       `json:"path,omitempty"`
	Lines []SourceLine `json:"lines,omitempty"`
	Note  string       `json:"note,omitempty"`
}

// SourceLine is a numbered line of a file.
type SourceLine struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// UnknownNodeError is Explain's error for a node the run does not have.
type UnknownNodeError struct {
	Run   string
	Node  string
	Nodes []string  // the run's nodes, in the order they were recorded
	Lang  i18n.Lang // of the message
}

func (e *UnknownNodeError) Error() string {
	return i18n.Sprintf(e.Lang, "run %s has no node %q; its nodes: %s", e.Run, e.Node, strings.Join(e.Nodes, ", "))
}

// ExplainOptions say how Explain reaches and shows the run's DAG file.
type ExplainOptions struct {
	// ShowPath turns the recorded DAG file path into the one shown (e.g. relative to the
	// current directory); nil shows it as recorded.
	ShowPath func(path string) string
	// ReadFile reads the run's DAG file, for the contract lines and the producers of input
	// values; nil reads a regular file of at most userfile.DefaultMaxSize. A caller that must confine what it reads refuses here,
	// and the explanation goes without the lines, with a note.
	ReadFile func(path string) ([]byte, error)
	// Lang is the language of what Explain says itself ("en" or "ja"); the recorded reasons
	// and violations are in the language of the run.
	Lang i18n.Lang
}

// inputBroken reports whether a recorded reason says the node's input broke its contract.
func inputBroken(reason string) bool {
	for _, l := range i18n.Langs() { // the languages a run's reasons may be recorded in
		if strings.HasPrefix(reason, i18n.Format(l, "input breaks its contract")) {
			return true
		}
	}
	return false
}

// Explain says why node of run r (with its attempts as, from GetRun) ended as it did. A node
// that passed or warned, or was skipped, needs no more than its status and reason; for one
// that failed it adds the error, the log and each violation, read against the run's DAG file.
// An unknown node is an *UnknownNodeError.
func Explain(ctx context.Context, s Store, r *Run, as []Attempt, node string, opts ExplainOptions) (*Explanation, error) {
	return explain(ctx, s, r, as, node, opts, 0)
}

// outputExcerpt bounds the bytes of a failed item's output an explanation quotes; the store
// keeps it whole (runs show --json names it by hash, get_run with raw returns it).
const outputExcerpt = 2000

// maxSubRunDepth bounds how many sub-runs deep Explain follows a failure (DAG files cannot
// include each other in a cycle, so only a very deep nesting of files reaches it).
const maxSubRunDepth = 16

// explain is Explain for a run depth sub-runs deep.
func explain(ctx context.Context, s Store, r *Run, as []Attempt, node string, opts ExplainOptions, depth int) (*Explanation, error) {
	nodes := Summarize(as)
	var n *NodeSummary
	for _, x := range nodes {
		if x.ID == node {
			n = x
		}
	}
	if n == nil {
		ids := make([]string, len(nodes))
		for i, x := range nodes {
			ids[i] = x.ID
		}
		return nil, &UnknownNodeError{Run: r.ID, Node: node, Nodes: ids, Lang: opts.Lang}
	}
	f := n.Final
	e := &Explanation{Run: r.ID, Node: n.ID, Type: n.Type, Status: n.Status(), Attempts: n.Attempts, Items: n.Items, Reason: f.Reason}
	if e.Reason == "" && len(f.Violations) > 0 {
		e.Reason = i18n.Sprintf(opts.Lang, "output breaks its contract")
	}
	switch e.Status {
	case dag.NodePassed, dag.NodeWarned:
		return e, nil
	case dag.NodeSkipped:
		e.Upstream = upstreamIn(f.Reason)
		return e, nil
	}
	if f.Error != f.Reason {
		e.Error = f.Error
	}
	e.Log = f.Log
	if n.Type == "dag" && depth < maxSubRunDepth {
		sub, err := explainSubRun(ctx, s, r.ID, f.Reason, opts, depth+1)
		if err != nil {
			return nil, fmt.Errorf("explain %s in run %s: %w", node, r.ID, err)
		}
		e.SubRun = sub
	}
	if failed := FailedItems(as, n.ID); len(failed) > 0 && failed[0].OutputHash != "" {
		b, err := AttemptOutput(ctx, s, failed[0])
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("explain %s in run %s: %w", node, r.ID, err)
		}
		e.Item, e.Output = &failed[0].Item, excerpt(strings.TrimSpace(string(b)), outputExcerpt)
	}
	if len(f.Violations) == 0 {
		return e, nil
	}

	src := readDAG(r, opts)
	src.lang = opts.Lang
	e.File, e.FileNote = src.path, src.note
	input := inputBroken(f.Reason)
	var output any
	if !input && f.OutputHash != "" {
		b, err := AttemptOutput(ctx, s, f)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("explain %s in run %s: %w", node, r.ID, err)
		}
		// An output that is not JSON has no values to show: the violations still say why.
		output, _ = contract.ParseJSON(b)
	}
	for _, v := range f.Violations {
		ev := ExplainedViolation{Pointer: v.Pointer, Message: v.Message, Value: v.Value, Input: input}
		if ev.Value == "" && output != nil {
			if x := contract.ValueAt(output, v.Pointer); x != nil {
				b, _ := json.Marshal(x) // decoded from JSON: it encodes again
				ev.Value = excerpt(string(b), 120)
			}
		}
		if input {
			ev.From, ev.Producer = src.producer(n.ID, v.Pointer, nodes)
		} else {
			ev.From = i18n.Sprintf(opts.Lang, "%s's own output", n.ID)
		}
		ev.Contract = src.contractRef(n.ID, input, v.Keyword)
		e.Violations = append(e.Violations, ev)
	}
	return e, nil
}

// subRunID finds the sub-run a dag node's reason names: "sub-run ID (NAME) failed: …", or
// its Japanese (engine/subdag.go says it in the run's language).
var subRunID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\bsub-run|サブ実行) (\S+) \(`) })

// explainSubRun explains the first failed node of the sub-run that reason, a dag node's of
// run parent, names; nil when it names none that parent started (a store from before
// sub-runs were recorded, a sub-run that never started, or one without a failed node).
func explainSubRun(ctx context.Context, s Store, parent, reason string, opts ExplainOptions, depth int) (*Explanation, error) {
	m := subRunID().FindStringSubmatch(reason)
	if m == nil {
		return nil, nil
	}
	sr, as, err := s.GetRun(ctx, m[1])
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if sr.Parent != parent {
		return nil, nil
	}
	for _, n := range Summarize(as) {
		if n.Status() == dag.NodeFailed {
			x, err := explain(ctx, s, sr, as, n.ID, opts, depth)
			if x != nil {
				x.DAG = sr.DAG
			}
			return x, err
		}
	}
	return nil, nil
}

// upstreamIn finds the node a skip reason names ("upstream X failed", in either language).
func upstreamIn(reason string) string {
	for _, l := range i18n.Langs() {
		lead, _, _ := strings.Cut(i18n.Format(l, "upstream %s failed"), "%s")
		if rest, ok := strings.CutPrefix(reason, lead); ok {
			id, _, _ := strings.Cut(rest, " ")
			return id
		}
	}
	return ""
}

// dagFile is the run's DAG file, parsed again to map violations to its lines.
type dagFile struct {
	path  string // as shown
	read  bool   // whether it was read and parsed
	lines []string
	nodes *yaml.Node // the `nodes` mapping
	note  string     // why the explanation may be partial
	lang  i18n.Lang  // of what Explain says
	// file is the DAG file's path as recorded, show and readFile as ExplainOptions has
	// them: for the contracts kept in files beside it.
	file     string
	show     func(string) string
	readFile func(string) ([]byte, error)
}

// schemaFile is a contract kept in a file, parsed to map violations to its lines.
type schemaFile struct {
	path  string // as shown
	root  *yaml.Node
	lines []string
}

// contractFile reads the contract file that a node's contract names (relative to the DAG
// file, as the loader resolves it); ok is false, with a note, when it cannot be read.
func (df *dagFile) contractFile(name string) (f schemaFile, note string) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(df.file), p)
	}
	f.path = p
	if df.show != nil {
		f.path = df.show(p)
	}
	b, err := df.readFile(p)
	if err != nil {
		return f, i18n.Sprintf(df.lang, "the contract file %s could not be read (%v)", f.path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 {
		return f, i18n.Sprintf(df.lang, "the contract file %s no longer parses", f.path)
	}
	f.root, f.lines = doc.Content[0], strings.Split(string(b), "\n")
	return f, ""
}

func readDAG(r *Run, opts ExplainOptions) *dagFile {
	df := &dagFile{path: r.File, lang: opts.Lang, file: r.File, show: opts.ShowPath}
	if r.File == "" {
		df.note = i18n.Sprintf(opts.Lang, "the run was not loaded from a file: no contract lines")
		return df
	}
	if opts.ShowPath != nil {
		df.path = opts.ShowPath(r.File)
	}
	read := opts.ReadFile
	if read == nil {
		read = func(path string) ([]byte, error) { return userfile.Read(path, 0) }
	}
	df.readFile = read
	b, err := read(r.File)
	if err != nil {
		df.note = i18n.Sprintf(opts.Lang, "the run's DAG file could not be read (%v): no contract lines", err)
		return df
	}
	if sum := sha256.Sum256(b); r.FileHash != "" && hex.EncodeToString(sum[:]) != r.FileHash {
		df.note = i18n.Sprintf(opts.Lang, "%s changed since the run: the lines shown are today's", df.path)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 {
		df.note = i18n.Sprintf(opts.Lang, "%s no longer parses: no contract lines", df.path)
		return df
	}
	df.read = true
	df.lines = strings.Split(string(b), "\n")
	df.nodes = mapGet(doc.Content[0], "nodes")
	return df
}

// producer says where the input value at ptr came from: an upstream node's output (the
// default input, or a reference in the node's input template), a param, or the file; and
// the upstream node when it is one.
func (df *dagFile) producer(node, ptr string, nodes []*NodeSummary) (from, producer string) {
	if !df.read {
		return i18n.Sprintf(df.lang, "unknown (the run's DAG file was not read)"), ""
	}
	toks := contract.PointerTokens(ptr)
	n := mapGet(df.nodes, node)
	if n == nil {
		return i18n.Sprintf(df.lang, "unknown (the node is not in the DAG file any more)"), ""
	}
	in := mapGet(n, "input")
	if in == nil {
		// The default input is an object of the upstream outputs keyed by node id.
		if len(toks) == 0 {
			return i18n.Sprintf(df.lang, "the node's default input (its upstream outputs by id)"), ""
		}
		return describeOutput(df.lang, toks[0], toks[1:], nodes), toks[0]
	}
	at := in
	for i, t := range toks {
		if ref := plainRef(at); ref != nil {
			return df.fromRef(ref, at, toks[i:], nodes)
		}
		next := yamlChild(at, t)
		if next == nil {
			return i18n.Sprintf(df.lang, "nothing: the node's input (%s:%d) has no %s", df.path, at.Line, pointerOf(toks[:i+1])), ""
		}
		at = next
	}
	if ref := plainRef(at); ref != nil {
		return df.fromRef(ref, at, nil, nodes)
	}
	if at.Kind == yaml.ScalarNode && strings.Contains(at.Value, "${{") {
		return i18n.Sprintf(df.lang, "the expression %s at %s:%d", at.Value, df.path, at.Line), ""
	}
	return i18n.Sprintf(df.lang, "the value written in the node's input at %s:%d", df.path, at.Line), ""
}

func (df *dagFile) fromRef(ref []string, at *yaml.Node, rest []string, nodes []*NodeSummary) (from, producer string) {
	where := i18n.Sprintf(df.lang, "(%s at %s:%d)", strings.TrimSpace(at.Value), df.path, at.Line)
	switch ref[0] {
	case "nodes":
		return describeOutput(df.lang, ref[1], append(append([]string{}, ref[2:]...), rest...), nodes) + " " + where, ref[1]
	case "params":
		return i18n.Sprintf(df.lang, "the run's params at %s %s", pointerOf(append(append([]string{}, ref[1:]...), rest...)), where), ""
	}
	return fmt.Sprintf("%s %s", ref[0], where), ""
}

// describeOutput names a field of an upstream node's output and says how that node ended.
func describeOutput(lang i18n.Lang, node string, path []string, nodes []*NodeSummary) string {
	s := i18n.Sprintf(lang, "node %s, its output at %s", node, pointerOf(path))
	for _, n := range nodes {
		if n.ID == node {
			status := StatusText(lang, n.Status())
			if n.Final.Reused {
				return s + i18n.Sprintf(lang, " (%s %s, reused)", node, status)
			}
			return s + i18n.Sprintf(lang, " (%s %s)", node, status)
		}
	}
	return s
}

// StatusText is a node's status (NodeSummary.Status) or a run's as a word of lang, for people.
func StatusText[S ~string](lang i18n.Lang, st S) string {
	status := string(st)
	switch status {
	case string(Unfinished):
		return i18n.Format(lang, "unfinished")
	case "interrupted": // a run's, whose process died
		return i18n.Format(lang, "interrupted")
	}
	if s := dag.NodeStatus(status); s.Text(lang) != status {
		return s.Text(lang)
	}
	return dag.RunStatus(status).Text(lang)
}

// refPattern matches a string that is exactly one plain reference, like
// ${{ nodes.a.output.data.items[0] }}; anything richer is shown as an expression.
var refPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\{\{\s*((?:nodes\.[A-Za-z_][\w-]*\.output|params)(?:\.[A-Za-z_][\w-]*|\[\d+\])*)\s*\}\}$`)
})

// plainRef returns the path a scalar that is one plain reference names: ["nodes", id,
// fields...] (output fields) or ["params", fields...]; nil for anything else.
func plainRef(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	m := refPattern().FindStringSubmatch(strings.TrimSpace(n.Value))
	if m == nil {
		return nil
	}
	var out []string
	for _, part := range strings.Split(strings.ReplaceAll(m[1], "[", ".["), ".") {
		if i, ok := strings.CutPrefix(part, "["); ok {
			part = strings.TrimSuffix(i, "]")
		}
		out = append(out, part)
	}
	if out[0] == "nodes" {
		// nodes.ID.output.rest → nodes, ID, rest
		out = append(out[:2], out[3:]...)
	}
	return out
}

// contractRef finds the lines of the node's contract that hold the broken keyword.
func (df *dagFile) contractRef(node string, input bool, keyword string) ContractRef {
	ref := ContractRef{Keyword: keyword}
	if !df.read {
		ref.Note = i18n.Sprintf(df.lang, "the run's DAG file was not read")
		return ref
	}
	// elsewhere is where a keyword the file's contract does not hold comes from.
	elsewhere := i18n.Sprintf(df.lang, "the standard output contract or the node type's")
	which := "output"
	if input {
		which = "input"
	}
	schema := mapGet(mapGet(mapGet(df.nodes, node), "contract"), which)
	if schema == nil {
		ref.Note = elsewhere
		return ref
	}
	ref.Declared = true
	file, lines, path := df.path, df.lines, "contract."+which
	if schema.Kind == yaml.ScalarNode {
		// A contract kept in a file: the lines are that file's, the path a pointer in it.
		f, note := df.contractFile(schema.Value)
		if note != "" {
			ref.Note = note
			return ref
		}
		schema, file, lines, path = f.root, f.path, f.lines, ""
	}
	toks := contract.PointerTokens(keyword)
	if !input {
		// The output is validated against an allOf of the standard contract, the type's
		// output schema and the declared contract: the last is the one in the file. The
		// standard contract is always the first part, so what breaks it is never in the file
		// (a missing status is not the declared contract's required).
		if len(toks) >= 2 && toks[0] == "allOf" {
			if toks[1] == "0" {
				ref.Declared = false
				ref.Note = i18n.Sprintf(df.lang, "the standard output contract")
				return ref
			}
			toks = toks[2:]
		}
	}
	// The lines of the keys along the way: the keyword's, and its property's above it.
	at, keys := schema, make([]int, 0, len(toks))
	for _, t := range toks {
		next := yamlChild(at, t)
		if next == nil {
			at = nil
			break
		}
		keys = append(keys, keyLine(at, t, next))
		at = next
	}
	if at == nil {
		ref.Note = i18n.Sprintf(df.lang, "not in the node's contract.%s (%s)", which, elsewhere)
		return ref
	}
	line := schema.Line
	first := line
	if len(keys) > 0 {
		line = keys[len(keys)-1]
		first = line
	}
	if len(keys) > 1 && line-keys[len(keys)-2] <= 4 {
		first = keys[len(keys)-2]
	}
	ref.File, ref.Line, ref.Path = file, line, path+pointerOf(toks)
	for l := first; l <= line && l-1 < len(lines); l++ {
		ref.Lines = append(ref.Lines, SourceLine{N: l, Text: lines[l-1]})
	}
	return ref
}

// keyLine is the line of key in mapping m (that of value v when m is not a mapping).
func keyLine(m *yaml.Node, key string, v *yaml.Node) int {
	if m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i].Line
			}
		}
	}
	return v.Line
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// yamlChild steps into a mapping by key or a sequence by index.
func yamlChild(n *yaml.Node, tok string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		return mapGet(n, tok)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	return nil
}

func pointerOf(toks []string) string {
	if len(toks) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// excerpt is s cut to at most limit bytes, at a rune's start so that no character is halved,
// and marked cut.
func excerpt(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	return s[:limit] + "…"
}
