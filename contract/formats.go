package contract

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
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
