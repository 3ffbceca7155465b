package lint

// Writers of findings, one per output format of seam lint, so that every front end (the CLI,
// MCP, the web view) writes them alike.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// CodeUnreadable is the code of a DAG file that cannot be read at all (missing, not a
// regular file, over the size limit): the machine formats report it as they report load
// errors.
const CodeUnreadable = "SEAM-E119"

// LoadFindings are the errors of a DAG file that did not load (err from dag.Load) as error
// findings; a file that could not be read at all is one CodeUnreadable finding on the file.
func LoadFindings(path string, err error) []Finding {
	var ds dag.Diagnostics
	if !errors.As(err, &ds) {
		return []Finding{{Pos: dag.Pos{File: path}, Severity: SeverityError, Code: CodeUnreadable, Message: err.Error()}}
	}
	fs := make([]Finding, len(ds))
	for i, d := range ds {
		fs[i] = Finding{Pos: d.Pos, Severity: SeverityError, Code: d.Code, Message: d.Message, Hint: d.Hint}
	}
	return fs
}

// Count counts errors and warnings; notes (seam lint --against's fixed edges and accepted
// breaks) are neither.
func Count(fs []Finding) (errs, warns int) {
	for _, f := range fs {
		switch f.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
		}
	}
	return errs, warns
}

// TextOptions configure WriteText.
type TextOptions struct {
	Lang i18n.Lang // of the count line
	// Colour colours the text with SGR codes: the caller knows whether w is a terminal.
	Colour bool
	// LoadFailed says some file did not load (its errors were said elsewhere): without
	// findings, the text is then empty, never "no problems".
	LoadFailed bool
}

// Colours of the text format (SGR codes).
const (
	sgrError   = "1;31"
	sgrWarning = "1;33"
	sgrPos     = "1"
	sgrDim     = "2"
)

// WriteText writes the findings as seam lint prints them, one block each, then a count.
func WriteText(w io.Writer, fs []Finding, o TextOptions) error {
	for _, f := range fs {
		if _, err := fmt.Fprintln(w, findingText(f, o.Colour)); err != nil {
			return err
		}
	}
	errs, warns := Count(fs)
	notes := len(fs) - errs - warns
	lang := o.Lang
	if errs == 0 && warns == 0 && notes == 0 {
		if o.LoadFailed {
			return nil // not "no problems": the caller said what could not be loaded
		}
		_, err := fmt.Fprintln(w, i18n.Sprintf(lang, "no problems"))
		return err
	}
	es, ws := i18n.Plural(lang, errs, "%d error", "%d errors", errs), i18n.Plural(lang, warns, "%d warning", "%d warnings", warns)
	if notes > 0 {
		_, err := io.WriteString(w, i18n.Sprintf(lang, "%s, %s, %s\n", es, ws, i18n.Plural(lang, notes, "%d note", "%d notes", notes)))
		return err
	}
	_, err := io.WriteString(w, i18n.Sprintf(lang, "%s, %s\n", es, ws))
	return err
}

// findingText is f as WriteText writes it, coloured when on.
func findingText(f Finding, on bool) string {
	if !on {
		return f.String()
	}
	var b strings.Builder
	if f.Pos.File != "" {
		b.WriteString(colour(fmt.Sprintf("%s:%d:%d:", f.Pos.File, f.Pos.Line, f.Pos.Col), sgrPos) + " ")
	}
	sev := sgrWarning
	switch f.Severity {
	case SeverityError:
		sev = sgrError
	case SeverityInfo:
		sev = sgrDim
	}
	fmt.Fprintf(&b, "%s %s %s", colour(f.Severity, sev), colour(f.Code, sgrPos), f.Message)
	if f.HasWitness {
		fmt.Fprintf(&b, "\n  %s %s", colour("witness:", sgrDim), f.WitnessJSON())
	}
	if f.Hint != "" {
		fmt.Fprintf(&b, "\n  %s %s", colour("fix:", sgrDim), f.Hint)
	}
	if f.Fingerprint != "" {
		fmt.Fprintf(&b, "\n  %s %s", colour("fingerprint:", sgrDim), f.Fingerprint)
	}
	return b.String()
}

// colour wraps s in the SGR code.
func colour(s, code string) string { return "\x1b[" + code + "m" + s + "\x1b[0m" }

// jsonFinding is a finding as WriteJSON writes it.
type jsonFinding struct {
	File      string          `json:"file"`
	Line      int             `json:"line"`
	Col       int             `json:"col"`
	Severity  string          `json:"severity"`
	Code      string          `json:"code"`
	Producers []string        `json:"producers"`
	Consumer  string          `json:"consumer,omitempty"`
	Message   string          `json:"message"`
	Witness   json.RawMessage `json:"witness,omitempty"` // raw, so that a null witness is kept
	Fix       string          `json:"fix,omitempty"`
	// seam lint --against: how the edge moved, and the finding's stable identity.
	Change      string `json:"change,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// WriteJSON writes the findings as one indented JSON array.
func WriteJSON(w io.Writer, fs []Finding) error {
	out := make([]jsonFinding, len(fs))
	for i, f := range fs {
		out[i] = jsonFinding{File: f.Pos.File, Line: f.Pos.Line, Col: f.Pos.Col, Severity: f.Severity, Code: f.Code,
			Producers: f.Producers, Consumer: f.Consumer, Message: f.Message, Fix: f.Hint,
			Change: f.Change, Fingerprint: f.Fingerprint}
		if out[i].Producers == nil {
			out[i].Producers = []string{}
		}
		if f.HasWitness {
			w, err := json.Marshal(f.Witness)
			if err != nil {
				return fmt.Errorf("witness of %s: %w", f.Code, err)
			}
			out[i].Witness = w
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteGitHub writes one GitHub Actions workflow command per finding, which the runner
// turns into an annotation on the file and line.
func WriteGitHub(w io.Writer, fs []Finding) error {
	for _, f := range fs {
		text := findingPlain(f)
		var props []string
		if f.Pos.File != "" {
			props = append(props, "file="+ghProperty(filepath.ToSlash(f.Pos.File)))
			if f.Pos.Line > 0 { // a file that cannot be read has no line
				props = append(props, fmt.Sprintf("line=%d", f.Pos.Line), fmt.Sprintf("col=%d", f.Pos.Col))
			}
		}
		props = append(props, "title="+ghProperty(f.Code))
		cmd := f.Severity
		if cmd == SeverityInfo {
			cmd = "notice"
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(text)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// findingPlain is a finding in plain lines, for annotations: the message, the witness, the fix.
func findingPlain(f Finding) string {
	text := f.Message
	if f.HasWitness {
		text += "\nwitness: " + f.WitnessJSON()
	}
	if f.Hint != "" {
		text += "\nfix: " + f.Hint
	}
	if f.Fingerprint != "" {
		text += "\nfingerprint: " + f.Fingerprint
	}
	return text
}
