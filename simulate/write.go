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
	b.WriteString(i18n.Sprintf(lang, "simulated %s (%s): %d paths, %d of %d combinations of outcomes tried, %d excluded by the contracts; nothing ran with a side effect, nothing was recorded\n",
		rep.DAG, rep.File, len(rep.Paths), rep.Tried, rep.Combinations, rep.Infeasible))
	b.WriteString("\n")
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
		if p.Replay != "" {
			b.WriteString(i18n.Sprintf(lang, "  path %d replays the outputs of run %s\n", p.N, p.Replay))
		}
		for _, id := range p.Failed {
			b.WriteString(i18n.Sprintf(lang, "  path %d: %s failed: %s\n", p.N, id, p.Reasons[id]))
		}
		if p.Error != "" {
			b.WriteString(i18n.Sprintf(lang, "  path %d: %s\n", p.N, p.Error))
		}
	}
	if len(rep.Branches) > 0 {
		b.WriteString("\n" + i18n.Format(lang, "branches:") + "\n")
	}
	for _, br := range rep.Branches {
		writeBranch(&b, br, lang)
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

// writeBranch writes one when or foreach of the branch report.
func writeBranch(b *strings.Builder, br Branch, lang i18n.Lang) {
	yes, no := i18n.Format(lang, "true"), i18n.Format(lang, "false")
	switch br.Kind {
	case "foreach":
		yes, no = i18n.Format(lang, "items"), i18n.Format(lang, "empty")
	case "status":
		yes, no = i18n.Format(lang, "failed"), i18n.Format(lang, "passed")
	}
	fmt.Fprintf(b, "  %s %s ${{ %s }} (%s:%d:%d)\n", br.Node, br.Kind, br.Src, br.Pos.File, br.Pos.Line, br.Pos.Col)
	say := func(outcome string, paths []int, never bool) {
		switch {
		case len(paths) > 0:
			b.WriteString(i18n.Sprintf(lang, "    %s in paths %s\n", outcome, ints(paths)))
		case !never:
			b.WriteString(i18n.Sprintf(lang, "    %s in no path (not proved impossible)\n", outcome))
		}
	}
	say(yes, br.True, br.NeverTrue != nil)
	say(no, br.False, br.NeverFalse != nil)
	for _, pf := range []struct {
		outcome string
		nv      bool
	}{{yes, br.NeverTrue != nil}, {no, br.NeverFalse != nil}} {
		if !pf.nv {
			continue
		}
		nv := br.NeverTrue
		if pf.outcome == no {
			nv = br.NeverFalse
		}
		if nv.Enum != nil {
			b.WriteString(i18n.Sprintf(lang, "    never %s, proved by exhaustion of the enum: %s is one of %s, and none of them meets the condition\n", pf.outcome, nv.Ref, enumText(nv.Enum)))
		} else {
			b.WriteString(i18n.Sprintf(lang, "    never %s, proved by the subset checker: what %s's contract allows at %s and what the condition needs there cannot meet\n", pf.outcome, nv.Producer, nv.Ref))
		}
	}
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
