package serve

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
)

type executionsData struct {
	Listing          n8n.ExecutionListing
	Status, Workflow string
	Statuses         []string
	Next, Err        string
}

// executionsPage lists the executions of the n8n instance, newest first, by page of 20.
func (s *Server) executionsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := executionsData{Status: q.Get("status"), Workflow: q.Get("workflow"), Statuses: n8n.ExecutionStatuses()}
	if d.Status != "" && !slices.Contains(d.Statuses, d.Status) {
		d.Err = i18n.Sprintf(s.lang(r), "--status %q: want one of %s", d.Status, strings.Join(d.Statuses, ", "))
		s.render(w, r, http.StatusBadRequest, "executions", d)
		return
	}
	eq := n8n.ExecutionQuery{ExecutionFilter: n8n.ExecutionFilter{WorkflowID: n8n.ID(d.Workflow), Status: d.Status, Limit: 20, Cursor: q.Get("cursor")}}
	p, err := s.opts.N8N.In(s.lang(r)).ExecutionList(r.Context(), eq)
	if err != nil {
		d.Err = err.Error()
		s.render(w, r, n8nCode(err), "executions", d)
		return
	}
	d.Listing = n8n.Listing(p, eq.WorkflowID)
	if p.NextCursor != "" {
		v := url.Values{"cursor": {p.NextCursor}}
		if d.Status != "" {
			v.Set("status", d.Status)
		}
		if d.Workflow != "" {
			v.Set("workflow", d.Workflow)
		}
		d.Next = "/n8n/executions?" + v.Encode()
	}
	s.render(w, r, http.StatusOK, "executions", d)
}

// executionPage shows one execution: its status, its error, and what each node did.
func (s *Server) executionPage(w http.ResponseWriter, r *http.Request) {
	// The client's errors are said in the page's language.
	d, err := s.opts.N8N.In(s.lang(r)).ExecutionDetail(r.Context(), n8n.ID(r.PathValue("id")), false)
	if err != nil {
		s.fail(w, r, n8nCode(err), err)
		return
	}
	s.render(w, r, http.StatusOK, "execution", d)
}

// n8nCode is the status of a page whose n8n call failed: n8n's 4xx as it is (404 for an
// execution it does not have), else 502.
func n8nCode(err error) int {
	var ie *n8n.InvalidIDError
	if errors.As(err, &ie) {
		return http.StatusBadRequest
	}
	if c := n8n.StatusCode(err); c >= 400 && c < 500 {
		return c
	}
	return http.StatusBadGateway
}
