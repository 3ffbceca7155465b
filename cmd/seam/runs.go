package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

func newRunsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List and show the runs recorded in the run store",
		Long: `List and show the runs recorded in the run store (` + defaultStore + ` unless --store or
$SEAM_STORE say otherwise). seam explain RUN NODE says why a node failed.`,
	}
	cmd.AddCommand(newRunsListCmd(e), newRunsShowCmd(e), newRunsWatchCmd(e), newRunsCancelCmd(e), newRunsReleaseCmd(e), newRunsPruneCmd(e), newRunsOutputCmd(e))
	return cmd
}

func newRunsListCmd(e *env) *cobra.Command {
	var (
		sf     storeFlag
		f      runs.Filter
		status string
		since  string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			if since != "" {
				t, err := runs.ParseSince(l, since, time.Now())
				if err != nil {
					return usage(err)
				}
				f.Since = t
			}
			if f.Limit < 1 {
				return usage(i18n.Errorf(l, "--limit %d: want at least 1", f.Limit))
			}
			if states := runs.States(); status != "" && !slices.Contains(states, status) {
				return usage(i18n.Errorf(l, "--status %q: want %s", status, strings.Join(states, ", ")))
			}
			f.Status = dag.RunStatus(status)
			s, err := openStoreToRead(cmd.Context(), e, &sf)
			if err != nil {
				return err
			}
			defer s.Close()
			list, _, err := readService(s, &sf).List(cmd.Context(), f)
			if err != nil {
				return usage(err)
			}
			if asJSON {
				out := make([]runs.RunJSON, len(list))
				for i := range list {
					out[i] = list[i].JSON()
				}
				return printJSON(e.stdout, out)
			}
			if len(list) == 0 {
				fmt.Fprintln(e.stdout, i18n.Sprintf(l, "no runs"))
				return nil
			}
			tw := tabwriter.NewWriter(e.termOut(e.stdout), 0, 0, 2, ' ', 0) // a DAG's name or path may hold escapes
			fmt.Fprintln(tw, i18n.Sprintf(l, "RUN\tDAG\tSTATUS\tSTARTED\tDURATION\tFILE"))
			for i := range list {
				r := &list[i]
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.DAG+r.SubRunNote(l), r.StatusFor(l),
					r.Started.Local().Format("2006-01-02 15:04:05"), runDuration(r), displayPath(r.File))
			}
			return tw.Flush()
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&f.DAG, "dag", "", "only runs of the DAG with this name")
	cmd.Flags().StringVar(&status, "status", "", "only runs in this state: "+strings.Join(runs.States(), ", "))
	cmd.Flags().StringVar(&since, "since", "", "only runs started since a duration ago (24h, 30m) or a time (2026-03-09, RFC 3339)")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "at most this many runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func newRunsShowCmd(e *env) *cobra.Command {
	var (
		sf     storeFlag
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: each node's status, attempts, duration and violations",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			return showRun(cmd.Context(), e, &sf, args[0], asJSON)
		},
	}
	sf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run, its nodes and its attempts as one JSON document")
	return cmd
}

func showRun(ctx context.Context, e *env, sf *storeFlag, id string, asJSON bool) error {
	s, err := openStoreToRead(ctx, e, sf)
	if err != nil {
		return err
	}
	defer s.Close()
	l := sf.lang
	svc := readService(s, sf)
	r, as, err := svc.Show(ctx, id)
	if err != nil {
		return usage(err)
	}
	nodes := runs.Summarize(as)
	if asJSON {
		return printJSON(e.stdout, runs.ShowDocument(r, as, nodes))
	}
	w := e.termOut(e.stdout)
	fmt.Fprint(w, i18n.Sprintf(l, "run %s  %s  %s\n", r.ID, r.DAG, r.StatusFor(l)))
	if r.Parent != "" {
		fmt.Fprint(w, i18n.Sprintf(l, "sub-run  of run %s, node %s\n", r.Parent, r.ParentNode))
	}
	if r.File != "" {
		fmt.Fprint(w, i18n.Sprintf(l, "file     %s\n", displayPath(r.File)))
	}
	fmt.Fprint(w, i18n.Sprintf(l, "started  %s  (%s)\n", r.Started.Local().Format("2006-01-02 15:04:05"), runDuration(r)))
	runs.WriteWho(w, r, l)
	if len(r.Params) > 0 && string(r.Params) != "{}" {
		fmt.Fprint(w, i18n.Sprintf(l, "params   %s\n", r.Params))
	}
	fmt.Fprintln(w)
	width, notesWidth := 0, 0
	for _, n := range nodes {
		width, notesWidth = max(width, len(n.ID)), max(notesWidth, columns(n.Notes(l)))
	}
	for _, n := range nodes {
		writeNodeSummary(w, n, width, notesWidth, l)
		if n.Items > 0 {
			if err := writeFailedItems(ctx, w, svc, as, n.ID, l); err != nil {
				return err
			}
		}
	}
	if len(nodes) == 0 {
		fmt.Fprintln(w, i18n.Sprintf(l, "no node has finished"))
	}
	var outErrs map[string]string
	if len(r.OutputErrors) > 0 && json.Unmarshal(r.OutputErrors, &outErrs) == nil {
		// Why the run failed when its nodes passed: a declared output could not be resolved.
		fmt.Fprintln(w)
		for _, name := range slices.Sorted(maps.Keys(outErrs)) {
			fmt.Fprint(w, i18n.Sprintf(l, "output %s could not be resolved: %s\n", name, termText(outErrs[name])))
		}
	}
	if failedNode := runs.FirstFailed(nodes); failedNode != "" {
		fmt.Fprint(w, i18n.Sprintf(l, "\nseam explain %s %s says why %s failed\n", r.ID, failedNode, failedNode))
	}
	return nil
}

func newRunsWatchCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "watch RUN",
		Short: "Follow a run as it is recorded, from any process or host, until it ends",
		Long: `Follow a run as it is recorded, by this or another process (on another host, with a
PostgreSQL store): one line per attempt as it is committed, then how the run ended. Exits 0
when the run succeeded or warned, 1 when it failed, was canceled or its process died, 3 when
it waits for an approval.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			return watchRun(cmd.Context(), e, &sf, args[0])
		},
	}
	sf.add(cmd)
	return cmd
}

// watchRun prints each attempt of run id as the store records it, then how the run ended.
func watchRun(ctx context.Context, e *env, sf *storeFlag, id string) error {
	s, err := openStoreToRead(ctx, e, sf)
	if err != nil {
		return err
	}
	defer s.Close()
	l := sf.lang
	w := e.termOut(e.stdout)
	f := &runs.Follower{W: w, Lang: l}
	if err := readService(s, sf).Watch(ctx, id, f.See); err != nil {
		return failedWith(err)
	}
	last := f.Run
	fmt.Fprint(w, i18n.Sprintf(l, "run %s: %s (%s)\n", last.ID, last.StatusFor(l), runDuration(last)))
	if last.Status == dag.RunWaiting {
		fmt.Fprint(e.stderr, service.WaitingRunNote(l, last, f.Attempts))
		return &exitError{code: 3}
	}
	if last.Status != dag.RunSuccess && last.Status != dag.RunWarn {
		return failed()
	}
	return nil
}

func writeNodeSummary(w io.Writer, n *runs.NodeSummary, width, notesWidth int, lang i18n.Lang) {
	f := n.Final
	mark := map[dag.NodeStatus]string{dag.NodePassed: "✓", dag.NodeWarned: "!", dag.NodeFailed: "✗", dag.NodeSkipped: "-", dag.NodeCanceled: "⊘"}[n.Status()]
	if mark == "" {
		mark = "…"
	}
	dur := ""
	if !f.Started.IsZero() && !f.Ended.IsZero() && f.Attempt > 0 && !f.Reused {
		dur = duration(f.Ended.Sub(f.Started))
	}
	text := firstLine(f.Reason)
	switch {
	case text == "" && f.Error != "":
		text = firstLine(f.Error)
	case text == "" && len(f.Violations) > 0:
		text = i18n.Sprintf(lang, "output breaks its contract")
	}
	line := fmt.Sprintf("%s %-*s  %s  %s  %7s  %s", mark, width, n.ID, pad(runs.StatusText(lang, n.Status()), 10),
		pad(n.Notes(lang), notesWidth), dur, text)
	fmt.Fprintln(w, strings.TrimRight(line, " "))
	for _, v := range f.Violations {
		fmt.Fprintf(w, "    %s: %s\n", v.At(), v.Message)
	}
}

// shownItems bounds the failed foreach items whose outputs runs show prints under their
// node, and itemExcerpt the characters of each output (--json has them whole, by hash).
const (
	shownItems  = 3
	itemExcerpt = 200
)

// writeFailedItems prints the outputs of the first failed items of foreach node, in one line
// each, cut to itemExcerpt characters: they say why the items failed.
func writeFailedItems(ctx context.Context, w io.Writer, svc *service.Service, as []runs.Attempt, node string, lang i18n.Lang) error {
	failed := runs.FailedItems(as, node)
	for i, a := range failed {
		if i == shownItems {
			fmt.Fprint(w, i18n.Sprintf(lang, "    … %d more failed items\n", len(failed)-shownItems))
			break
		}
		out, err := svc.AttemptOutput(ctx, a)
		if err != nil {
			return failedWith(err)
		}
		if len(out) == 0 {
			continue
		}
		fmt.Fprint(w, i18n.Sprintf(lang, "    item %d output: %s\n", a.Item, oneLine(string(out), itemExcerpt)))
	}
	return nil
}

func runDuration(r *runs.Run) string {
	if r.Ended.IsZero() {
		return "-"
	}
	return duration(r.Ended.Sub(r.Started))
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func newRunsCancelCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel a run that runs on Temporal, from any machine",
		Long: `Cancel a run recorded as running on Temporal (seam run --engine temporal): its workflow is
canceled, its running nodes are told to stop, and the workers record it canceled. A run that no
worker has taken yet, so not in the store, is ended on Temporal and recorded canceled here. A
run on the embedded engine stops where it runs (Ctrl-C or SIGTERM to its seam run).

Exit status: 0 once Temporal has the cancel (seam runs watch RUN follows it to its end), 1
when the run is not running on Temporal, 2 for a usage error or a run that neither the store
nor Temporal knows.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			ctx := cmd.Context()
			// Written to when the run is one no worker has taken: it is recorded canceled here.
			st, err := openStoreToResume(ctx, e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			svc := service.New(service.Options{Store: st, Lang: l, Elsewhere: &dialCanceler{e: e, lang: l}})
			var nr *service.NotRunningError
			switch err := svc.Cancel(ctx, args[0]); {
			case errors.As(err, &nr):
				return failedWith(err)
			case err != nil:
				return usage(err)
			}
			fmt.Fprint(e.stdout, i18n.Sprintf(l, "run %s: Temporal has the cancel; seam runs watch %s follows it to its end\n", args[0], args[0]))
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}

func newRunsReleaseCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "release RUN",
		Short: "Record canceled a run left running by an owner that is gone",
		Long: `Record canceled a run recorded as running whose owner is gone: its lease expired (it shows
interrupted; seam run --resume RUN resumes it instead), or it was recorded before leases on
another host. Refused while its lease is live or its process lives on this host.

Exit status: 0 once released, 1 when the run may still be running or has ended, 2 for a usage
error or no such run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			st, err := openStoreToResume(cmd.Context(), e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			var nr *service.NotRunningError
			var nl *service.NotReleasableError
			r, err := service.New(service.Options{Store: st, Lang: l}).Release(cmd.Context(), args[0])
			switch {
			case errors.As(err, &nr) || errors.As(err, &nl):
				return failedWith(err)
			case err != nil:
				return usage(err)
			}
			fmt.Fprint(e.stdout, i18n.Sprintf(l, "run %s: released, recorded canceled; seam run --resume %s runs what did not pass\n", r.ID, r.ID))
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}

func newRunsPruneCmd(e *env) *cobra.Command {
	var (
		sf  storeFlag
		o   runs.PruneOptions
		age string
	)
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Delete the runs started longer ago than AGE, with their attempts and outputs",
		Long: `Delete the runs started longer ago than --older-than (30d, 12h), but the --keep newest of
each DAG, with their attempts, sub-runs and the stored outputs no other run points at; a run
that may still be running (its lease live, or running without one) stays. --dry-run says what
would go and deletes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			d, err := runs.ParseAge(l, age)
			if err != nil {
				return usage(err)
			}
			st, err := openStoreToResume(cmd.Context(), e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			o.Now = time.Now()
			o.Before = o.Now.Add(-d)
			p, err := runs.Prune(cmd.Context(), st, o, l)
			if err != nil {
				return usage(err)
			}
			p.WriteText(e.termOut(e.stdout), l, o.DryRun, o.Now)
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&age, "older-than", "", "delete runs started longer ago than this (30d, 12h, 90m)")
	cmd.Flags().IntVar(&o.Keep, "keep", 0, "keep the newest N runs of each DAG, however old")
	cmd.Flags().StringVar(&o.DAG, "dag", "", "only runs of the DAG with this name")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "say what would be deleted, delete nothing")
	return cmd
}

func newRunsOutputCmd(e *env) *cobra.Command {
	var (
		sf   storeFlag
		item int
	)
	cmd := &cobra.Command{
		Use:   "output RUN NODE",
		Short: "Print the output a node recorded in a run, as JSON",
		Long: `Print the output NODE recorded in RUN ("latest" for the newest run), as JSON: that of its
deciding attempt, or with --item N that of its foreach item N. Saved to files, such outputs are
samples for seam schema infer, which drafts the node's contract.output from them.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			st, err := openStoreToRead(cmd.Context(), e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			out, err := readService(st, &sf).NodeOutput(cmd.Context(), args[0], args[1], item)
			if err != nil {
				return usage(err)
			}
			_, err = fmt.Fprintln(e.stdout, strings.TrimSpace(string(out)))
			return err
		},
	}
	sf.add(cmd)
	cmd.Flags().IntVar(&item, "item", -1, "the output of this foreach item (from 0)")
	return cmd
}
