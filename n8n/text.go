package n8n

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// WriteListing prints a listing for people (seam n8n executions list): a table, then the
// counts and the next page's cursor.
func WriteListing(w io.Writer, l ExecutionListing, lang i18n.Lang) error {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	spans := l.WorkflowID == ""
	if l.Count > 0 {
		head := i18n.Sprintf(lang, "ID\tSTATUS\tSTARTED\tDURATION")
		if spans {
			head += "\t" + i18n.Sprintf(lang, "WORKFLOW")
		}
		fmt.Fprintln(tw, head)
	}
	for _, b := range Briefs(l.Executions, spans) {
		row := fmt.Sprintf("%s\t%s\t%s\t%s", b.ID, b.Status, timeText(b.StartedAt), msText(b.DurationMS))
		if spans {
			row += "\t" + b.Workflow
		}
		fmt.Fprintln(tw, row)
	}
	if err := writeTable(w, tw, &table); err != nil {
		return err
	}
	statuses := slices.Sorted(func(yield func(string) bool) {
		for st := range l.Counts {
			if !yield(st) {
				return
			}
		}
	})
	counts := make([]string, len(statuses))
	for i, st := range statuses {
		counts[i] = i18n.Sprintf(lang, "%[1]d %[2]s", l.Counts[st], st)
	}
	line := i18n.Sprintf(lang, "%d executions", l.Count)
	if l.Count == 1 {
		line = i18n.Sprintf(lang, "1 execution")
	}
	if len(counts) > 0 {
		line += i18n.Sprintf(lang, " (%s)", strings.Join(counts, i18n.Sprintf(lang, ", ")))
	}
	if l.Workflow != "" {
		line += i18n.Sprintf(lang, " of workflow %q", l.Workflow)
	}
	if l.NextCursor != "" {
		line += i18n.Sprintf(lang, "; next page: --cursor %s", l.NextCursor)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func timeText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func msText(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return fmt.Sprintf("%dms", *ms)
}

// WriteDetail prints an execution for people (seam n8n executions get): a line about it, its
// error, then its nodes.
func WriteDetail(w io.Writer, d *ExecutionDetail, lang i18n.Lang) error {
	m := d.Minimal()
	name := m.Workflow
	if name == "" {
		name = m.WorkflowID
	}
	fmt.Fprintln(w, i18n.Sprintf(lang, "execution %s of workflow %q (%s): %s, %s, started %s, took %s",
		m.ID, name, m.WorkflowID, m.Status, m.Mode, timeText(m.StartedAt), msText(m.DurationMS)))
	if m.Error != nil {
		fmt.Fprintln(w, i18n.Sprintf(lang, "error in %s: %s", m.Error.Node, m.Error.Message))
	}
	if len(m.Nodes) == 0 {
		_, err := fmt.Fprintln(w, i18n.Sprintf(lang, "no node ran"))
		return err
	}
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, i18n.Sprintf(lang, "NODE\tSTATUS\tDURATION\tITEMS\tERROR"))
	for _, n := range m.Nodes {
		fmt.Fprintf(tw, "%s\t%s\t%dms\t%d\t%s\n", n.Name, n.Status, n.DurationMS, n.Items, n.Error)
	}
	return writeTable(w, tw, &table)
}

// writeTable writes a table without the spaces an empty last column leaves.
func writeTable(w io.Writer, tw *tabwriter.Writer, table *bytes.Buffer) error {
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	for line := range strings.Lines(table.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
	}
	return nil
}
