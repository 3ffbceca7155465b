package contract

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// Limits on what seam compiles and validates. jsonschema compares numbers as exact big.Rat
// values, whose cost grows with a number's digits and exponent (and which it cannot build at
// all past an exponent of ±1,000,000: it then dereferences nil); and it compiles a schema in
// time that grows with the square of the subschemas it compiles (its compile queue is searched
// linearly) and faster than their depth. Past these limits a value is refused with a clear
// error instead. A schema's bytes are bounded by the file size limit of whoever reads it
// (Options.ReadFile; seam's is $SEAM_MAX_FILE_SIZE, 16 MiB by default).
const (
	// MaxNumberDigits bounds the digits of a number's significand (integer and fraction
	// parts together): every integer below 10^1000 fits, and every float64 as JSON encoders
	// write it (17 significant digits at most).
	MaxNumberDigits = 1000
	// MaxNumberExponent bounds the exponent written after e or E, either way: three times
	// float64's range (±308), more than decimal64's (±398).
	MaxNumberExponent = 1000
	// MaxSchemaDepth bounds how deep subschemas nest (properties, items, allOf, … each add a
	// level; the schema itself is level 0). Real contracts nest a dozen levels at most.
	MaxSchemaDepth = 64
	// MaxSubschemas bounds the compile work of one schema: the subschemas (objects and
	// booleans in schema positions) of the documents it loads, counting the files it $refs
	// that were not loaded before. Measured on published sets: GitHub's webhook bundle holds
	// 6,163, SchemaStore's pyproject.json with the files it refers to 6,548, its largest
	// single file (utcm-monitor.json, 2.7 MB) 9,046; 12,000 compile in about 1 s here, and
	// counting refuses a larger schema before any of that work.
	MaxSubschemas = 12000
)

// ErrLimit is matched (errors.Is) by every error for a value or schema beyond the limits
// above: a NumberError, or a SchemaError for a schema nested too deep or too large.
var ErrLimit = errors.New("beyond seam's limits")

// NumberError reports a number beyond MaxNumberDigits or MaxNumberExponent. ParseJSON
// returns it as it is (not wrapped) for the first such number of a document.
type NumberError struct {
	// Pointer is the JSON Pointer to the number in the document ("" when the document is
	// the number).
	Pointer string
	// Offset is the number's byte offset in what ParseJSON read; -1 for a number found
	// elsewhere (Normalize, CheckNumber).
	Offset int
	// Number is the number as written, cut to about 120 bytes.
	Number string
	// Digits is the number of digits of its significand when they are too many, else 0 (the
	// exponent is too large).
	Digits int
	// path is the number's place, innermost step first, as ParseJSON unwinds.
	path []step
}

// step is one step of a path into a document: a member name or an array index.
type step struct {
	tok   string
	index bool
}

func (e *NumberError) Error() string { return e.In(i18n.English) }

// In says the error in lang.
func (e *NumberError) In(lang i18n.Lang) string {
	switch {
	case e.Offset >= 0 && e.Digits > 0:
		return i18n.Sprintf(lang, "number %s at offset %d has %d digits, more than seam's limit of %d", e.Number, e.Offset, e.Digits, MaxNumberDigits)
	case e.Digits > 0:
		return i18n.Sprintf(lang, "number %s has %d digits, more than seam's limit of %d", e.Number, e.Digits, MaxNumberDigits)
	case e.Offset >= 0:
		return i18n.Sprintf(lang, "number %s at offset %d has an exponent beyond seam's limit of ±%d", e.Number, e.Offset, MaxNumberExponent)
	}
	return i18n.Sprintf(lang, "number %s has an exponent beyond seam's limit of ±%d", e.Number, MaxNumberExponent)
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *NumberError) Is(target error) bool { return target == ErrLimit }

// checkNumber returns the NumberError for s, a number in JSON's syntax, when it is beyond the
// limits; nil otherwise.
func checkNumber(s string) *NumberError {
	if len(s) < 6 {
		return nil // the shortest number beyond a limit is 1e1001
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	if len(mant) > MaxNumberDigits { // sign and point included: most numbers are not counted
		digits := 0
		for i := range len(mant) {
			if '0' <= mant[i] && mant[i] <= '9' {
				digits++
			}
		}
		if digits > MaxNumberDigits {
			return &NumberError{Offset: -1, Number: excerptText(s), Digits: digits}
		}
	}
	if hasExp {
		exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
		// Four digits hold the limit; more are beyond it, however many.
		if n, err := strconv.Atoi(exp); len(exp) > 4 || err != nil && exp != "" || n > MaxNumberExponent {
			return &NumberError{Offset: -1, Number: excerptText(s)}
		}
	}
	return nil
}

// CheckNumber returns a *NumberError when n is beyond MaxNumberDigits or MaxNumberExponent,
// for numbers that do not come through ParseJSON or Normalize (a YAML loader's own).
func CheckNumber(n json.Number) error {
	if e := checkNumber(string(n)); e != nil {
		return e
	}
	return nil
}

// at sets the number's pointer from its path.
func (e *NumberError) at() {
	toks := make([]string, len(e.path))
	for i, s := range e.path {
		toks[len(e.path)-1-i] = s.tok
	}
	e.Pointer = pointer(toks)
}

// field names the number as violation messages name fields: metadata.cost, items[0].
func (e *NumberError) field() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		switch s := e.path[i]; {
		case s.index:
			b.WriteString("[" + s.tok + "]")
		case b.Len() > 0:
			b.WriteString("." + s.tok)
		default:
			b.WriteString(s.tok)
		}
	}
	return b.String()
}

// ParseViolation is the violation of a document ParseJSON refused with err: where a number
// is beyond seam's limits, that number's place, value and limit; otherwise NotJSON.
func ParseViolation(err error, lang i18n.Lang) Violation {
	var ne *NumberError
	if !errors.As(err, &ne) {
		return NotJSON(lang)
	}
	p := newPrinter(lang, wholeOutput)
	return Violation{Pointer: ne.Pointer, Value: ne.Number, Message: p.numberLimit(ne.field(), ne.Digits)}
}

// excerptText cuts s to about maxValue bytes; s is ASCII (a number's text).
func excerptText(s string) string {
	if len(s) <= maxValue {
		return s
	}
	return s[:maxValue] + "…"
}

// limitError is the Err of a SchemaError for a schema nested too deep or too large. Error
// says ErrLimit's words and the reason; In says the reason alone, in a language, for a caller
// that says it is beyond seam's limits itself (the loader's SEAM-E120).
type limitError struct{ reason i18n.Message }

func (e limitError) Error() string            { return ErrLimit.Error() + ": " + e.reason.Error() }
func (e limitError) Is(target error) bool     { return target == ErrLimit }
func (e limitError) In(lang i18n.Lang) string { return e.reason.In(lang) }

// sizer counts and measures the subschemas of schema documents.
type sizer struct{ n int }

// Keywords whose value is one schema, a list of schemas, or a map of names to schemas, in
// every draft jsonschema reads; the values of other keywords are not compiled as schemas.
func schemaKeyword(k string) (single, list, names bool) {
	switch k {
	case "additionalProperties", "additionalItems", "items", "not", "if", "then", "else",
		"contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return true, k == "items", false // items is a list of schemas in drafts before 2020-12
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return false, true, false
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return false, false, true
	}
	return false, false, false
}

// schema visits v, a schema or not (the metaschema judges that later), at depth.
func (z *sizer) schema(v any, ptr string, depth int) *SchemaError {
	m, isMap := v.(map[string]any)
	if _, isBool := v.(bool); !isMap && !isBool {
		return nil
	}
	z.n++
	switch {
	case depth > MaxSchemaDepth:
		return &SchemaError{Pointer: ptr, Err: limitError{i18n.M("subschemas nest more than %d levels deep", MaxSchemaDepth)}}
	case z.n > MaxSubschemas:
		return &SchemaError{Pointer: ptr, Err: limitError{i18n.M("more than %d subschemas (with the files it refers to)", MaxSubschemas)}}
	}
	// Sorted, so the subschema an error points at is always the same one.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		single, list, names := schemaKeyword(k)
		p := ptr + "/" + EscapeToken(k)
		var err *SchemaError
		switch x := m[k].(type) {
		case []any:
			for i := 0; list && i < len(x) && err == nil; i++ {
				err = z.schema(x[i], p+"/"+strconv.Itoa(i), depth+1)
			}
		case map[string]any:
			switch {
			case single:
				err = z.schema(x, p, depth+1)
			case names:
				for _, name := range slices.Sorted(maps.Keys(x)) {
					if err = z.schema(x[name], p+"/"+EscapeToken(name), depth+1); err != nil {
						break
					}
				}
			}
		case bool:
			if single {
				err = z.schema(x, p, depth+1)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
