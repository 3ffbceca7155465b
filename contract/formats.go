package contract

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// Formats seam checks itself where the validator library's check is lenient (the
// JSON-Schema-Test-Suite's optional/format cases say what is right): ipv4 by net/netip
// (no sign, no leading zeros), hostname by RFC 1123 with IDNA2008's rules for A-labels,
// idn-hostname by IDNA2008 (UTS 46 without transitional mapping, joiners and bidi checked),
// email by RFC 5321 with such a domain.

func ipv4Format(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return errors.New("not four decimals from 0 to 255 separated by dots")
	}
	return nil
}

// idnaProfile checks labels as registration does: IDNA2008, no transitional mapping.
var idnaProfile = idna.New(idna.ValidateForRegistration(), idna.Transitional(false), idna.CheckJoiners(true), idna.BidiRule())

func hostnameFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return hostname(s)
}

func hostname(s string) error {
	if s == "" || len(s) > 253 {
		return errors.New("a host name has 1 to 253 characters")
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("a label has 1 to 63 characters and neither starts nor ends with a hyphen")
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
				return errors.New("a label holds letters, digits and hyphens only")
			}
		}
		if lower := strings.ToLower(label); strings.HasPrefix(lower, "xn--") {
			u, err := idnaProfile.ToUnicode(lower)
			if err == nil {
				// What decodes must be a U-label registration accepts.
				_, err = idnaProfile.ToASCII(u)
			}
			if err != nil || u == lower || len(u) >= 4 && u[2:4] == "--" || uLabel(u) != nil {
				return errors.New("the A-label is not IDNA2008's")
			}
		}
	}
	return nil
}

func idnHostnameFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	// RFC 3490's other full stops separate labels too.
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	for _, label := range strings.Split(s, ".") {
		if err := uLabel(label); err != nil {
			return err
		}
	}
	a, err := idnaProfile.ToASCII(s)
	if err != nil {
		return errors.New("not an IDNA2008 host name")
	}
	return hostname(a)
}

// uLabel checks what IDNA2008 adds to UTS 46 (which x/net/idna implements) for a label: the
// code points RFC 5892 disallows by exception, and the CONTEXTO rules of its appendix A
// (CONTEXTJ, the joiners, idna checks itself).
func uLabel(label string) error {
	rs := []rune(label)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) && r != '-' &&
			!slices.Contains([]rune{0x00b7, 0x0375, 0x05f3, 0x05f4, 0x30fb, 0x200c, 0x200d, 0x06fd, 0x06fe, 0x0f0b, 0x3007}, r):
			// IDNA2008 admits letters, marks and digits, the exceptions RFC 5892 makes PVALID
			// and those under context rules; UTS 46 admits more (punctuation such as ¡).
			return fmt.Errorf("U+%04X is no letter, mark or digit, which a host name's labels hold", r)
		case r == 0x0640 || r == 0x07fa || r == 0x302e || r == 0x302f || 0x3031 <= r && r <= 0x3035 || r == 0x303b:
			return fmt.Errorf("U+%04X is disallowed in a host name (RFC 5892)", r)
		case r == 0x00b7 && (i == 0 || i == len(rs)-1 || rs[i-1] != 'l' || rs[i+1] != 'l'):
			return errors.New("a middle dot stands between two l's only")
		case r == 0x0375 && (i == len(rs)-1 || !unicode.Is(unicode.Greek, rs[i+1])):
			return errors.New("a Greek keraia is followed by a Greek letter")
		case (r == 0x05f3 || r == 0x05f4) && (i == 0 || !unicode.Is(unicode.Hebrew, rs[i-1])):
			return errors.New("a Hebrew geresh or gershayim follows a Hebrew letter")
		case r == 0x30fb && !slices.ContainsFunc(rs, func(q rune) bool {
			return q != 0x30fb && (unicode.Is(unicode.Hiragana, q) || unicode.Is(unicode.Katakana, q) || unicode.Is(unicode.Han, q))
		}):
			return errors.New("a katakana middle dot stands in a label with hiragana, katakana or han")
		}
	}
	return nil
}

// durationFormat is RFC 3339's duration (appendix A): P, then weeks alone, or date units and
// time units each a run without gaps (Y M D, H M S: P1Y2D and PT1H2S have none).
func durationFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	s, ok = strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return errors.New("a duration is P and at least one number with its unit")
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		if w == "" || strings.Trim(w, "0123456789") != "" {
			return errors.New("weeks stand alone: PnW")
		}
		return nil
	}
	date, tm, hasT := strings.Cut(s, "T")
	if hasT && tm == "" || !durationUnits(date, "YMD") || !durationUnits(tm, "HMS") || date == "" && tm == "" {
		return errors.New("not an RFC 3339 duration")
	}
	return nil
}

// durationUnits checks s, numbers each followed by a unit of units, in order and without
// skipping one between the first and the last.
func durationUnits(s, units string) bool {
	next := -1 // the index of the unit that must come next; -1 before the first
	for s != "" {
		n := len(s) - len(strings.TrimLeft(s, "0123456789"))
		if n == 0 || n == len(s) {
			return false
		}
		i := strings.IndexByte(units, s[n])
		if i < 0 || next >= 0 && i != next {
			return false
		}
		next, s = i+1, s[n+1:]
	}
	return true
}

// iriFormat and iriReferenceFormat are RFC 3987's: RFC 3986's grammar with characters outside
// US-ASCII allowed where it allows unreserved ones.
func iriFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return uriReference(asciiUnreserved(s), true)
}

func iriReferenceFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return uriReference(asciiUnreserved(s), false)
}

// asciiUnreserved replaces every character outside US-ASCII with an unreserved one.
func asciiUnreserved(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 {
			return 'a'
		}
		return r
	}, s)
}

func emailFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return email(s, false)
}

func idnEmailFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return email(s, true)
}

// email checks an address as RFC 5321 writes it (RFC 6531 for idn: characters outside
// US-ASCII in the local part, an IDNA2008 domain): a local part of at most 64 bytes, dotted
// atoms or quoted, then @ and a host name or an address literal.
func email(s string, idn bool) error {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || len(s) > 254 {
		return errors.New("an address is a local part, @ and a domain")
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return errors.New("the local part has more than 64 bytes")
	}
	if q, ok := strings.CutPrefix(local, `"`); ok && len(local) > 1 && strings.HasSuffix(q, `"`) {
		if strings.ContainsAny(q[:len(q)-1], `\"`) {
			return errors.New("a quoted local part holds neither a backslash nor a quote")
		}
	} else {
		for _, atom := range strings.Split(local, ".") {
			if atom == "" {
				return errors.New("the local part's dots separate atoms")
			}
			for _, r := range atom {
				if !(r < 0x80 && (isAlpha(byte(r)) || isDigit(byte(r)) || strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)) || idn && r >= 0x80 && r != 0xff20) {
					return fmt.Errorf("character %q is not allowed in the local part", r)
				}
			}
		}
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok && strings.HasSuffix(lit, "]") {
		lit = lit[:len(lit)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			if a, err := netip.ParseAddr(v6); err != nil || !a.Is6() || a.Zone() != "" {
				return errors.New("the address literal is no IPv6 address")
			}
			return nil
		}
		return ipv4Format(lit)
	}
	if idn {
		// A mail domain is looked up, and lookup normalises it (NFC) first.
		return idnHostnameFormat(norm.NFC.String(domain))
	}
	return hostname(domain)
}
