package contract

import (
	"errors"
	"net/netip"
	"strings"
)

// Formats uri and uri-reference by RFC 3986's grammar (appendix A), where the validator
// library's checks (net/url's parser, lenient by design) accept "not a uri", spaces,
// backslashes and characters outside US-ASCII.

func uriFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil // format applies to strings only
	}
	return uriReference(s, true)
}

func uriReferenceFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return uriReference(s, false)
}

// uriReference checks s as a URI-reference, or as a URI when absolute is set.
func uriReference(s string, absolute bool) error {
	s, frag, hasFrag := strings.Cut(s, "#")
	if hasFrag && !uriChars(frag, "/?:@") {
		return errors.New("the fragment holds a character RFC 3986 does not allow there")
	}
	s, query, hasQuery := strings.Cut(s, "?")
	if hasQuery && !uriChars(query, "/?:@") {
		return errors.New("the query holds a character RFC 3986 does not allow there")
	}
	// A ':' before any '/' ends a scheme: a relative path's first segment holds none.
	if i := strings.IndexAny(s, ":/"); i >= 0 && s[i] == ':' {
		if !scheme(s[:i]) {
			return errors.New("the scheme is not a letter followed by letters, digits, +, - or .")
		}
		s = s[i+1:]
	} else if absolute {
		return errors.New("a URI needs a scheme (a relative reference is a uri-reference)")
	}
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		authority := rest
		s = ""
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			authority, s = rest[:i], rest[i:]
		}
		if err := uriAuthority(authority); err != nil {
			return err
		}
	}
	if !uriChars(s, "/:@") {
		return errors.New("the path holds a character RFC 3986 does not allow there")
	}
	return nil
}

func scheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// uriAuthority checks [ userinfo "@" ] host [ ":" port ].
func uriAuthority(a string) error {
	if i := strings.IndexByte(a, '@'); i >= 0 {
		if !uriChars(a[:i], ":") {
			return errors.New("the user information holds a character RFC 3986 does not allow there")
		}
		a = a[i+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return errors.New("an IP literal's [ is not closed")
		}
		host, port = a[1:end], a[end+1:]
		if !ipLiteral(host) {
			return errors.New("the IP literal is neither an IPv6 address nor an IPvFuture")
		}
		if port != "" && port[0] != ':' {
			return errors.New("an IP literal is followed by something other than a port")
		}
	} else {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i:]
		}
		if !uriChars(host, "") {
			return errors.New("the host holds a character RFC 3986 does not allow there")
		}
	}
	for i := 1; i < len(port); i++ {
		if !isDigit(port[i]) {
			return errors.New("the port is not a number")
		}
	}
	return nil
}

// ipLiteral checks what stands between an IP literal's brackets: an IPv6 address (no zone) or
// "v" HEXDIG+ "." (unreserved / sub-delims / ":")+.
func ipLiteral(s string) bool {
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "v"); ok {
		ver, tail, ok := strings.Cut(rest, ".")
		return ok && ver != "" && tail != "" && strings.Trim(ver, "0123456789abcdef") == "" &&
			!strings.Contains(tail, "%") && uriChars(tail, ":")
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// uriChars reports whether s holds only unreserved characters, sub-delims and %XX escapes,
// and the characters of more: what the place allows besides ("/:@" in a path, "/?:@" in a
// query or fragment, ":" in user information, "" in a host).
func uriChars(s, more string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c), isDigit(c), strings.IndexByte("-._~!$&'()*+,;=", c) >= 0, strings.IndexByte(more, c) >= 0:
		case c == '%':
			if !pctEncoded(s[i:]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}
