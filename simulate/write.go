package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
)

// ReadStubs reads seam run --simulate's --stub NODE=FILE arguments: each file holds the
// JSON output the node is pinned to, read with read. Whether it meets the node's contract
// is Simulate's to say.
func ReadStubs(specs []string, read func(string) ([]byte, error), lang i18n.Lang) (map[string]any, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	stubs := map[string]any{}
	for _, spec := range specs {
		node, file, ok := strings.Cut(spec, "=")
		if !ok || node == "" || file == "" {
			return nil, i18n.Errorf(lang, "--stub %q: want NODE=FILE", spec)
		}
		b, err := read(file)
		if err != nil {
			return nil, i18n.Errorf(lang, "--stub %s: %w", node, err)
		}
		v, err := contract.ParseJSON(b)
		if err != nil {
			return nil, i18n.Errorf(lang, "--stub %s: %s is not JSON: %w", node, file, err)
		}
		stubs[node] = v
	}
	return stubs, nil
}

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the simulation of %s: %w", rep.DAG, err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteText writes the report for people: a table of the paths (the nodes run for real,
// simulated, skipped and failed on each), then per when and foreach the paths that took
// each outcome, or the proof that one never happens; the nodes no output could be
// generated for; the bound, when one was reached.
func WriteText(w io.Writer, rep *Report, lang i18n.Lang) error {
	var b strings.Builder
	b.WriteString(Summary(rep, lang) + "\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join([]string{i18n.Format(lang, "path"), i18n.Format(lang, "status"), i18n.Format(lang, "run"),
		i18n.Format(lang, "simulated"), i18n.Format(lang, "skipped"), i18n.Format(lang, "failed")}, "\t"))
	for _, p := range rep.Paths {
		fmt.Fprintln(tw, strings.Join([]string{strconv.Itoa(p.N), i18n.Format(lang, string(p.Status)), list(p.Run), list(p.Simulated), list(p.Skipped), list(p.Failed)}, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range rep.Paths {
		for _, note := range PathNotes(p, lang) {
			fmt.Fprintf(&b, "  %s\n", note)
		}
	}
	if len(rep.Branches) > 0 {
		b.WriteString("\n" + i18n.Format(lang, "branches:") + "\n")
	}
	for _, br := range rep.Branches {
		fmt.Fprintf(&b, "  %s\n", BranchHeading(br))
		for _, line := range BranchLines(br, lang) {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	if len(rep.Unknown) > 0 {
		b.WriteString("\n" + i18n.Format(lang, "unknown (no output could be generated; the node fails in every path):") + "\n")
	}
	for _, u := range rep.Unknown {
		fmt.Fprintf(&b, "  %s: %s\n", u.Node, u.Reason)
	}
	if rep.Bound != "" {
		b.WriteString("\n" + i18n.Sprintf(lang, "bound reached: %s; the combinations not tried are not reported", rep.Bound) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PathNotes say what the table of paths does not: the run a path replays, why each of its
// failed nodes failed, why the run failed where no node's reason says.
func PathNotes(p Path, lang i18n.Lang) []string {
	var notes []string
	if p.Replay != "" {
		notes = append(notes, i18n.Sprintf(lang, "path %d replays the outputs of run %s", p.N, p.Replay))
	}
	for _, id := range p.Failed {
		notes = append(notes, i18n.Sprintf(lang, "path %d: %s failed: %s", p.N, id, p.Reasons[id]))
	}
	if p.Error != "" {
		notes = append(notes, i18n.Sprintf(lang, "path %d: %s", p.N, p.Error))
	}
	return notes
}

// Summary is the report's first line: the DAG, how many paths and combinations, and that
// nothing had an effect.
func Summary(rep *Report, lang i18n.Lang) string {
	return i18n.Sprintf(lang, "simulated %s (%s): %d paths, %d of %d combinations of outcomes tried, %d excluded by the contracts; nothing ran with a side effect, nothing was recorded",
		rep.DAG, rep.File, len(rep.Paths), rep.Tried, rep.Combinations, rep.Infeasible)
}

// BranchHeading names a when or foreach of the branch report: its node, its kind, its
// expression and where it is written.
func BranchHeading(br Branch) string {
	return fmt.Sprintf("%s %s ${{ %s }} (%s:%d:%d)", br.Node, br.Kind, br.Src, br.Pos.File, br.Pos.Line, br.Pos.Col)
}

// BranchLines say how the paths took a when or foreach: the paths of each outcome, or that
// no path took it, and the proof that an outcome never happens. The text report and the
// web view's both show them.
func BranchLines(br Branch, lang i18n.Lang) []string {
	yes, no := i18n.Format(lang, "true"), i18n.Format(lang, "false")
	switch br.Kind {
	case "foreach":
		yes, no = i18n.Format(lang, "items"), i18n.Format(lang, "empty")
	case "status":
		yes, no = i18n.Format(lang, "failed"), i18n.Format(lang, "passed")
	}
	var lines []string
	say := func(outcome string, paths []int, never bool) {
		switch {
		case len(paths) > 0:
			lines = append(lines, i18n.Sprintf(lang, "%s in paths %s", outcome, ints(paths)))
		case !never:
			lines = append(lines, i18n.Sprintf(lang, "%s in no path (not proved impossible)", outcome))
		}
	}
	say(yes, br.True, br.NeverTrue != nil)
	say(no, br.False, br.NeverFalse != nil)
	for _, pf := range []struct {
		outcome string
		nv      *lint.Never
	}{{yes, br.NeverTrue}, {no, br.NeverFalse}} {
		switch {
		case pf.nv == nil:
		case pf.nv.Enum != nil:
			lines = append(lines, i18n.Sprintf(lang, "never %s, proved by exhaustion of the enum: %s is one of %s, and none of them meets the condition", pf.outcome, pf.nv.Ref, enumText(pf.nv.Enum)))
		default:
			lines = append(lines, i18n.Sprintf(lang, "never %s, proved by the subset checker: what %s's contract allows at %s and what the condition needs there cannot meet", pf.outcome, pf.nv.Producer, pf.nv.Ref))
		}
	}
	return lines
}

func list(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	return strings.Join(ids, ",")
}

func ints(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func enumText(vs []any) string {
	var s []string
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		s = append(s, string(b))
	}
	return strings.Join(s, ", ")
}
