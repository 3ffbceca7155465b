package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
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
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
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
	x, err := readService(s, sf).Explain(ctx, id, node, runs.ExplainOptions{ShowPath: displayPath, ReadFile: e.readFile})
	var (
		unknown *runs.UnknownNodeError
		nf      *service.NotFoundError
		none    *service.NoRunsError
	)
	if errors.As(err, &unknown) || errors.As(err, &nf) || errors.As(err, &none) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	writeExplanation(e.termOut(e.stdout), x, sf.lang)
	return nil
}

// writeExplanation prints an explanation for people, in lang.
func writeExplanation(w io.Writer, x *runs.Explanation, lang i18n.Lang) {
	fmt.Fprint(w, i18n.Sprintf(lang, "%s %s in run %s", x.Node, runs.StatusText(lang, x.Status), x.Run))
	writeExplanationRest(w, x, lang)
}

// writeExplanationRest prints an explanation after its first words, which say whose it is.
func writeExplanationRest(w io.Writer, x *runs.Explanation, lang i18n.Lang) {
	if x.Attempts > 1 && x.Items == 0 { // a foreach node's reason counts its item's attempts
		fmt.Fprint(w, i18n.Sprintf(lang, " after %d attempts", x.Attempts))
	}
	if x.Reason != "" {
		fmt.Fprintf(w, ": %s", x.Reason)
	}
	fmt.Fprintln(w)

	switch x.Status {
	case dag.NodePassed, dag.NodeWarned:
		fmt.Fprint(w, i18n.Sprintf(lang, "nothing to explain: it %s\n", runs.StatusText(lang, x.Status)))
		return
	case dag.NodeSkipped:
		if x.Upstream != "" {
			fmt.Fprint(w, i18n.Sprintf(lang, "see why %s did not pass: seam explain %s %s\n", x.Upstream, x.Run, x.Upstream))
		}
		return
	}
	if x.Error != "" {
		fmt.Fprint(w, i18n.Sprintf(lang, "error: %s\n", x.Error))
	}
	// An exec node's failure quotes the end of its stderr already: the log would say it again.
	if log := strings.TrimSpace(x.Log); log != "" && !strings.HasSuffix(strings.TrimSpace(x.Reason), log) {
		fmt.Fprint(w, i18n.Sprintf(lang, "log:\n%s\n", indent(strings.TrimRight(x.Log, "\n"), "  ")))
	}
	if x.Item != nil && x.Output != "" {
		fmt.Fprint(w, i18n.Sprintf(lang, "item %d output: %s\n", *x.Item, x.Output))
	}
	for _, v := range x.Violations {
		fmt.Fprintf(w, "\n%s: %s\n", v.At(), v.Message)
		value := v.Value
		if value == "" {
			value = i18n.Sprintf(lang, "(missing)")
		}
		fmt.Fprint(w, i18n.Sprintf(lang, "  value:     %s\n", value))
		fmt.Fprint(w, i18n.Sprintf(lang, "  from:      %s\n", v.From))
		c := v.Contract
		switch {
		case c.File != "":
			fmt.Fprint(w, i18n.Sprintf(lang, "  contract:  %s:%d (%s)\n", c.File, c.Line, c.Path))
			for _, l := range c.Lines {
				fmt.Fprintf(w, "    %4d | %s\n", l.N, l.Text)
			}
		case c.Declared:
			fmt.Fprint(w, i18n.Sprintf(lang, "  contract:  %s, %s\n", c.Keyword, c.Note))
		default:
			fmt.Fprint(w, i18n.Sprintf(lang, "  contract:  %s (%s)\n", c.Keyword, c.Note))
		}
	}
	if x.FileNote != "" {
		fmt.Fprint(w, i18n.Sprintf(lang, "\nnote: %s\n", x.FileNote))
	}
	if sub := x.SubRun; sub != nil {
		// Follow the failure into the sub-run the dag node started.
		fmt.Fprint(w, i18n.Sprintf(lang, "\nin sub-run %s (%s), node %s %s", sub.Run, sub.DAG, sub.Node, runs.StatusText(lang, sub.Status)))
		writeExplanationRest(w, sub, lang)
	}
}

func indent(s, prefix string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
