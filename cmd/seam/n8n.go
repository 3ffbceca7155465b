package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/catalog"
	"github.com/seam-dag/seam/n8n/validate"
)

func newN8NCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "n8n",
		Short: "Work with n8n workflows",
	}
	cmd.AddCommand(newN8NValidateCmd(e), newN8NExecutionsCmd(e))
	return cmd
}

func newN8NValidateCmd(e *env) *cobra.Command {
	var (
		profile, id string
		asJSON      bool
		insecure    bool
	)
	cmd := &cobra.Command{
		Use:   "validate (WF.json | - | --id ID) [--profile P] [--json]",
		Short: "Validate an n8n workflow before n8n sees it",
		Long: `Validate an n8n workflow: the JSON file WF.json (an export or an API response), stdin
for -, or with --id the workflow of that id fetched from n8n ($N8N_URL, $N8N_API_KEY).

Profiles: minimal (what n8n refuses or mis-loads), runtime (default: what breaks a run),
ai-friendly (runtime plus advice for agents), strict (advice as errors).
Prints the findings grouped by node, or with --json the full result.
Exit status: 0 valid (warnings allowed), 1 errors, 2 usage or input error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang, err := lang(cmd, e)
			if err != nil {
				return err
			}
			p, err := validate.ParseProfile(profile)
			if err != nil {
				return usage(fmt.Errorf("--profile: %w", err))
			}
			if (id == "") == (len(args) == 0) {
				return usage(errors.New(i18n.Sprintf(lang, "give a workflow file (or - for stdin), or --id")))
			}
			var l catalog.Loader
			cat, err := l.Get()
			if err != nil {
				return fmt.Errorf("load the n8n node catalog: %w", err)
			}
			opts := validate.Options{Profile: p, Catalog: cat, Lang: lang}
			var res *validate.Result
			name := ""
			if id != "" {
				wf, err := fetchWorkflow(cmd.Context(), e, lang, id, insecure)
				if err != nil {
					return err // a usage error (exit 2) for wrong input, exit 1 when n8n cannot answer
				}
				name = wf.Name
				res, err = validate.Validate(cmd.Context(), &validate.Workflow{Name: wf.Name, Nodes: wf.Nodes, Connections: wf.Connections, Settings: wf.Settings}, opts)
				if err != nil {
					return err
				}
			} else {
				doc, err := readDocument(e, args[0])
				if err != nil {
					return usage(err)
				}
				var v any
				if err := json.Unmarshal(doc, &v); err != nil {
					return usage(fmt.Errorf("%s: %s: %w", args[0], i18n.Sprintf(lang, "not JSON"), err))
				}
				if m, ok := v.(map[string]any); ok {
					name, _ = m["name"].(string)
				}
				if res, err = validate.ValidateValue(cmd.Context(), v, opts); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return fmt.Errorf("write result: %w", err)
				}
			} else if _, err := io.WriteString(e.stdout, formatN8NResult(res, name, lang)); err != nil {
				return fmt.Errorf("write result: %w", err)
			}
			if !res.Valid {
				return failed()
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&profile, "profile", "runtime", "minimal, runtime, ai-friendly or strict")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON: {valid, errors, warnings, statistics, suggestions}")
	f.StringVar(&id, "id", "", "validate the workflow of this id, fetched from n8n ($N8N_URL, $N8N_API_KEY)")
	f.BoolVar(&insecure, "insecure", false, "allow plain http:// to an n8n that is not on loopback")
	return cmd
}

// fetchWorkflow gets a workflow with the n8n client, from $N8N_URL with $N8N_API_KEY.
func fetchWorkflow(ctx context.Context, e *env, lang i18n.Lang, id string, insecure bool) (*n8n.Workflow, error) {
	url, key := e.getenv(n8n.EnvURL), e.getenv(n8n.EnvAPIKey)
	if url == "" || key == "" {
		return nil, usage(errors.New("--id needs N8N_URL and N8N_API_KEY"))
	}
	c, err := n8n.New(n8n.Config{URL: url, APIKey: key, Insecure: insecure, Lang: lang, URLFrom: n8n.FromFlag})
	if err != nil {
		return nil, usage(fmt.Errorf("--id: %w", err))
	}
	wf, err := c.GetWorkflow(ctx, n8n.ID(id))
	if code := n8n.StatusCode(err); code >= 400 && code < 500 {
		// n8n refused what was given (the id, the key): an input error, as a missing file is.
		return nil, usage(fmt.Errorf("--id %s: %w", id, err))
	}
	if err != nil {
		return nil, failedWith(fmt.Errorf("--id %s: %w", id, err))
	}
	return wf, nil
}

// formatN8NResult renders a result for people: a verdict line, the findings grouped by node
// (workflow-level ones first), the statistics.
func formatN8NResult(r *validate.Result, name string, lang i18n.Lang) string {
	var b strings.Builder
	title := i18n.Sprintf(lang, "workflow")
	if name != "" {
		title = fmt.Sprintf("%q", name)
	}
	errs := i18n.Plural(lang, len(r.Errors), "%d error", "%d errors", len(r.Errors))
	warns := i18n.Plural(lang, len(r.Warnings), "%d warning", "%d warnings", len(r.Warnings))
	if r.Valid {
		b.WriteString(i18n.Sprintf(lang, "%s: valid — %s, %s (profile %s)\n", title, errs, warns, r.Profile))
	} else {
		b.WriteString(i18n.Sprintf(lang, "%s: invalid — %s, %s (profile %s)\n", title, errs, warns, r.Profile))
	}
	type group struct {
		key    string
		issues []validate.Issue
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, is := range append(append([]validate.Issue{}, r.Errors...), r.Warnings...) {
		key := is.NodeName
		g := byKey[key]
		if g == nil {
			g = &group{key: key}
			byKey[key] = g
			if key == "" {
				groups = append([]*group{g}, groups...)
			} else {
				groups = append(groups, g)
			}
		}
		g.issues = append(g.issues, is)
	}
	for _, g := range groups {
		head := i18n.Sprintf(lang, "(workflow)")
		if g.key != "" {
			head = fmt.Sprintf("%q", g.key)
		}
		fmt.Fprintf(&b, "%s\n", head)
		for _, is := range g.issues {
			kind := i18n.Sprintf(lang, "warning")
			if is.Type == "error" {
				kind = i18n.Sprintf(lang, "error")
			}
			fmt.Fprintf(&b, "  %s %s %s\n", kind, is.Code, is.Message)
			if is.Fix != "" {
				b.WriteString(i18n.Sprintf(lang, "    fix: %s\n", is.Fix))
			}
		}
	}
	s := r.Statistics
	b.WriteString(i18n.Sprintf(lang, "%s, %s, %s\n",
		i18n.Plural(lang, s.TotalNodes, "%d node (%d enabled, %d trigger)", "%d nodes (%d enabled, %d trigger)", s.TotalNodes, s.EnabledNodes, s.TriggerNodes),
		i18n.Plural(lang, s.ValidConnections, "%d valid connection (%d invalid)", "%d valid connections (%d invalid)", s.ValidConnections, s.InvalidConnections),
		i18n.Plural(lang, s.ExpressionsValidated, "%d expression", "%d expressions", s.ExpressionsValidated)))
	return b.String()
}
