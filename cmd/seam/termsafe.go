package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
)

// termText escapes in s what a terminal would act on: the control characters but \n and \t,
// DEL, the C1 controls and bytes that are not UTF-8, each written as Go writes it in a string
// (\x1b, \u009b). Text that comes from a node (its summary, log, error, a value of its output)
// could otherwise retitle the window, recolour or clear the screen, or overwrite what seam
// printed.
func termText(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case n == 1 && unsafeRune(r): // an ASCII control, or a byte that is not UTF-8
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether r is one termText escapes; so is utf8.RuneError, which stands
// for bytes that are not UTF-8 (and escapes the rune itself, harmlessly, where it is real).
func unsafeRune(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError
}

// isTerminal reports whether w is a terminal, as e.terminal says when set (tests).
func (e *env) isTerminal(w io.Writer) bool {
	if e.terminal != nil {
		return e.terminal(w)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termOut is w, escaping what it is given with termText when w is a terminal: for output that
// quotes nodes and writes no escapes of its own (explain, runs show).
func (e *env) termOut(w io.Writer) io.Writer {
	if e.isTerminal(w) {
		return termWriter{w}
	}
	return w
}

// termWriter escapes each write with termText. Writes hold whole runes (fmt's, tabwriter's
// cells): a rune cut between two would be escaped as bytes.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, termText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// termDisplay hands d the nodes' and the run's text escaped with termText: d writes escapes of
// its own (colours, the live display's cursor moves), so its output cannot be escaped whole.
type termDisplay struct{ d display }

func (t termDisplay) Event(ev engine.Event) {
	ev.Node = termNode(ev.Node)
	t.d.Event(ev)
}

func (t termDisplay) finish(res *dag.RunResult) {
	r := *res
	r.Nodes = make([]dag.NodeResult, len(res.Nodes))
	for i, n := range res.Nodes {
		r.Nodes[i] = termNode(n)
	}
	r.Error = termText(res.Error)
	if res.OutputErrors != nil {
		r.OutputErrors = make(map[string]string, len(res.OutputErrors))
		for k, v := range res.OutputErrors {
			r.OutputErrors[k] = termText(v)
		}
	}
	if res.Outputs != nil {
		r.Outputs = make(map[string]any, len(res.Outputs))
		for k, v := range res.Outputs {
			r.Outputs[k] = termJSON(v)
		}
	}
	t.d.finish(&r)
}

// termJSON is v as JSON that a terminal shows as written: encoding/json escapes the C0
// controls and replaces bytes that are not UTF-8, but writes DEL and the C1 controls raw; they
// can stand only inside strings, where \u escapes keep the value the same.
func termJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil || !bytes.ContainsFunc(b, unsafeRune) {
		return v
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if unsafeRune(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return json.RawMessage(out.Bytes())
}

// termNode is n with its text escaped with termText.
func termNode(n dag.NodeResult) dag.NodeResult {
	n.Reason, n.Summary, n.Error, n.Log = termText(n.Reason), termText(n.Summary), termText(n.Error), termText(n.Log)
	if n.Violations != nil {
		vs := make([]contract.Violation, len(n.Violations))
		for i, v := range n.Violations {
			v.Pointer, v.Value, v.Message = termText(v.Pointer), termText(v.Value), termText(v.Message)
			vs[i] = v
		}
		n.Violations = vs
	}
	return n
}
