package serve

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
)

// Limits of the login (docs/limits.md).
const (
	// LoginBurst is how many wrong tokens a client address may send in a row; past it, a
	// login is refused with 429 before its token is compared.
	LoginBurst = httpserve.TokenBurst
	// LoginRefill is how often a client address gets one more try back.
	LoginRefill = httpserve.TokenRefill
	// MaxLoginClients caps the client addresses whose wrong tokens are remembered.
	MaxLoginClients = httpserve.MaxTokenClients
	// SessionTTL is how long a login lasts.
	SessionTTL = 12 * time.Hour
	// MaxSessions caps the logins remembered at once; one more ends the oldest.
	MaxSessions = 1000
)

// sessions are the logins the server has granted and not ended: a session cookie is valid
// only while its value is here, so logging out ends it on the server, not only in the
// browser that sends it.
type sessions struct {
	mu      sync.Mutex
	byValue map[string]session // by cookie value
}

// session is a login: who logged in (looked up again in the principals in force at each
// request, so that one removed from the file is logged out at once) and until when.
type session struct {
	name string
	// claims are what the OpenID provider said of a single sign-on, mapped again to a
	// principal at each request; nil for a login with a token.
	claims  *auth.Claims
	expires time.Time
}

// start grants name a new session and returns its cookie value.
func (ss *sessions) start(name string, now time.Time) string {
	return ss.grant(session{name: name}, now)
}

// grant starts session t, which lasts SessionTTL from now, and returns its cookie value.
func (ss *sessions) grant(t session, now time.Time) string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	v := hex.EncodeToString(b)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.byValue) >= MaxSessions {
		oldest := ""
		for k, t := range ss.byValue {
			if oldest == "" || t.expires.Before(ss.byValue[oldest].expires) {
				oldest = k
			}
		}
		delete(ss.byValue, oldest)
	}
	t.expires = now.Add(SessionTTL)
	ss.byValue[v] = t
	return v
}

// valid is session v, when it was granted and not ended or expired.
func (ss *sessions) valid(v string, now time.Time) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t, ok := ss.byValue[v]
	if ok && !now.Before(t.expires) {
		delete(ss.byValue, v)
		return session{}, false
	}
	return t, ok
}

// end ends the session of cookie value v.
func (ss *sessions) end(v string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byValue, v)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "login", loginData{SSO: s.sso != nil})
}

type loginData struct {
	Wrong bool
	Wait  string // why the login was refused before the token was compared
	SSO   bool   // the login page offers single sign-on
	// Refused says why a single sign-on did not log in.
	Refused string
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.who == nil {
		http.Redirect(w, r, "/runs", http.StatusSeeOther)
		return
	}
	ip, now := httpserve.ClientAddr(r.RemoteAddr), time.Now()
	if wait := s.tries.Wait(ip, now); wait > 0 {
		secs := httpserve.RetryAfter(wait)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.render(w, r, http.StatusTooManyRequests, "login", loginData{SSO: s.sso != nil,
			Wait: i18n.Sprintf(s.lang(r), "too many wrong tokens from your address: try again in %d s", secs)})
		return
	}
	p := s.who.Current().Lookup(r.PostForm.Get("token"))
	if p == nil {
		s.tries.Wrong(ip, now)
		s.render(w, r, http.StatusUnauthorized, "login", loginData{SSO: s.sso != nil, Wrong: true})
		return
	}
	v := s.sessions.start(p.Name, now)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: v, Path: "/", MaxAge: int(SessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/runs", http.StatusSeeOther)
}

// logout ends the session on the server, so that a copy of its cookie no longer opens a
// page, and has the browser forget the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
