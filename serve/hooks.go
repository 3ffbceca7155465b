package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/service"
)

// hookAnswer is the JSON a webhook request is answered with.
type hookAnswer struct {
	RunID      string               `json:"run_id,omitempty"`
	Existing   bool                 `json:"existing,omitempty"` // the key's run, started before
	Status     dag.RunStatus        `json:"status,omitempty"`   // when the run ended within ?wait=
	Outputs    map[string]any       `json:"outputs,omitempty"`
	Error      string               `json:"error,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
}

// hook answers POST /hooks/{dag}/{trigger}: a webhook of a DAG under the root, by the DAG's
// name. It authenticates the request itself, by the HMAC of its body (the trigger's
// hmac.header and secret_env) or by an operator's bearer token, instead of by a login and a
// CSRF token: a sender such as GitHub has neither. Nothing starts for a request that is not
// authenticated, whose body breaks the webhook's contract, or whose key started a run
// already (docs/schedules.md).
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	l := s.lang(r)
	answer := func(code int, a hookAnswer) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		if err := json.NewEncoder(w).Encode(a); err != nil {
			s.opts.Logger.Warn("webhook answer not written", "err", err)
		}
	}
	fail := func(code int, msg string) { answer(code, hookAnswer{Error: msg}) }
	if s.opts.ReadOnly {
		fail(http.StatusForbidden, i18n.Sprintf(l, "this server is read-only: webhooks start nothing"))
		return
	}
	name, id, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/hooks/"), "/")
	if !ok || name == "" || id == "" || strings.Contains(id, "/") {
		fail(http.StatusNotFound, i18n.Sprintf(l, "a webhook's address is /hooks/DAG/TRIGGER"))
		return
	}
	var wait time.Duration
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fail(http.StatusBadRequest, i18n.Sprintf(l, "wait=%q: want a duration such as 30s, at most %s", v, service.MaxHookWait))
			return
		}
		wait = d
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, service.MaxHookBody))
	if err != nil {
		if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
			fail(http.StatusRequestEntityTooLarge, i18n.Sprintf(l, "the body is longer than %d bytes", service.MaxHookBody))
			return
		}
		fail(http.StatusBadRequest, i18n.Sprintf(l, "the body could not be read: %v", err))
		return
	}

	// Who asks. A bearer token is judged first, so that only an operator learns which
	// DAGs and triggers exist; a signature needs the trigger's secret.
	who, bearer := s.principal(r)
	operator := bearer == bearerSent && who != nil && who.Can(auth.Operator)
	switch {
	case bearer == bearerThrottled:
		secs := httpserve.RetryAfter(s.tries.Wait(httpserve.ClientAddr(r.RemoteAddr), time.Now()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		fail(http.StatusTooManyRequests, i18n.Sprintf(l, "too many wrong tokens from your address: try again in %d s", secs))
		return
	case bearer == bearerSent && who == nil:
		w.Header().Set("WWW-Authenticate", `Bearer realm="seam", error="invalid_token"`)
		fail(http.StatusUnauthorized, i18n.Sprintf(l, "that bearer token is not one of the server's principals"))
		return
	case bearer == bearerSent && !operator:
		fail(http.StatusForbidden, i18n.Sprintf(l, "%s may not start runs: it needs the role %s (or admin), and %s has %s. An admin can add the role in the principals file.",
			who.Name, auth.Operator, who.Name, roleList(who)))
		return
	}
	unsigned := i18n.Sprintf(l, "webhook %s/%s: sign the body (\"sha256=<hex>\" of its HMAC-SHA256 with the shared secret) or send an operator's bearer token", name, id)
	d, tr, err := s.webhook(r.Context(), name, id, l)
	if err != nil {
		if !operator {
			fail(http.StatusUnauthorized, unsigned)
			return
		}
		fail(http.StatusNotFound, err.Error())
		return
	}
	ctx := r.Context()
	if !operator {
		wh := tr.Webhook
		var secret string
		if s.opts.Getenv != nil && wh.SecretEnv != "" {
			secret = s.opts.Getenv(wh.SecretEnv)
		}
		sig := r.Header.Get(wh.Header)
		switch {
		case wh.SecretEnv == "" || sig == "":
			fail(http.StatusUnauthorized, unsigned)
			return
		case !service.Signed(secret, sig, body):
			fail(http.StatusUnauthorized, i18n.Sprintf(l, "webhook %s/%s: the signature in %s is not the body's HMAC-SHA256 with the shared secret", name, id, wh.Header))
			return
		}
		// The run is started by the webhook, as its record says.
		who = &auth.Principal{Name: "webhook:" + name + "/" + id, Roles: []auth.Role{auth.Operator}}
	}
	h, err := s.opts.Service.Hook(auth.With(ctx, who), d, tr, body, wait, l)
	var be *service.HookBodyError
	var pe *engine.ParamsError
	var le *service.LintError
	switch {
	case errors.As(err, &be):
		answer(http.StatusUnprocessableEntity, hookAnswer{Error: be.Error(), Violations: be.Violations})
	case errors.As(err, &pe):
		answer(http.StatusUnprocessableEntity, hookAnswer{Error: pe.Error(), Violations: pe.Violations})
	case errors.As(err, &le):
		fail(http.StatusConflict, s.hidePaths(le.Error()))
	case err != nil:
		fail(http.StatusInternalServerError, s.hidePaths(err.Error()))
	case h.Existing:
		answer(http.StatusOK, hookAnswer{RunID: h.RunID, Existing: true})
	case h.Result != nil:
		answer(http.StatusOK, hookAnswer{RunID: h.RunID, Status: h.Result.Status, Outputs: h.Result.Outputs})
	default:
		answer(http.StatusAccepted, hookAnswer{RunID: h.RunID})
	}
}

// webhook finds the DAG named name under the root and its webhook trigger id.
func (s *Server) webhook(ctx context.Context, name, id string, l i18n.Lang) (*dag.DAG, *dag.Trigger, error) {
	for _, d := range s.rootDAGs(ctx) { // a file that does not load names no DAG
		if d.Name == name {
			tr, err := service.Webhook(d, id, l)
			return d, tr, err
		}
	}
	return nil, nil, i18n.Errorf(l, "no DAG named %s under the root", name)
}
