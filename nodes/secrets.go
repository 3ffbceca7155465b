package nodes

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Masked replaces a secret wherever one would have been shown.
const Masked = "***"

// MinSecret is the shortest value masked, in bytes: masking "1" or "ok" everywhere would
// break every output (its numbers, its words) and hide nothing worth hiding. A shorter env
// value is not masked (the engine warns when a run reads one). Telemetry masks from the same
// length.
const MinSecret = 4

// secretForms returns the texts to mask for secrets: each value as is, and as it reads once
// escaped the ways services echo what they received: in a URL (query and path escaping, every
// reserved byte escaped, lower-case hex, and decoded when the value holds escapes itself), in
// a JSON string as the common encoders write it, quoted by Go (%q, as errors quote a
// response), and for a long one inside base64 text (base64Forms). Longest first, so that a
// secret containing another is masked whole. Forms shorter than MinSecret are left out, like
// short secrets.
func secretForms(secrets []string) []string {
	var forms []string
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s),
			percentEscape(s, "-._~"), percentEscape(s, "-._~!'()*"))
		for _, f := range forms[len(forms)-4:] {
			if strings.ContainsRune(f, '%') {
				forms = append(forms, lowerHexEscapes(f))
			}
		}
		if strings.ContainsRune(s, '%') {
			// The value is escaped already: a server that decodes it echoes it decoded.
			if d, err := url.PathUnescape(s); err == nil {
				forms = append(forms, d)
			}
			if d, err := url.QueryUnescape(s); err == nil {
				forms = append(forms, d)
			}
		}
		// Each JSON encoder picks its own escapes; every combination of their choices,
		// which differ only for a value holding the characters concerned.
		for style := range jsonStyle(1 << 4) {
			forms = append(forms, jsonEscape(s, style))
		}
		if b, err := json.Marshal(s); err == nil {
			forms = append(forms, string(b[1:len(b)-1])) // Go's, exactly (U+2028 escaped always)
		}
		q, qa := strconv.Quote(s), strconv.QuoteToASCII(s)
		forms = append(forms, q[1:len(q)-1], qa[1:len(qa)-1])
		if len(s) >= minBase64Secret {
			forms = append(forms, base64Forms(s)...)
		}
	}
	forms = slices.DeleteFunc(forms, func(f string) bool { return len(f) < MinSecret })
	slices.SortFunc(forms, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	return slices.Compact(forms)
}

// minBase64Secret is the shortest secret whose base64 forms are masked: a form drops up to
// three characters at each end, and a short one would mask words that merely look alike.
const minBase64Secret = 12

// base64Forms are the texts that stand for s inside any base64 text (a Basic credential, a
// header value, a file a node encodes), standard and URL alphabets alike: s may start at any
// of the three byte offsets of a group, so each offset gives the characters that s alone
// decides, without the ones its neighbours share.
func base64Forms(s string) []string {
	var forms []string
	for off, skip := range []int{0, 2, 3} {
		b := append(make([]byte, off), s...)
		whole := len(b) / 3 * 4 // characters of complete groups: the rest depends on what follows
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			forms = append(forms, enc.EncodeToString(b)[skip:whole])
		}
	}
	return forms
}

// percentEscape escapes every byte but letters, digits and those in keep: "-._~" (RFC
// 3986's unreserved) for the strictest URL encoders, with "!'()*" for encodeURIComponent.
func percentEscape(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// lowerHexEscapes writes the hex digits of s's %XX escapes in lower case.
func lowerHexEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// jsonStyle is a set of choices a JSON encoder makes beyond what JSON requires.
type jsonStyle uint8

const (
	jsonEscapeSlash jsonStyle = 1 << iota // "/" as "\/" (PHP, some Java)
	jsonEscapeHTML                        // "<", ">", "&" as \u003c… (Go's default)
	jsonASCII                             // non-ASCII as \uXXXX (Python's default, PHP)
	jsonUpperHex                          // \u00E9 rather than \u00e9
)

// jsonEscape is s as it reads inside a JSON string written in style: '"' and '\\' escaped,
// \b \f \n \r \t for those, \u00XX for other control characters, U+2028 and U+2029 escaped
// with HTML escaping (as Go does), the rest as style says.
func jsonEscape(s string, style jsonStyle) string {
	hex := "\\u%04x"
	if style&jsonUpperHex != 0 {
		hex = "\\u%04X"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/' && style&jsonEscapeSlash != 0:
			b.WriteString("\\/")
		case r < 0x20:
			if e := shortEscape(r); e != "" {
				b.WriteString(e)
			} else {
				fmt.Fprintf(&b, hex, r)
			}
		case (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029) && style&jsonEscapeHTML != 0,
			r >= 0x80 && style&jsonASCII != 0 && r <= 0xFFFF:
			fmt.Fprintf(&b, hex, r)
		case r > 0xFFFF && style&jsonASCII != 0:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, hex+hex, r1, r2)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shortEscape is the two-character escape JSON has for control character r, or "".
func shortEscape(r rune) string {
	switch r {
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return ""
}

// MaskString replaces every occurrence of the secrets in s with Masked.
func MaskString(s string, secrets []string) string {
	return maskForms(s, secretForms(secrets))
}

func maskForms(s string, forms []string) string {
	for _, f := range forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Masked)
		}
	}
	return s
}

// MaskValue returns a decoded JSON value with the secrets masked in every string, object key
// and number (a number that holds a secret becomes the string Masked: a leak is worse than a
// changed type). v is not modified.
func MaskValue(v any, secrets []string) any {
	forms := secretForms(secrets)
	if len(forms) == 0 {
		return v
	}
	return maskValue(v, forms)
}

func maskValue(v any, forms []string) any {
	switch v := v.(type) {
	case string:
		return maskForms(v, forms)
	case json.Number:
		if m := maskForms(v.String(), forms); m != v.String() {
			return m
		}
		return v
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[maskForms(k, forms)] = maskValue(x, forms)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = maskValue(x, forms)
		}
		return a
	}
	return v
}

// MaskError returns err with the secrets masked in its message. What it wraps stays
// reachable through errors.Is and errors.As only for the causes callers test for (context
// ends, the output limit), which carry no secret: the rest of the chain, a *url.Error with
// its URL for one, is dropped.
func MaskError(err error, secrets []string) error {
	forms := secretForms(secrets)
	if err == nil || len(forms) == 0 {
		return err
	}
	msg := err.Error()
	masked := maskForms(msg, forms)
	if masked == msg {
		return err
	}
	return &maskedError{msg: masked, cause: safeCause(err)}
}

type maskedError struct {
	msg   string
	cause error // nil, or a cause that holds no secret
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.cause }

// safeCause finds in err's chain the causes that carry no text of their own.
func safeCause(err error) error {
	var limit *OutputLimitError
	switch {
	case errors.As(err, &limit):
		return limit
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return context.Canceled
	}
	return nil
}
