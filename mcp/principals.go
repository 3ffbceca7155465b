package mcp

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
)

// CodeForbidden is the envelope's code for a tool the principal asking may not call; the
// details name the role it needs.
const CodeForbidden = "forbidden"

// toolRole is the role a tool needs: an operator's to start, cancel or resume a run, an
// admin's to write n8n workflows, a viewer's for the reading tools (TestMCPToolRoles keeps
// this in step with the tools' read-only annotations).
func toolRole(name string) auth.Role {
	switch name {
	case "run_dag", "cancel_run", "resume_run":
		return auth.Operator
	case "pause_schedule", "resume_schedule", "trigger_schedule", "backfill_schedule":
		return auth.Operator
	case "create_workflow", "update_workflow":
		return auth.Admin
	case "answer_approval":
		return auth.Approver
	}
	return auth.Viewer
}

// principalKey is where the TokenInfo of an HTTP request holds its principal.
const principalKey = "seam.principal"

// RequirePrincipal lets through only the requests whose "Authorization: Bearer TOKEN"
// names one of who's principals; the others get 401 with a WWW-Authenticate challenge. Wrong
// tokens count against the client's address as on the web view: past
// httpserve.TokenBurst, a token (even a right one) gets 429 before it is compared. The
// refusals are said in the language the client's Accept-Language names first, else in lang.
// The principal travels to the tools in the SDK's TokenInfo (its UserID binds a session to
// the principal that opened it). A token is read from that header alone, never from the URL.
func RequirePrincipal(who auth.Source, lang i18n.Lang, next http.Handler) http.Handler {
	verify := func(_ context.Context, _ string, r *http.Request) (*sdkauth.TokenInfo, error) {
		p := auth.From(r.Context()) // found below, before the SDK's check
		return &sdkauth.TokenInfo{UserID: p.Name, Extra: map[string]any{principalKey: p}}, nil
	}
	inner := sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	var tries httpserve.Tries
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := lang
		if al, ok := httpserve.AcceptLanguage(r.Header.Get("Accept-Language")); ok {
			l = al
		}
		tok, ok := auth.Bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="seam"`)
			http.Error(w, i18n.Sprintf(l, "a bearer token is required: send the header Authorization: Bearer TOKEN"), http.StatusUnauthorized)
			return
		}
		ip, now := httpserve.ClientAddr(r.RemoteAddr), time.Now()
		if wait := tries.Wait(ip, now); wait > 0 {
			secs := httpserve.RetryAfter(wait)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			http.Error(w, i18n.Sprintf(l, "too many wrong tokens from your address: try again in %d s", secs), http.StatusTooManyRequests)
			return
		}
		p := who.Current().Lookup(tok)
		if p == nil {
			tries.Wrong(ip, now)
			w.Header().Set("WWW-Authenticate", `Bearer realm="seam", error="invalid_token"`)
			http.Error(w, i18n.Sprintf(l, "invalid bearer token: it is none of the tokens this server lets in"), http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r.WithContext(auth.With(r.Context(), p)))
	})
}

// checkRoles is a receiving middleware: a tool call is made by the principal its HTTP
// request named, else by local (stdio's operating-system user), who travels in the call's
// context to the run service; a principal without the role the tool needs gets the
// envelope's error, code forbidden, naming the role.
func checkRoles(local *auth.Principal, lang i18n.Lang) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			call, ok := req.(*sdk.CallToolRequest)
			if !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			who := local
			if call.Extra != nil && call.Extra.TokenInfo != nil {
				who, _ = call.Extra.TokenInfo.Extra[principalKey].(*auth.Principal)
			}
			if who == nil {
				return next(ctx, method, req)
			}
			if role := toolRole(call.Params.Name); !who.Can(role) {
				roles := make([]string, len(who.Roles))
				for i, r := range who.Roles {
					roles[i] = string(r)
				}
				return envelopeResult(lang, call.Params.Name, &toolError{code: CodeForbidden,
					details: map[string]any{"role": role, "principal": who.Name, "roles": who.Roles},
					msg: msgf("%s may not call %s: it needs the role %s (or admin), and %s has %s; an admin can add the role in the principals file",
						who.Name, call.Params.Name, role, who.Name, strings.Join(roles, ", "))})
			}
			return next(auth.With(ctx, who), method, req)
		}
	}
}
