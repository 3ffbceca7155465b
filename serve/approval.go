package serve

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// approvalTexts are the words of the approval forms and of the "Waiting for you" page.
func approvalTexts() []i18n.Message {
	return []i18n.Message{
		i18n.M("Waiting for you"),
		i18n.M("Waiting for an answer"),
		i18n.M("Evidence"),
		i18n.M("Deadline"),
		i18n.M("Opened"),
		i18n.M("Comment"),
		i18n.M("one per line"),
		i18n.M("No approvals wait for you."),
		i18n.M("Approval"),
	}
}

// Kinds of input an answer's field is besides a param's (form.go's): a choice, a list of
// scalars, a fieldset.
const (
	kindEnum   = "enum"
	kindArray  = "array"
	kindObject = "object"
)

// An answerField is one field of an approval's form, from the form's schema: a scalar's
// input, an enum's select, a boolean's checkbox, an array of scalars' text area (one item a
// line; a select of several for an array of an enum), a nested object's fieldset. The server
// checks what is sent against the form again (service.Answer).
type answerField struct {
	Name        string // the input's name: "f." and the field's path, levels joined by "."
	Label       string // the property's name
	Path        string // the field's path, as a refusal names it ("address.city")
	Kind        string // kindString, kindInteger, kindNumber, kindBoolean, kindEnum, kindArray, kindObject
	Item        string // an array's items' kind (kindEnum for an enum's)
	Description string
	Required    bool
	Enum        []string // an enum's values, or an array's items', as their inputs say them
	Value       string   // what the input shows: the prefill, or what was sent
	Chosen      map[string]bool
	Checked     bool
	Min, Max    string
	Step        string
	Fields      []answerField // an object's
	enum        []any         // the enum's values as the schema has them, to send back typed
}

// answerFields lists the fields of the object schema schema, the required ones first, each
// part in name order, with values from values (the prefill, or the answer sent).
func answerFields(schema map[string]any, prefix string, values map[string]any) []answerField {
	props, _ := schema["properties"].(map[string]any)
	req := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
	}
	var out []answerField
	for name, v := range props {
		p, _ := v.(map[string]any)
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		f := answerField{Name: "f." + path, Label: name, Path: path, Required: req[name]}
		f.Description, _ = p["description"].(string)
		val, has := values[name]
		f.Kind, f.enum = scalarKind(p)
		switch f.Kind {
		case kindObject:
			sub, _ := val.(map[string]any)
			f.Fields = answerFields(p, path, sub)
		case kindArray:
			items, _ := p["items"].(map[string]any)
			f.Item, f.enum = scalarKind(items)
			list, _ := val.([]any)
			f.Chosen = map[string]bool{}
			var lines []string
			for _, x := range list {
				lines = append(lines, formValue(x))
				f.Chosen[formValue(x)] = true
			}
			f.Value = strings.Join(lines, "\n")
		case kindBoolean:
			f.Checked, _ = val.(bool)
		case kindInteger, kindNumber:
			f.Min, f.Max, f.Step = numberText(p["minimum"]), numberText(p["maximum"]), numberText(p["multipleOf"])
			if f.Step == "" && f.Kind == kindInteger {
				f.Step = "1"
			} else if f.Step == "" {
				f.Step = "any"
			}
		}
		for _, e := range f.enum {
			f.Enum = append(f.Enum, formValue(e))
		}
		if has && f.Kind != kindObject && f.Kind != kindArray && f.Kind != kindBoolean {
			f.Value = formValue(val)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b answerField) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Label, b.Label)
	})
	return out
}

// scalarKind is the kind of input schema p asks for, and its enum's values; a schema of no
// type the web view renders is a string's input (lint's SEAM-E322 refuses such a form).
func scalarKind(p map[string]any) (string, []any) {
	if es, ok := p["enum"].([]any); ok {
		return kindEnum, es
	}
	switch t, _ := p["type"].(string); t {
	case kindInteger, kindNumber, kindBoolean, kindArray, kindObject:
		return t, nil
	}
	return kindString, nil
}

// readAnswer reads an answer's fields from a posted form: a string as typed (an empty one
// too: the form showed it), a number exactly as typed, a checkbox as checked or not, an
// array's lines (blank ones left out) or chosen values, an object's fields; an empty number
// or choice is left out. It returns why fields could not be read, each naming its path.
func readAnswer(fs []answerField, form url.Values, l i18n.Lang) (map[string]any, []string) {
	out := map[string]any{}
	var errs []string
	for _, f := range fs {
		switch f.Kind {
		case kindObject:
			sub, es := readAnswer(f.Fields, form, l)
			out[f.Label], errs = sub, append(errs, es...)
		case kindArray:
			var sent []string
			if f.Item == kindEnum {
				sent = form[f.Name]
			} else {
				for line := range strings.SplitSeq(form.Get(f.Name), "\n") {
					if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
						sent = append(sent, line)
					}
				}
			}
			list := []any{}
			for i, v := range sent {
				x, err := readScalar(answerField{Kind: f.Item, Path: f.Path + "[" + strconv.Itoa(i) + "]", enum: f.enum}, v, l)
				if err != "" {
					errs = append(errs, err)
					continue
				}
				list = append(list, x)
			}
			out[f.Label] = list
		case kindBoolean:
			out[f.Label] = checked(form.Get(f.Name))
		default:
			v := form.Get(f.Name)
			if v == "" && f.Kind != kindString {
				continue
			}
			x, err := readScalar(f, v, l)
			if err != "" {
				errs = append(errs, err)
				continue
			}
			out[f.Label] = x
		}
	}
	return out, errs
}

// readScalar reads v as field f's kind says; the error names f's path.
func readScalar(f answerField, v string, l i18n.Lang) (any, string) {
	switch f.Kind {
	case kindEnum:
		for _, e := range f.enum {
			if formValue(e) == v {
				return e, ""
			}
		}
		return nil, i18n.Sprintf(l, "%s: %q is not one of its choices", f.Path, v)
	case kindInteger:
		n, ok := exactNumber(v)
		if !ok || !integral(n) {
			return nil, i18n.Sprintf(l, "%s: %q is not an integer", f.Path, v)
		}
		return n, ""
	case kindNumber:
		n, ok := exactNumber(v)
		if !ok {
			return nil, i18n.Sprintf(l, "%s: %q is not a number", f.Path, v)
		}
		return n, ""
	case kindBoolean:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, i18n.Sprintf(l, "%s: %q is not true or false", f.Path, v)
		}
		return b, ""
	}
	return v, ""
}

// answerArg is what the answerfield template gets.
type answerArg struct {
	Lang i18n.Lang
	F    answerField
}

// openApproval is an approval of a run waiting for its answer, as the run page shows it.
type openApproval struct {
	Node, Title, Body string
	Evidence          string // the frozen evidence, indented
	Hash              string
	Opened, Deadline  time.Time
	Fields            []answerField
	Decisions         []string
	// Comment offers a comment box: the form has no comment field of its own.
	Comment     bool
	CommentSent string
	// MayAnswer shows the form: the server is not read-only and the principal has the
	// approver role (or admin); whether it is one of the node's approvers, the answer says.
	MayAnswer bool
	// Refused says why the answer sent was refused (the approval stays open).
	Refused string
}

// sentAnswer is an answer the page is shown again for, refused.
type sentAnswer struct {
	Node    string
	Fields  map[string]any
	Comment string
	Refused string
}

// openQuestion is the question node's last waiting attempt holds, when it waits for its
// answer still; nil otherwise.
func openQuestion(as []runs.Attempt, node string) *dag.ApprovalRecord {
	var q *dag.ApprovalRecord
	for _, a := range as {
		if a.Node == node && a.Status == dag.NodeWaiting && a.Approval != nil {
			q = a.Approval
		}
	}
	if q == nil || q.Answer != nil {
		return nil
	}
	return q
}

// openApprovals are the approvals of d that run waits for, in d's order, with what a refused
// answer sent (sent, when not nil) in place of the prefill.
func (s *Server) openApprovals(ctx context.Context, d *dag.DAG, as []runs.Attempt, sent *sentAnswer) []openApproval {
	may := !s.opts.ReadOnly && auth.From(ctx).Can(auth.Approver)
	var out []openApproval
	for _, n := range d.Nodes {
		q := openQuestion(as, n.ID)
		cfg, ok := n.ApprovalConfig()
		if q == nil || !ok || n.Form == nil {
			continue
		}
		form, _ := n.Form.Source().(map[string]any)
		values := q.Prefill
		a := openApproval{Node: n.ID, Title: cfg.Title, Body: cfg.Body, Hash: q.EvidenceHash, Opened: q.Opened,
			Deadline: q.Deadline, Decisions: cfg.Decisions, MayAnswer: may}
		if len(q.Evidence) > 0 {
			a.Evidence = pretty(q.Evidence)
		}
		props, _ := form["properties"].(map[string]any)
		_, own := props["comment"]
		a.Comment = !own
		if sent != nil && sent.Node == n.ID {
			values, a.CommentSent, a.Refused = sent.Fields, sent.Comment, sent.Refused
		}
		a.Fields = answerFields(form, "", values)
		out = append(out, a)
	}
	return out
}

// answer answers approval node of run id with the form posted, checked again on the server
// (service.Answer), and redirects to the run, which the answer resumed; a refused answer
// shows the run's page again with what was sent and why it was refused.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	if s.refuseReadOnly(w, r) {
		return
	}
	ctx, l := r.Context(), s.lang(r)
	id, node := r.PathValue("id"), r.PathValue("node")
	load := func(path string) (*dag.DAG, error) {
		p, err := s.resolve(path, l)
		if err != nil {
			return nil, err
		}
		return s.load(ctx, p, l)
	}
	sent := &sentAnswer{Node: node, Comment: r.PostForm.Get("comment")}
	req := service.AnswerRequest{Run: id, Node: node, Decision: r.PostForm.Get("decision"), Comment: sent.Comment,
		EvidenceHash: r.PostForm.Get("evidence"), Through: service.ThroughWeb, Lang: l}
	d, err := s.opts.Service.DAGOf(ctx, id, load)
	if err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	if n := d.ByID[node]; n != nil && n.Form != nil {
		form, _ := n.Form.Source().(map[string]any)
		var errs []string
		req.Fields, errs = readAnswer(answerFields(form, "", nil), r.PostForm, l)
		sent.Fields = req.Fields
		if len(errs) > 0 {
			sent.Refused = strings.Join(errs, "\n")
			s.showRun(w, r, http.StatusBadRequest, sent)
			return
		}
	}
	// The resumed run outlives the request; the Service's Close stops it. late hears that the
	// deadline passed before the answer came: the deadline's answer was recorded instead.
	var late error
	out, err := s.opts.Service.Answer(context.WithoutCancel(ctx), req, load, service.Request{Warn: func(w error) { late = w }})
	var ae *service.AnswerError
	if errors.As(err, &ae) {
		sent.Refused = ae.Error()
		s.showRun(w, r, refusalCode(ae.Why), sent)
		return
	}
	if err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	if out.TimedOut && late != nil {
		// Not the answer given: the page says so rather than redirect as if it were taken.
		s.showRun(w, r, http.StatusConflict, &sentAnswer{Node: node, Refused: late.Error()})
		return
	}
	if out.Run != nil {
		s.started(w, r, out.Run)
		return
	}
	http.Redirect(w, r, "/runs/"+url.PathEscape(id), http.StatusSeeOther)
}

// refusalCode is the status of a refused answer.
func refusalCode(why service.AnswerRefusal) int {
	switch why {
	case service.NotApprover, service.Starter, service.AgentsMayNot:
		return http.StatusForbidden
	case service.InvalidAnswer:
		return http.StatusUnprocessableEntity
	}
	return http.StatusConflict // not waiting, stale evidence, another answer first
}

// approvalRow is a row of the "Waiting for you" page.
type approvalRow struct {
	Run              runs.Run
	Node, Title      string
	Opened, Deadline time.Time
}

type approvalsData struct {
	Rows []approvalRow
	Err  string
}

// approvalsPage lists the approvals open in the waiting runs (the newest PageSize) that the
// principal may answer: with a principals file, those whose approvers it is one of, when it
// has the approver role; without one, all of them.
func (s *Server) approvalsPage(w http.ResponseWriter, r *http.Request) {
	ctx, l := r.Context(), s.lang(r)
	var d approvalsData
	list, _, err := s.opts.Service.List(ctx, runs.Filter{Status: dag.RunWaiting, Limit: PageSize})
	if err != nil {
		d.Err = err.Error()
		s.render(w, r, http.StatusInternalServerError, "approvals", d)
		return
	}
	filter := s.who != nil && auth.IsFile(s.who)
	if filter && !auth.From(ctx).Can(auth.Approver) {
		s.render(w, r, http.StatusOK, "approvals", d)
		return
	}
	loaded := map[string]*dag.DAG{} // by file: the waiting runs of one DAG load it once
	for _, run := range list {
		if run.File == "" {
			continue
		}
		dg, ok := loaded[run.File]
		if !ok {
			dg, _ = s.runFile(ctx, &run, l)
			loaded[run.File] = dg
		}
		if dg == nil {
			continue // its page says why; nothing can be answered here without its form
		}
		_, as, err := s.opts.Service.Show(ctx, run.ID)
		if err != nil {
			continue
		}
		for _, n := range dg.Nodes {
			q := openQuestion(as, n.ID)
			cfg, ok := n.ApprovalConfig()
			if q == nil || !ok || (filter && !s.opts.Service.MayAnswer(ctx, &run, cfg)) {
				continue
			}
			d.Rows = append(d.Rows, approvalRow{Run: run, Node: n.ID, Title: cfg.Title, Opened: q.Opened, Deadline: q.Deadline})
		}
	}
	s.render(w, r, http.StatusOK, "approvals", d)
}
