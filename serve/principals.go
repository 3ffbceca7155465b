package serve

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
)

// principal is who r is: with principals, the one its bearer token or its login session
// names (nil for none); without, Options.Local. bearer reports an "Authorization: Bearer"
// header, right or wrong: such a request is never asked for a CSRF token, and one whose
// token is wrong is refused with 401 rather than sent to the login page. Wrong bearer tokens
// count against the client's address as the login form's do: past LoginBurst, a token is not
// even compared. A token in the URL's query is never read.
func (s *Server) principal(r *http.Request) (p *auth.Principal, bearer bearerAuth) {
	if s.who == nil {
		return s.opts.Local, noBearer
	}
	if s.proxy != nil {
		if user, ok := s.proxy.user(r); ok {
			if p = s.who.Current().ForUser(user); p == nil {
				return nil, proxyUnknown
			}
			return p, noBearer
		}
	}
	if h := r.Header.Get("Authorization"); h != "" {
		ip, now := httpserve.ClientAddr(r.RemoteAddr), time.Now()
		if s.tries.Wait(ip, now) > 0 {
			return nil, bearerThrottled
		}
		tok, _ := auth.Bearer(h)
		if p = s.who.Current().Lookup(tok); p == nil {
			s.tries.Wrong(ip, now)
		}
		return p, bearerSent
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, noBearer
	}
	t, ok := s.sessions.valid(c.Value, time.Now())
	switch {
	case !ok:
		return nil, noBearer
	case t.claims != nil:
		return s.who.Current().ForClaims(*t.claims), noBearer
	}
	return s.who.Current().Named(t.name), noBearer
}

// bearerAuth says whether a request came with an "Authorization" header.
type bearerAuth int

const (
	noBearer        bearerAuth = iota
	bearerSent                 // compared with the principals' tokens
	bearerThrottled            // not compared: too many wrong tokens from the address
	proxyUnknown               // the trusted proxy named someone the principals file does not know
)

// need is the role r asks for: an approver's to answer an approval, an operator's to start,
// cancel or resume a run (every other POST but logging out), a viewer's for the rest.
func need(r *http.Request) auth.Role {
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/runs/") && strings.Contains(r.URL.Path, "/approvals/") {
		return auth.Approver
	}
	if r.Method == http.MethodPost && r.URL.Path != "/logout" {
		return auth.Operator
	}
	return auth.Viewer
}

// allowed reports whether who may have r answered; if not, it answers: 401 or the login page
// for nobody, 403 with a page naming the role needed for someone without it.
func (s *Server) allowed(w http.ResponseWriter, r *http.Request, who *auth.Principal, bearer bearerAuth) bool {
	l := s.lang(r)
	switch {
	case bearer == bearerThrottled:
		secs := httpserve.RetryAfter(s.tries.Wait(httpserve.ClientAddr(r.RemoteAddr), time.Now()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		http.Error(w, i18n.Sprintf(l, "too many wrong tokens from your address: try again in %d s", secs), http.StatusTooManyRequests)
		return false
	case bearer == proxyUnknown:
		user, _ := s.proxy.user(r)
		http.Error(w, i18n.Sprintf(l, "the authenticating proxy says you are %s, but no principal in the principals file has that name or email: an admin can add one", user), http.StatusForbidden)
		return false
	case who == nil && bearer == bearerSent:
		w.Header().Set("WWW-Authenticate", `Bearer realm="seam", error="invalid_token"`)
		http.Error(w, i18n.Sprintf(l, "that bearer token is not one of the server's principals"), http.StatusUnauthorized)
		return false
	case who == nil && r.Method == http.MethodGet:
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return false
	case who == nil:
		http.Error(w, i18n.Sprintf(l, "log in first"), http.StatusUnauthorized)
		return false
	}
	if role := need(r); !who.Can(role) {
		s.render(w, r.WithContext(auth.With(r.Context(), who)), http.StatusForbidden, "forbidden",
			i18n.Sprintf(l, "%s may not do this: it needs the role %s (or admin), and %s has %s. An admin can add the role in the principals file.",
				who.Name, role, who.Name, roleList(who)))
		return false
	}
	return true
}

// roleList says p's roles.
func roleList(p *auth.Principal) string {
	names := make([]string, len(p.Roles))
	for i, r := range p.Roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// showWho names the principal logged in on page p, and leaves out the run form and the
// cancel and resume buttons for one who may not use them.
func (s *Server) showWho(p *page, r *http.Request) {
	if s.who == nil {
		return
	}
	p.Principals = auth.IsFile(s.who)
	who := auth.From(r.Context())
	if who == nil {
		return
	}
	p.Who = who.Name
	p.ReadOnly = p.ReadOnly || !who.Can(auth.Operator)
}

// principalTexts are the words principals.html says, and run.html's about who did what.
func principalTexts() []i18n.Message {
	return []i18n.Message{i18n.M("Not allowed"), i18n.M("by"), i18n.M("canceled by"), i18n.M("resumed by"), i18n.M("Your token")}
}

// CheckListen is CheckAuth for a server whose principals are src: with a principals file no
// request goes without a principal's token, so any address may be listened on; else the
// token's rules hold.
func CheckListen(addr, token string, src auth.Source, lang i18n.Lang) (loopback bool, err error) {
	if !auth.IsFile(src) {
		return CheckAuth(addr, token, lang)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, i18n.Errorf(lang, "listen address %q: want HOST:PORT, e.g. 127.0.0.1:8080: %w", addr, err)
	}
	return loopbackHost(host), nil
}
