package serve

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/i18n"
)

// Limits of single sign-on (docs/limits.md).
const (
	// SSOTimeout is how long a browser may take at the OpenID provider to log in.
	SSOTimeout = 10 * time.Minute
	// MaxSSOPending caps the logins at the provider remembered at once; one more forgets the
	// oldest.
	MaxSSOPending = 1000
	// ssoDial bounds reading the provider's discovery document at start.
	ssoDial = 30 * time.Second
)

// ssoCookie holds the state of the browser's login at the provider. SameSite=Lax, as the
// provider's answer is a navigation from its site, which a Strict cookie would not follow.
const ssoCookie = "seam_sso"

// ssoLogin is a login sent to the provider and not yet back: the nonce its ID token must
// carry and the PKCE verifier that trades its code.
type ssoLogin struct {
	nonce, verifier string
	expires         time.Time
}

// ssoLogins are the logins at the provider, by state.
type ssoLogins struct {
	mu      sync.Mutex
	byState map[string]ssoLogin
}

// add remembers l under state.
func (ls *ssoLogins) add(state string, l ssoLogin, now time.Time) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for k, v := range ls.byState {
		if !now.Before(v.expires) {
			delete(ls.byState, k)
		}
	}
	if len(ls.byState) >= MaxSSOPending {
		oldest := ""
		for k, v := range ls.byState {
			if oldest == "" || v.expires.Before(ls.byState[oldest].expires) {
				oldest = k
			}
		}
		delete(ls.byState, oldest)
	}
	ls.byState[state] = l
}

// take is the login of state, which can be taken once, when it has not expired.
func (ls *ssoLogins) take(state string, now time.Time) (ssoLogin, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.byState[state]
	delete(ls.byState, state)
	return l, ok && now.Before(l.expires)
}

func random() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ssoRedirect is where the provider sends the browser back to: the principals file's
// redirect_url, else this server as r reached it.
func ssoRedirect(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/login/oidc/callback"
}

// ssoStart sends the browser to the provider with a new state, nonce and PKCE challenge.
func (s *Server) ssoStart(w http.ResponseWriter, r *http.Request) {
	if s.sso == nil {
		http.NotFound(w, r)
		return
	}
	state, nonce, verifier := random(), random(), oauth2.GenerateVerifier()
	s.ssoLogins.add(state, ssoLogin{nonce: nonce, verifier: verifier, expires: time.Now().Add(SSOTimeout)}, time.Now())
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: state, Path: "/login/oidc", MaxAge: int(SSOTimeout.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, s.sso.AuthCodeURL(ssoRedirect(r), state, nonce, verifier), http.StatusSeeOther)
}

// ssoCallback takes the browser back from the provider: the state must be the one this
// browser was sent with, the code is traded with its PKCE verifier, the ID token verified
// with its nonce, and its claims mapped to a principal, who gets a session; someone the
// principals file does not map is refused with a page that says what an admin can add.
func (s *Server) ssoCallback(w http.ResponseWriter, r *http.Request) {
	if s.sso == nil {
		http.NotFound(w, r)
		return
	}
	l, q := s.lang(r), r.URL.Query()
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: "", Path: "/login/oidc", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	refuse := func(code int, msg string) {
		s.render(w, r, code, "login", loginData{SSO: true, Refused: msg})
	}
	if e := q.Get("error"); e != "" {
		refuse(http.StatusUnauthorized, i18n.Sprintf(l, "the OpenID provider did not log you in: %s %s", e, q.Get("error_description")))
		return
	}
	c, err := r.Cookie(ssoCookie)
	state := q.Get("state")
	if err != nil || state == "" || !hmac.Equal([]byte(c.Value), []byte(state)) {
		refuse(http.StatusBadRequest, i18n.Sprintf(l, "this answer of the OpenID provider is not for a login this browser started here: log in again"))
		return
	}
	login, ok := s.ssoLogins.take(state, time.Now())
	if !ok {
		refuse(http.StatusBadRequest, i18n.Sprintf(l, "this login took longer than %d minutes or was used already: log in again", int(SSOTimeout.Minutes())))
		return
	}
	claims, err := s.sso.Exchange(r.Context(), ssoRedirect(r), q.Get("code"), login.verifier, login.nonce)
	if err != nil {
		refuse(http.StatusUnauthorized, err.Error())
		return
	}
	p := s.who.Current().ForClaims(claims)
	if p == nil {
		who := claims.Subject
		if claims.Email != "" {
			who = claims.Email + " (" + claims.Subject + ")"
		}
		refuse(http.StatusForbidden, i18n.Sprintf(l, "the OpenID provider says you are %s, but no principal in the principals file is you: an admin can add oidc: %q (or your verified email as email:) to a principal, or give one of your groups roles in oidc: role_map",
			who, claims.Subject))
		return
	}
	v := s.sessions.grant(session{name: p.Name, claims: &claims}, time.Now())
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: v, Path: "/", MaxAge: int(SessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode})
	// A page of this site, not a redirect: the browser came here from the provider's site,
	// and a redirect would carry that on and not send the Strict session cookie.
	s.render(w, r.WithContext(auth.With(r.Context(), p)), http.StatusOK, "sso", p.Name)
}

// dialSSO reads the discovery document of c's provider, within ssoDial: the server does not
// start without it (the error names the issuer).
func dialSSO(c *auth.OIDCConfig, getenv func(string) string, lang i18n.Lang) (*auth.OIDC, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	// New has no context of its own: the start of seam serve is bounded here instead.
	ctx, cancel := context.WithTimeout(context.Background(), ssoDial)
	defer cancel()
	return auth.DialOIDC(ctx, c, getenv, lang)
}

// ssoTexts are the words the single sign-on pages say.
func ssoTexts() []i18n.Message {
	return []i18n.Message{i18n.M("Logged in as"), i18n.M("Log in with single sign-on")}
}
