package contract

import (
	"errors"
	"fmt"
	"strings"
)

// uriTemplate is format uri-template as RFC 6570 defines it: literals and {expressions},
// each an optional operator and variables with an optional prefix (:N) or explode (*)
// modifier. It replaces the validator library's check, which cuts a URL at its path's slashes
// and at "?" before it looks for braces, and so refuses valid templates such as
// https://api.github.com/repos/o/r/{archive_format}{/ref} or
// /notifications{?since,all,participating} that GitHub's published schemas hold.
func uriTemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil // format applies to strings only
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return errors.New("an expression's { is not closed")
			}
			if err := templateExpr(s[i+1 : i+end]); err != nil {
				return err
			}
			i += end + 1
		case c == '}':
			return errors.New("a } closes no expression")
		case c == '%':
			if !pctEncoded(s[i:]) {
				return fmt.Errorf("%% at %d does not start a %%XX escape", i)
			}
			i += 3
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`|", c) >= 0:
			return fmt.Errorf("character %q at %d is not allowed in a template's literal", c, i)
		default:
			i++
		}
	}
	return nil
}

// templateExpr checks what stands between an expression's braces.
func templateExpr(e string) error {
	if e != "" && strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return errors.New("an expression names no variable")
	}
	for _, spec := range strings.Split(e, ",") {
		name, mod := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, mod = spec[:i], spec[i:]
		}
		if err := varName(name); err != nil {
			return err
		}
		switch {
		case mod == "" || mod == "*":
		case mod[0] == ':' && len(mod) >= 2 && len(mod) <= 5 && mod[1] != '0' && allDigits(mod[1:]):
		default:
			return fmt.Errorf("variable %s: modifier %q is neither * nor :1 to :9999", name, mod)
		}
	}
	return nil
}

// varName checks a variable's name: letters, digits, _ and %XX escapes, with single dots
// between them.
func varName(n string) error {
	if n == "" || n[0] == '.' || n[len(n)-1] == '.' || strings.Contains(n, "..") {
		return fmt.Errorf("variable name %q is empty or has a misplaced dot", n)
	}
	for i := 0; i < len(n); {
		c := n[i]
		switch {
		case c == '%':
			if !pctEncoded(n[i:]) {
				return fmt.Errorf("variable name %q: %% does not start a %%XX escape", n)
			}
			i += 3
		case c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			i++
		default:
			return fmt.Errorf("variable name %q: character %q is not allowed", n, c)
		}
	}
	return nil
}

func pctEncoded(s string) bool {
	return len(s) >= 3 && s[0] == '%' && isHex(s[1]) && isHex(s[2])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
