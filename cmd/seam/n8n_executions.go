package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
)

func newN8NExecutionsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "executions",
		Short: "List and show n8n executions ($N8N_URL, $N8N_API_KEY)",
	}
	cmd.AddCommand(newN8NExecutionsListCmd(e), newN8NExecutionsGetCmd(e))
	return cmd
}

// n8nOutput is how the executions commands print: a table for people, or with --json the
// minimal answer (--raw: every field), as the MCP tools give them.
type n8nOutput struct {
	asJSON, raw, insecure bool
}

func (o *n8nOutput) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print JSON: the minimal answer, as the MCP tool gives it")
	f.BoolVar(&o.raw, "raw", false, "with --json: every field")
	f.BoolVar(&o.insecure, "insecure", false, "allow plain http:// to an n8n that is not on loopback")
}

func (o *n8nOutput) writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// n8nClient is a client of $N8N_URL with $N8N_API_KEY.
func n8nClient(e *env, lang i18n.Lang, insecure bool) (*n8n.Client, error) {
	url, key := e.getenv(n8n.EnvURL), e.getenv(n8n.EnvAPIKey)
	if url == "" || key == "" {
		return nil, usage(errors.New(i18n.Sprintf(lang, "set N8N_URL and N8N_API_KEY to the n8n instance and its API key")))
	}
	c, err := n8n.New(n8n.Config{URL: url, APIKey: key, Insecure: insecure, Lang: lang, URLFrom: n8n.FromFlag})
	if err != nil {
		return nil, usage(err)
	}
	return c, nil
}

// n8nFailure is an error of n8n: the caller's mistake (exit 2) when n8n refused what was
// given, else exit 1.
func n8nFailure(err error) error {
	if code := n8n.StatusCode(err); code >= 400 && code < 500 {
		return usage(err)
	}
	var ie *n8n.InvalidIDError
	if errors.As(err, &ie) {
		return usage(err)
	}
	return failedWith(err)
}

func newN8NExecutionsListCmd(e *env) *cobra.Command {
	var (
		workflow, status, startDate, endDate, cursor string
		limit                                        int
		out                                          n8nOutput
	)
	cmd := &cobra.Command{
		Use:   "list [--workflow ID] [--status S] [--start-date D] [--end-date D] [--limit N] [--cursor C] [--json [--raw]]",
		Short: "List n8n executions, newest first",
		Long: `List the executions of the n8n at $N8N_URL, newest first: id, status, start, duration and,
when the list spans workflows, the workflow's name.

--start-date and --end-date (ISO 8601: 2026-01-02, or 2026-01-02T15:04:05Z) keep the executions
that started in that range; a date as --end-date includes its whole day. n8n cannot filter by
date, so seam reads its pages newest first and stops past the range: a page then holds what
one n8n page had in the range. --limit is 1 to 100 (default 20); the last line gives the
--cursor of the next page.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lang, err := lang(cmd, e)
			if err != nil {
				return err
			}
			if limit < 1 || limit > n8n.MaxExecutionsPage {
				return usage(errors.New(i18n.Sprintf(lang, "--limit %d: want 1 to %d", limit, n8n.MaxExecutionsPage)))
			}
			if status != "" && !slices.Contains(n8n.ExecutionStatuses(), status) {
				return usage(errors.New(i18n.Sprintf(lang, "--status %q: want one of %s", status, strings.Join(n8n.ExecutionStatuses(), ", "))))
			}
			q := n8n.ExecutionQuery{ExecutionFilter: n8n.ExecutionFilter{WorkflowID: n8n.ID(workflow), Status: status, Limit: limit, Cursor: cursor}}
			for _, d := range []struct {
				flag, value string
				at          *time.Time
			}{{"--start-date", startDate, &q.Start}, {"--end-date", endDate, &q.End}} {
				if d.value == "" {
					continue
				}
				if *d.at, err = n8n.ParseDate(d.value, d.at == &q.End); err != nil {
					return usage(errors.New(i18n.Sprintf(lang, "%s %q is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z", d.flag, d.value)))
				}
			}
			if !q.Start.IsZero() && !q.End.IsZero() && q.Start.After(q.End) {
				return usage(errors.New(i18n.Sprintf(lang, "--start-date %s is after --end-date %s", startDate, endDate)))
			}
			c, err := n8nClient(e, lang, out.insecure)
			if err != nil {
				return err
			}
			p, err := c.ExecutionList(cmd.Context(), q)
			if err != nil {
				return n8nFailure(err)
			}
			l := n8n.Listing(p, q.WorkflowID)
			switch {
			case out.asJSON && out.raw:
				return out.writeJSON(e.stdout, l)
			case out.asJSON:
				return out.writeJSON(e.stdout, l.Minimal())
			}
			return n8n.WriteListing(e.stdout, l, lang)
		},
	}
	f := cmd.Flags()
	f.StringVar(&workflow, "workflow", "", "only executions of the workflow with this id")
	f.StringVar(&status, "status", "", "only executions with this status: "+strings.Join(n8n.ExecutionStatuses(), ", "))
	f.StringVar(&startDate, "start-date", "", "only executions started at or after this ISO 8601 date or time")
	f.StringVar(&endDate, "end-date", "", "only executions started at or before this ISO 8601 date or time")
	f.IntVar(&limit, "limit", 20, "executions per page, 1 to 100")
	f.StringVar(&cursor, "cursor", "", "the page after the one whose last line gave this cursor")
	out.flags(cmd)
	return cmd
}

func newN8NExecutionsGetCmd(e *env) *cobra.Command {
	var (
		includeData bool
		out         n8nOutput
	)
	cmd := &cobra.Command{
		Use:   "get ID [--json [--raw [--include-data]]]",
		Short: "Show an n8n execution: its error and what each node did",
		Long: `Show the execution ID of the n8n at $N8N_URL: status, workflow, start, duration, the error,
and every node that ran (status, time, items, error), failed nodes first. With --json the
minimal answer; --raw adds node ids, types and times and the workflow's settings, and
--include-data n8n's data (every node's items).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang, err := lang(cmd, e)
			if err != nil {
				return err
			}
			c, err := n8nClient(e, lang, out.insecure)
			if err != nil {
				return err
			}
			d, err := c.ExecutionDetail(cmd.Context(), n8n.ID(args[0]), includeData)
			if err != nil {
				return n8nFailure(err)
			}
			switch {
			case out.asJSON && out.raw:
				return out.writeJSON(e.stdout, d)
			case out.asJSON:
				return out.writeJSON(e.stdout, d.Minimal())
			}
			return n8n.WriteDetail(e.stdout, d, lang)
		},
	}
	cmd.Flags().BoolVar(&includeData, "include-data", false, "with --json --raw: n8n's data of the execution")
	out.flags(cmd)
	return cmd
}
