package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/runs"
)

func newExplainCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "explain RUN NODE",
		Short: "Say why a node of a recorded run failed or rejected its input",
		Long: `Explain why a node of a recorded run failed: each contract violation with the value at
fault, the upstream node that produced it (for a rejected input) and the contract lines it
broke, read from the run's DAG file.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return explain(cmd.Context(), e, &sf, args[0], args[1])
		},
	}
	sf.add(cmd)
	return cmd
}

func explain(ctx context.Context, e *env, sf *storeFlag, id, node string) error {
	s, err := openStoreToRead(ctx, e, sf)
	if err != nil {
		return err
	}
	defer s.Close()
	r, as, err := getRun(ctx, s, id)
	if err != nil {
		return err
	}
	var n *nodeSummary
	nodes := summarize(as)
	for _, x := range nodes {
		if x.id == node {
			n = x
		}
	}
	if n == nil {
		ids := make([]string, len(nodes))
		for i, x := range nodes {
			ids[i] = x.id
		}
		return usage(fmt.Errorf("run %s has no node %q; its nodes: %s", r.ID, node, strings.Join(ids, ", ")))
	}
	f := n.final
	w := e.stdout
	fmt.Fprintf(w, "%s %s in run %s", n.id, n.status(), r.ID)
	if n.attempts > 1 {
		fmt.Fprintf(w, " after %d attempts", n.attempts)
	}
	why := f.Reason
	if why == "" && len(f.Violations) > 0 {
		why = "output breaks its contract"
	}
	if why != "" {
		fmt.Fprintf(w, ": %s", why)
	}
	fmt.Fprintln(w)

	switch n.status() {
	case "passed", "warned":
		fmt.Fprintf(w, "nothing to explain: it %s\n", n.status())
		return nil
	case "skipped":
		if up := upstreamIn(f.Reason); up != "" {
			fmt.Fprintf(w, "see why %s did not pass: seam explain %s %s\n", up, r.ID, up)
		}
		return nil
	}
	if f.Error != "" && f.Error != f.Reason {
		fmt.Fprintf(w, "error: %s\n", f.Error)
	}
	if f.Log != "" {
		fmt.Fprintf(w, "log:\n%s\n", indent(strings.TrimRight(f.Log, "\n"), "  "))
	}
	if len(f.Violations) == 0 {
		return nil
	}

	src := dagSource(e, r)
	input := strings.HasPrefix(f.Reason, "input breaks")
	var output any
	if !input && f.OutputHash != "" {
		if b, err := s.Output(ctx, f.OutputHash); err == nil {
			output, _ = contract.ParseJSON(b)
		}
	}
	for _, v := range f.Violations {
		fmt.Fprintf(w, "\n%s: %s\n", pointerOrRoot(v.Pointer), v.Message)
		value := v.Value
		if value == "" && output != nil {
			if x := contract.ValueAt(output, v.Pointer); x != nil {
				b, _ := json.Marshal(x)
				value = excerptText(string(b), 120)
			}
		}
		if value == "" {
			value = "(missing)"
		}
		fmt.Fprintf(w, "  value:     %s\n", value)
		if input {
			fmt.Fprintf(w, "  from:      %s\n", src.producer(n.id, v.Pointer, r.ID, as))
		} else {
			fmt.Fprintf(w, "  from:      %s's own output\n", n.id)
		}
		src.contractLines(w, n.id, input, v.Keyword)
	}
	if src.note != "" {
		fmt.Fprintf(w, "\nnote: %s\n", src.note)
	}
	return nil
}

// upstreamIn finds the node a skip reason names ("upstream X failed").
func upstreamIn(reason string) string {
	rest, ok := strings.CutPrefix(reason, "upstream ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, " ")
	return id
}

// dagFile is the run's DAG file, parsed again to map violations to its lines.
type dagFile struct {
	path  string
	lines []string
	nodes *yaml.Node // the `nodes` mapping; nil when the file could not be read
	note  string     // why the explanation may be partial
}

func dagSource(e *env, r *runs.Run) *dagFile {
	df := &dagFile{path: displayPath(r.File)}
	b, err := os.ReadFile(r.File)
	if err != nil {
		df.note = fmt.Sprintf("the run's DAG file could not be read (%v): no contract lines", err)
		return df
	}
	if sum := sha256.Sum256(b); r.FileHash != "" && hex.EncodeToString(sum[:]) != r.FileHash {
		df.note = fmt.Sprintf("%s changed since the run: the lines shown are today's", df.path)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 {
		df.note = fmt.Sprintf("%s no longer parses: no contract lines", df.path)
		return df
	}
	df.lines = strings.Split(string(b), "\n")
	df.nodes = mapGet(doc.Content[0], "nodes")
	return df
}

// producer says where the input value at ptr came from: an upstream node's output (the
// default input, or a reference in the node's input template), a param, or the file.
func (df *dagFile) producer(node, ptr, runID string, as []runs.Attempt) string {
	toks := contract.PointerTokens(ptr)
	n := mapGet(df.nodes, node)
	if n == nil {
		return "unknown (the node is not in the DAG file any more)"
	}
	in := mapGet(n, "input")
	if in == nil {
		// The default input is an object of the upstream outputs keyed by node id.
		if len(toks) == 0 {
			return "the node's default input (its upstream outputs by id)"
		}
		return describeOutput(toks[0], toks[1:], runID, as)
	}
	at := in
	for i, t := range toks {
		if ref := plainRef(at); ref != nil {
			return df.fromRef(ref, at, toks[i:], runID, as)
		}
		next := yamlChild(at, t)
		if next == nil {
			return fmt.Sprintf("nothing: the node's input (%s:%d) has no %s", df.path, at.Line, pointerOf(toks[:i+1]))
		}
		at = next
	}
	if ref := plainRef(at); ref != nil {
		return df.fromRef(ref, at, nil, runID, as)
	}
	if at.Kind == yaml.ScalarNode && strings.Contains(at.Value, "${{") {
		return fmt.Sprintf("the expression %s at %s:%d", at.Value, df.path, at.Line)
	}
	return fmt.Sprintf("the value written in the node's input at %s:%d", df.path, at.Line)
}

func (df *dagFile) fromRef(ref []string, at *yaml.Node, rest []string, runID string, as []runs.Attempt) string {
	where := fmt.Sprintf("(%s at %s:%d)", strings.TrimSpace(at.Value), df.path, at.Line)
	switch ref[0] {
	case "nodes":
		return describeOutput(ref[1], append(append([]string{}, ref[2:]...), rest...), runID, as) + " " + where
	case "params":
		return fmt.Sprintf("the run's params at %s %s", pointerOf(append(append([]string{}, ref[1:]...), rest...)), where)
	}
	return fmt.Sprintf("%s %s", ref[0], where)
}

// describeOutput names a field of an upstream node's output and says how that node ended.
func describeOutput(node string, path []string, runID string, as []runs.Attempt) string {
	s := fmt.Sprintf("node %s, its output at %s", node, pointerOf(path))
	for _, n := range summarize(as) {
		if n.id == node {
			s += fmt.Sprintf(" (%s %s", node, n.status())
			if n.final.Reused {
				s += ", reused"
			}
			return s + ")"
		}
	}
	return s
}

// refPattern matches a string that is exactly one plain reference, like
// ${{ nodes.a.output.data.items[0] }}; anything richer is shown as an expression.
var refPattern = regexp.MustCompile(`^\$\{\{\s*((?:nodes\.[A-Za-z_][\w-]*\.output|params)(?:\.[A-Za-z_][\w-]*|\[\d+\])*)\s*\}\}$`)

// plainRef returns the path a scalar that is one plain reference names: ["nodes", id,
// fields...] (output fields) or ["params", fields...]; nil for anything else.
func plainRef(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	m := refPattern.FindStringSubmatch(strings.TrimSpace(n.Value))
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

// contractLines prints the lines of the node's contract that hold the broken keyword.
func (df *dagFile) contractLines(w io.Writer, node string, input bool, keyword string) {
	c := mapGet(mapGet(df.nodes, node), "contract")
	which := "output"
	if input {
		which = "input"
	}
	schema := mapGet(c, which)
	toks := contract.PointerTokens(keyword)
	if !input {
		// The output is validated against an allOf of the standard contract, the type's
		// output schema and the declared contract: the last is the one in the file.
		if len(toks) >= 2 && toks[0] == "allOf" {
			toks = toks[2:]
		}
	}
	if schema == nil {
		fmt.Fprintf(w, "  contract:  %s (the standard output contract or the node type's)\n", keyword)
		return
	}
	// The lines of the keys along the way: the keyword's, and its property's above it.
	at, lines := schema, make([]int, 0, len(toks))
	for _, t := range toks {
		next := yamlChild(at, t)
		if next == nil {
			at = nil
			break
		}
		lines = append(lines, keyLine(at, t, next))
		at = next
	}
	if at == nil {
		fmt.Fprintf(w, "  contract:  %s, not in the node's contract.%s (the standard output contract or the node type's)\n", keyword, which)
		return
	}
	line := schema.Line
	first := line
	if len(lines) > 0 {
		line = lines[len(lines)-1]
		first = line
	}
	if len(lines) > 1 && line-lines[len(lines)-2] <= 4 {
		first = lines[len(lines)-2]
	}
	fmt.Fprintf(w, "  contract:  %s:%d (contract.%s%s)\n", df.path, line, which, pointerOf(toks))
	for l := first; l <= line && l-1 < len(df.lines); l++ {
		fmt.Fprintf(w, "    %4d | %s\n", l, df.lines[l-1])
	}
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

func excerptText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

func indent(s, prefix string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
