package runs

import (
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// mask is what a password is shown as.
const mask = "xxxxx"

// Redact returns location as it may be shown: a PostgreSQL URL without its password (in the
// user info or a password parameter); anything else without the value of a password=
// parameter (a key=value connection string given for a path), else as it is.
//
// It reads the text rather than a parse of it: a password that holds an unescaped @, /, ? or
// # is read by a URL parser as the end of the user info and the start of the host, a path, a
// query or a fragment, so a parse would show the rest of it. Here everything from the ':'
// after the user name to the last '@' is the password, even when that hides more than it.
func Redact(location string) string {
	var b strings.Builder
	b.Grow(len(location))
	from := 0
	if IsPostgres(location) {
		// The scheme as url.Parse gives it, lower case.
		scheme, _, _ := strings.Cut(location, "://")
		b.WriteString(strings.ToLower(scheme))
		from = len(scheme)
	}
	for _, sp := range passwordSpans(location) {
		b.WriteString(location[from:sp.start])
		b.WriteString(mask)
		from = sp.end
	}
	b.WriteString(location[from:])
	return b.String()
}

// span is where location holds a password: [start, end) byte offsets, and whether it is in
// a URL's user info rather than the value of a parameter.
type span struct {
	start, end int
	userinfo   bool
}

// passwordSpans returns where location holds a password, in order: the user info's password
// of a PostgreSQL URL and the value of each password= (or sslpassword=) parameter.
func passwordSpans(location string) []span {
	var spans []span
	params, isURL := 0, IsPostgres(location)
	if isURL {
		params = strings.Index(location, "://") + len("://")
		if at := strings.LastIndexByte(location[params:], '@'); at >= 0 {
			userinfo := location[params : params+at]
			// The password starts at a ':' before the first '@'; one after it is the port's
			// (u@h:5432), and a password parameter may hold the last '@'.
			colon := strings.IndexByte(userinfo, ':')
			if colon >= 0 && colon < strings.IndexByte(userinfo+"@", '@') {
				spans = append(spans, span{params + colon + 1, params + at, true})
				params += at + 1
			}
		}
	}
	lower := strings.ToLower(location)
	for i := params; ; {
		k := strings.Index(lower[i:], "password=")
		if k < 0 {
			break
		}
		start := i + k + len("password=")
		end := paramEnd(location, start, isURL)
		spans = append(spans, span{start, end, false})
		i = end
	}
	return spans
}

// paramEnd returns where the value of a parameter that starts at start ends. In a URL's
// query a value ends at an '&' that starts another key=; one that does not (a password
// holding an unescaped '&') is taken as part of it. In a key=value string a value is quoted
// ('…', with \' and \\ escapes) or ends at white space.
func paramEnd(s string, start int, isURL bool) int {
	if isURL {
		for i := start; i < len(s); i++ {
			if s[i] == '&' && startsKey(s[i+1:]) {
				return i
			}
		}
		return len(s)
	}
	if start < len(s) && s[start] == '\'' {
		for i := start + 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '\'':
				return i + 1
			}
		}
		return len(s)
	}
	if i := strings.IndexAny(s[start:], " \t\r\n"); i >= 0 {
		return start + i
	}
	return len(s)
}

// startsKey reports whether s starts with a parameter's name and '='.
func startsKey(s string) bool {
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9' || s[n] == '_') {
		n++
	}
	return n > 0 && n < len(s) && s[n] == '='
}

// checkLocation refuses a location that would be read otherwise than meant, before any of it
// is used: a PostgreSQL URL whose password holds a character that ends it unescaped (the
// driver would take part of the password for the host, and look that name up), and a
// key=value connection string, which would otherwise be taken for a file's path. Its message
// shows the location redacted.
func checkLocation(location string, lang i18n.Lang) error {
	if !IsPostgres(location) {
		if l := strings.ToLower(location); strings.HasPrefix(l, "postgres:") || strings.HasPrefix(l, "postgresql:") {
			// A mistyped URL would become an SQLite file whose path holds the password: the
			// location is not shown, since its password cannot be told apart.
			scheme, _, _ := strings.Cut(location, ":")
			return i18n.Errorf(lang, "open store: the location starts with %s: but not %s://, so it is no PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DB", scheme, scheme)
		}
		if keyValueDSN(location) {
			return i18n.Errorf(lang, "open store %s: this is a key=value connection string; give a PostgreSQL store as a postgres:// URL (postgres://USER:PASSWORD@HOST:PORT/DB)", Redact(location))
		}
		return nil
	}
	for _, sp := range passwordSpans(location) {
		// In the user info, & is a character like any other.
		ends := "&#"
		if sp.userinfo {
			ends = "@/?#"
		}
		if strings.ContainsAny(location[sp.start:sp.end], ends) {
			return i18n.Errorf(lang, "open store %s: the password holds @, /, ?, # or & as it is, which a URL reads as the end of the password: write them as %%40, %%2F, %%3F, %%23 and %%26", Redact(location))
		}
	}
	return nil
}

// keyValueDSN reports whether location looks like a libpq key=value connection string.
func keyValueDSN(location string) bool {
	for _, f := range strings.Fields(location) {
		for _, k := range []string{"host=", "hostaddr=", "port=", "dbname=", "user=", "password=", "sslmode="} {
			if strings.HasPrefix(strings.ToLower(f), k) {
				return true
			}
		}
	}
	return false
}
