package contract

// A small JSON parser for ParseJSON. Every node output goes through it once, and most outputs
// are a few dozen bytes, where a json.Decoder costs more in its own setup (the decoder, its
// refill buffer, the scanner) than in decoding. It accepts exactly what encoding/json accepts
// (RFC 8259) and produces exactly the values a Decoder with UseNumber produces, except numbers
// beyond MaxNumberDigits or MaxNumberExponent, which it refuses with a NumberError; FuzzParseJSON
// checks both against jsonschema.UnmarshalJSON.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: deeper documents are rejected rather than parsed,
// so a hostile output cannot make the recursion exhaust the stack.
const maxDepth = 10000

// parser reads one document. It lives on ParseJSON's stack: calls share nothing.
type parser struct {
	b []byte
	i int // offset of the next byte to read
}

func parseJSON(b []byte) (any, error) {
	p := parser{b: b}
	p.space()
	v, err := p.value(0)
	if err != nil {
		if ne, ok := err.(*NumberError); ok {
			ne.at()
		}
		return nil, err
	}
	if p.space(); p.i < len(p.b) {
		return nil, p.fail("after top-level value")
	}
	return v, nil
}

// value reads any value inside depth objects and arrays; p.i is at its first byte.
func (p *parser) value(depth int) (any, error) {
	switch c := p.peek(); {
	case c == '{' || c == '[':
		if depth == maxDepth {
			return nil, fmt.Errorf("exceeded max depth of %d at offset %d", maxDepth, p.i)
		}
		p.i++
		p.space()
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("looking for beginning of value")
}

// object reads an object's members; p.i is past the '{' and any whitespace after it.
func (p *parser) object(depth int) (any, error) {
	m := make(map[string]any)
	if p.peek() == '}' {
		p.i++
		return m, nil
	}
	for {
		if p.peek() != '"' {
			return nil, p.fail("looking for beginning of object key string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.space(); p.peek() != ':' {
			return nil, p.fail("after object key")
		}
		p.i++
		p.space()
		v, err := p.value(depth)
		if err != nil {
			if ne, ok := err.(*NumberError); ok {
				ne.path = append(ne.path, step{tok: k})
			}
			return nil, err
		}
		m[k] = v // a repeated key replaces the earlier value, as in encoding/json
		switch p.space(); p.peek() {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.fail("after object key:value pair")
		}
	}
}

// array reads an array's elements; p.i is past the '[' and any whitespace after it.
func (p *parser) array(depth int) (any, error) {
	a := make([]any, 0) // [] is an empty slice, not nil, as encoding/json decodes it
	if p.peek() == ']' {
		p.i++
		return a, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			if ne, ok := err.(*NumberError); ok {
				ne.path = append(ne.path, step{tok: strconv.Itoa(len(a)), index: true})
			}
			return nil, err
		}
		a = append(a, v)
		switch p.space(); p.peek() {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.fail("after array element")
		}
	}
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and keeps its text: json.Number
// must hold the source exactly ("1.0" stays "1.0", big integers keep every digit). A number
// beyond the limits is a NumberError, whose path the callers fill in as they return.
func (p *parser) number() (any, error) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	if p.peek() == '0' {
		p.i++ // a leading zero stands alone: in "01" the "1" is what follows the number
	} else if !p.digits() {
		return nil, p.fail("in numeric literal")
	}
	if p.peek() == '.' {
		if p.i++; !p.digits() {
			return nil, p.fail("after decimal point in numeric literal")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		if p.i++; p.peek() == '+' || p.peek() == '-' {
			p.i++
		}
		if !p.digits() {
			return nil, p.fail("in exponent of numeric literal")
		}
	}
	s := string(p.b[start:p.i])
	if e := checkNumber(s); e != nil {
		e.Offset = start
		return nil, e
	}
	return json.Number(s), nil
}

// digits consumes [0-9]* and reports whether there was at least one.
func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a string; p.i is at its opening quote.
func (p *parser) str() (string, error) {
	start := p.i
	escaped := false
	for p.i++; ; p.i++ {
		switch c := p.peek(); {
		case c == '"':
			p.i++
			body := p.b[start+1 : p.i-1]
			if !escaped && utf8.Valid(body) {
				return string(body), nil // the common case: the bytes are the string
			}
			// Escapes, invalid UTF-8 (each bad byte becomes U+FFFD) and lone surrogates:
			// encoding/json's own unquoting, on a token already known to be well formed, so
			// the result is exactly what a Decoder gives.
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				return "", fmt.Errorf("string at offset %d: %w", start, err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.i++
			switch p.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if p.i++; !isHex(p.peek()) {
						return "", p.fail("in \\u hexadecimal character escape")
					}
				}
			default:
				return "", p.fail("in string escape code")
			}
		case c < 0x20: // control characters must be escaped; also the end of the input
			return "", p.fail("in string literal")
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal consumes true, false or null.
func (p *parser) literal(word string) error {
	for k := range len(word) {
		if p.peek() != word[k] {
			return p.fail("in literal " + word)
		}
		p.i++
	}
	return nil
}

// space skips JSON's four whitespace bytes.
func (p *parser) space() {
	for c := p.peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = p.peek() {
		p.i++
	}
}

// peek returns the byte at p.i, or 0 at the end of the input: 0 is never valid there (str
// rejects it as a control character), so callers need no end test of their own; fail tells
// the end from a bad byte.
func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// fail reports the byte at p.i, or the end of the input, as unexpected; what says what the
// parser was doing, in encoding/json's words.
func (p *parser) fail(what string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("unexpected end of JSON input at offset %d", p.i)
	}
	c := p.b[p.i]
	q := fmt.Sprintf(`'\x%02x'`, c) // a byte of some UTF-8 sequence, not a character itself
	if c < utf8.RuneSelf {
		q = strconv.QuoteRune(rune(c))
	}
	return fmt.Errorf("invalid character %s %s at offset %d", q, what, p.i)
}
