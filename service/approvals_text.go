package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// stamp is how the texts of approvals show a time: local, to the minute.
const stamp = "2006-01-02 15:04"

// WriteApprovals writes a list of approvals for people, one line each: run, node, DAG, when
// it opened, its deadline, its title.
func WriteApprovals(w io.Writer, l i18n.Lang, list []Approval) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, i18n.Sprintf(l, "no approval waits for an answer"))
		return err
	}
	nodeW, dagW := 0, 0
	for _, a := range list {
		nodeW, dagW = max(nodeW, len(a.Node)), max(dagW, len(a.DAG))
	}
	for _, a := range list {
		due := "-"
		if !a.Question.Deadline.IsZero() {
			due = a.Question.Deadline.Local().Format(stamp)
		}
		line := fmt.Sprintf("%s  %-*s  %-*s  %s  %s  %s", a.Run, nodeW, a.Node, dagW, a.DAG,
			a.Question.Opened.Local().Format(stamp), i18n.Sprintf(l, "due %s", due), oneLine(a.Question.Title))
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

// WriteApproval writes one approval for people: the question, its evidence, the form, who
// may answer, the answer once given, and the earlier questions; then how to answer it, when
// the principal asking may. now tells an overdue deadline.
func WriteApproval(w io.Writer, l i18n.Lang, a *Approval, now time.Time) error {
	var b strings.Builder
	q := a.Question
	b.WriteString(i18n.Sprintf(l, "approval %s of run %s (%s)\n", a.Node, a.Run, a.DAG))
	b.WriteString(i18n.Sprintf(l, "title      %s\n", oneLine(q.Title)))
	if q.Body != "" {
		b.WriteString(i18n.Sprintf(l, "body       %s\n", indent(q.Body)))
	}
	b.WriteString(i18n.Sprintf(l, "opened     %s\n", q.Opened.Local().Format(stamp)))
	switch {
	case q.Deadline.IsZero():
		b.WriteString(i18n.Sprintf(l, "deadline   none\n"))
	case q.Answer == nil && overdue(q, now) && a.OnTemporal:
		b.WriteString(i18n.Sprintf(l, "deadline   %s (passed: the run's workflow on Temporal records its on_timeout answer when its timer fires, once a worker runs it)\n", q.Deadline.Local().Format(stamp)))
	case q.Answer == nil && overdue(q, now):
		b.WriteString(i18n.Sprintf(l, "deadline   %s (passed: the next command to touch the run records its on_timeout answer)\n", q.Deadline.Local().Format(stamp)))
	default:
		b.WriteString(i18n.Sprintf(l, "deadline   %s\n", q.Deadline.Local().Format(stamp)))
	}
	b.WriteString(i18n.Sprintf(l, "evidence   sha256 %s\n", q.EvidenceHash))
	if len(q.Evidence) > 0 {
		b.WriteString("  " + indent(pretty(q.Evidence)) + "\n")
	}
	if a.LoadError != "" {
		b.WriteString(i18n.Sprintf(l, "form       not known: %s\n", oneLine(a.LoadError)))
	} else {
		form, _ := json.Marshal(a.Form)
		b.WriteString(i18n.Sprintf(l, "form       %s\n", form))
		b.WriteString(i18n.Sprintf(l, "decisions  %s\n", strings.Join(a.Decisions, ", ")))
		b.WriteString(i18n.Sprintf(l, "approvers  %s\n", a.Approvers.text(l)))
	}
	if len(q.Prefill) > 0 {
		pre, _ := json.Marshal(q.Prefill)
		b.WriteString(i18n.Sprintf(l, "prefill    %s\n", pre))
	}
	for i, h := range a.History {
		b.WriteString(i18n.Sprintf(l, "round %d    evidence %s: %s\n", i+1, short(h.EvidenceHash), answerText(l, &h)))
	}
	if q.Answer != nil {
		b.WriteString(i18n.Sprintf(l, "answer     %s\n", answerText(l, q)))
	} else if a.MayAnswer {
		b.WriteString(i18n.Sprintf(l, "answer it with `seam approve %s %s` (or `seam reject %s %s`)\n", a.Run, a.Node, a.Run, a.Node))
	} else {
		b.WriteString(i18n.Sprintf(l, "you may not answer it\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (n ApproverNames) text(l i18n.Lang) string {
	if n.Anyone {
		return i18n.Sprintf(l, "anyone")
	}
	var parts []string
	if len(n.Principals) > 0 {
		parts = append(parts, i18n.Sprintf(l, "principals %s", strings.Join(n.Principals, ", ")))
	}
	if len(n.Groups) > 0 {
		parts = append(parts, i18n.Sprintf(l, "groups %s", strings.Join(n.Groups, ", ")))
	}
	return strings.Join(parts, "; ")
}

// answerText says an answer: decision, who, through what, when, and the fields.
func answerText(l i18n.Lang, q *dag.ApprovalRecord) string {
	if q.Answer == nil {
		return i18n.Sprintf(l, "not answered")
	}
	fields, _ := json.Marshal(q.Answer)
	by := q.By
	if by == "" {
		by = "-"
	}
	return i18n.Sprintf(l, "%s by %s through %s at %s: %s", q.Answer["decision"], by, q.Through, q.At.Local().Format(stamp), fields)
}

func pretty(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// PrintApprovals writes, for a command, the approvals q lists (when node is "") or approval
// node of run id, as text for people or, with asJSON, as indented JSON (a list is an array,
// [] when empty).
func (s *Service) PrintApprovals(ctx context.Context, w io.Writer, id, node string, q ApprovalQuery, asJSON bool) error {
	var v any
	if node == "" {
		list, err := s.ListApprovals(ctx, q)
		if err != nil {
			return err
		}
		if !asJSON {
			return WriteApprovals(w, s.opts.Lang, list)
		}
		v = append([]Approval{}, list...)
	} else {
		a, err := s.GetApproval(ctx, id, node, q)
		if err != nil {
			return err
		}
		if !asJSON {
			return WriteApproval(w, s.opts.Lang, a, time.Now())
		}
		v = a
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode approvals: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
