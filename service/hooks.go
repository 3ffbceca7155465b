package service

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// Limits of a webhook request (docs/schedules.md).
const (
	// MaxHookBody caps a webhook's body in bytes; a longer one is refused (413).
	MaxHookBody = 1 << 20
	// MaxHookWait caps ?wait=: a request holds its connection no longer than this.
	MaxHookWait = time.Minute
)

// Webhook returns trigger id of d when it is a webhook, or an error saying why not.
func Webhook(d *dag.DAG, id string, lang i18n.Lang) (*dag.Trigger, error) {
	tr, err := TriggerOf(d, id, lang)
	if err != nil {
		return nil, err
	}
	if tr.Webhook == nil {
		return nil, i18n.Errorf(lang, "trigger %s of %s is a schedule, not a webhook: POST /hooks/%s/%s starts nothing", id, d.Name, d.Name, id)
	}
	return tr, nil
}

// Signed reports whether signature ("sha256=<hex>", as GitHub sends it) is the HMAC-SHA256
// of body under secret. An empty secret signs nothing: a webhook whose variable is unset
// takes bearer tokens only. The comparison takes the same time wherever the bytes differ.
func Signed(secret, signature string, body []byte) bool {
	h, ok := strings.CutPrefix(signature, "sha256=")
	if secret == "" || !ok {
		return false
	}
	got, err := hex.DecodeString(h)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// HookBodyError says a webhook's body cannot start a run: it is not JSON, it breaks the
// webhook's contract (Violations), or the trigger's key or params cannot be made of it.
type HookBodyError struct {
	Violations []contract.Violation
	Err        error // what is wrong when no violation says it
	lang       i18n.Lang
}

func (e *HookBodyError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	var b strings.Builder
	b.WriteString(i18n.Sprintf(e.lang, "the body breaks the webhook's contract"))
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\n  %s: %s", pointerOrRoot(v.Pointer), v.Message)
	}
	return b.String()
}

func (e *HookBodyError) Unwrap() error { return e.Err }

// HookParams are the params webhook trigger tr makes of a request's body v (already checked
// against the webhook's contract); nil when it makes none. Hook starts its run with them, and
// a property test of lint's proof of trigger params makes them as Hook does.
func HookParams(tr *dag.Trigger, v any, lang i18n.Lang) (map[string]any, error) {
	if tr.Params == nil {
		return nil, nil
	}
	p, err := tr.Params.Eval(&dag.Scope{Trigger: map[string]any{"body": v}, Lang: lang})
	m, ok := p.(map[string]any)
	if err == nil && !ok {
		err = i18n.Errorf(lang, "params must make an object, not %s", fmt.Sprintf("%T", p))
	}
	return m, err
}

// Hooked is what a webhook request did.
type Hooked struct {
	RunID string `json:"run_id"`
	// Existing says the request's key had started RunID already: nothing started.
	Existing bool `json:"existing,omitempty"`
	// Result is the run's, when it ended within the wait asked for; nil otherwise.
	Result *dag.RunResult `json:"-"`
}

// Hook starts a run of d for a request to its webhook tr (Webhook) with body, which the
// caller has authenticated: the body is checked against the webhook's contract (a
// *HookBodyError in lang), the trigger's key and params are made of it, and the run is
// started recording the trigger and the key. A key that started a run already starts
// nothing: Hooked.Existing, with that run's id, decided by the store in the run's
// transaction (runs.KeyUsedError). With wait > 0 (at most MaxHookWait) Hook waits for the
// run to end and returns its result when it does.
func (s *Service) Hook(ctx context.Context, d *dag.DAG, tr *dag.Trigger, body []byte, wait time.Duration, lang i18n.Lang) (*Hooked, error) {
	v, err := contract.ParseJSON(body)
	if err != nil {
		return nil, &HookBodyError{Err: i18n.Errorf(lang, "the body is not JSON: %w", err), lang: lang}
	}
	if tr.Webhook.Body != nil {
		if vs := tr.Webhook.Body.Validate(v, lang); len(vs) > 0 {
			return nil, &HookBodyError{Violations: vs, lang: lang}
		}
	}
	scope := &dag.Scope{Trigger: map[string]any{"body": v}, Lang: lang}
	fired := dag.Fired{Trigger: tr.ID}
	if tr.Key != nil {
		k, err := tr.Key.Eval(scope)
		if err == nil {
			fired.Key, err = keyText(k, lang)
		}
		if err != nil {
			return nil, &HookBodyError{Err: i18n.Errorf(lang, "trigger %s: the key cannot be made of the body: %w", tr.ID, err), lang: lang}
		}
	}
	params, err := HookParams(tr, v, lang)
	if err != nil {
		return nil, &HookBodyError{Err: i18n.Errorf(lang, "trigger %s: the params cannot be made of the body: %w", tr.ID, err), lang: lang}
	}
	// The run outlives the request that started it.
	run, err := s.Start(context.WithoutCancel(ctx), d, Request{Params: params, Fired: fired})
	if err != nil {
		return nil, err
	}
	select {
	case <-run.Recorded():
	case <-run.Done():
		if _, err := run.Wait(); err != nil {
			if used := (*runs.KeyUsedError)(nil); errors.As(err, &used) {
				return &Hooked{RunID: used.RunID, Existing: true}, nil
			}
			return nil, err
		}
	}
	h := &Hooked{RunID: run.ID}
	if wait <= 0 {
		return h, nil
	}
	t := time.NewTimer(min(wait, MaxHookWait))
	defer t.Stop()
	select {
	case <-run.Done():
		h.Result, err = run.Wait()
		return h, err
	case <-t.C:
	case <-ctx.Done():
	}
	return h, nil
}

// keyText is the key a template made: a string as it is, anything else as compact JSON. An
// empty key (or null) names no run, so it is refused rather than shared by every request.
func keyText(k any, lang i18n.Lang) (string, error) {
	s, ok := k.(string)
	if !ok && k != nil {
		b, err := json.Marshal(k)
		if err != nil {
			return "", err
		}
		s = string(b)
	}
	if s == "" {
		return "", i18n.Errorf(lang, "it is empty")
	}
	return s, nil
}
