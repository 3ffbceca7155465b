package contract

import (
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// printer writes violation messages in its language, through the i18n catalog
// (internal/i18n/catalog_contract.go holds the Japanese). A field is the instance path with
// dots and indexes (metadata.cost, items[0]); "" is the root, named after what is validated:
// "the output" / "出力", a node's input "the input" / "入力", a run's params "the params
// object" / "パラメーター".
//
// The wording of required, type, enum, minLength, maximum, minItems and not-JSON is the
// specification's (reference/contracts), exactly; the rest follows its style.
type printer struct {
	lang  i18n.Lang
	whole whole
}

// whole is what a validated value is, as a whole.
type whole int

const (
	wholeOutput whole = iota
	wholeInput
	wholeParams
)

func newPrinter(lang i18n.Lang, w whole) printer { return printer{lang: lang, whole: w} }

// subject is what a message is about: "field 'x'", or the root value: "the output", "the
// input" or "the params object". In Japanese a field's name ends with the space that parts it
// from the particle after it: "フィールド 'x' は".
func (p printer) subject(field string) string {
	switch {
	case field != "":
		return i18n.Sprintf(p.lang, "field '%s'", field)
	case p.whole == wholeInput:
		return i18n.Sprintf(p.lang, "the input")
	case p.whole == wholeParams:
		return i18n.Sprintf(p.lang, "the params object")
	}
	return i18n.Sprintf(p.lang, "the output")
}

func (p printer) notJSON() string {
	return i18n.Sprintf(p.lang, "output is not valid JSON")
}

// required: parent is the object's field, name the missing member.
func (p printer) required(parent, name string) string {
	if parent == "" {
		return i18n.Sprintf(p.lang, "missing required field: %s", name)
	}
	return i18n.Sprintf(p.lang, "%s is required", p.subject(parent+"."+name))
}

// dependentRequired: field is missing although present is there.
func (p printer) dependentRequired(field, present string) string {
	named := i18n.Sprintf(p.lang, "'%s'", present)
	if present == "" {
		// The member named "": '' in English, the whole value (出力) in Japanese.
		named = i18n.Sprintf(p.lang, "'%.0s'", p.subject(""))
	}
	return i18n.Sprintf(p.lang, "%s is required when %s is present", p.subject(field), named)
}

func (p printer) typeMismatch(field string, want []string, got string) string {
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = p.typeWord(w)
	}
	if got == "null" {
		return i18n.Sprintf(p.lang, "%s must be %s, got null", p.subject(field), p.or(names))
	}
	return i18n.Sprintf(p.lang, "%[1]s must be %[2]s, got %[3]s", p.subject(field), p.or(names), p.typeName(got))
}

// typeWord names a JSON type as a sentence wants it: "an integer", 整数. " null " keeps the
// Latin word apart from the kana around it in Japanese.
func (p printer) typeWord(t string) string {
	switch t {
	case "null":
		return i18n.Sprintf(p.lang, "null")
	case "boolean":
		return i18n.Sprintf(p.lang, "a boolean")
	case "integer":
		return i18n.Sprintf(p.lang, "an integer")
	case "number":
		return i18n.Sprintf(p.lang, "a number")
	case "string":
		return i18n.Sprintf(p.lang, "a string")
	case "array":
		return i18n.Sprintf(p.lang, "an array")
	case "object":
		return i18n.Sprintf(p.lang, "an object")
	}
	return i18n.Sprintf(p.lang, "a %s", t)
}

// typeName names the JSON type a value has, as the validator says it: "integer", 整数.
func (p printer) typeName(t string) string {
	switch t {
	case "boolean":
		return i18n.Sprintf(p.lang, "boolean")
	case "integer":
		return i18n.Sprintf(p.lang, "integer")
	case "number":
		return i18n.Sprintf(p.lang, "number")
	case "string":
		return i18n.Sprintf(p.lang, "string")
	case "array":
		return i18n.Sprintf(p.lang, "array")
	case "object":
		return i18n.Sprintf(p.lang, "object")
	}
	return t
}

// or joins "a, b or c" (in Japanese aまたはbまたはc).
func (p printer) or(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	acc := items[0]
	for _, it := range items[1 : len(items)-1] {
		acc = i18n.Sprintf(p.lang, "%s, %s", acc, it)
	}
	return i18n.Sprintf(p.lang, "%s or %s", acc, items[len(items)-1])
}

// enum: values are already displayed (strings bare, other values as JSON).
func (p printer) enum(field string, values []string) string {
	return i18n.Sprintf(p.lang, "%s must be one of: %s", p.subject(field), strings.Join(values, i18n.Sprintf(p.lang, ", ")))
}

func (p printer) constant(field, value string) string {
	return i18n.Sprintf(p.lang, "%s must be exactly: %s", p.subject(field), value)
}

func (p printer) format(field, format string) string {
	return i18n.Sprintf(p.lang, "%s must be a valid %s", p.subject(field), format)
}

func (p printer) minLength(field string, n int) string {
	return i18n.Sprintf(p.lang, "%s must have minLength %d", p.subject(field), n)
}

func (p printer) maxLength(field string, n int) string {
	return i18n.Sprintf(p.lang, "%s must have maxLength %d", p.subject(field), n)
}

func (p printer) pattern(field, pattern string) string {
	return i18n.Sprintf(p.lang, "%s must match pattern %s", p.subject(field), pattern)
}

// bound: op is ≥, ≤, > or <; n is the schema's own text.
func (p printer) bound(field, op, n string) string {
	return i18n.Sprintf(p.lang, "%s must be %s %s", p.subject(field), op, n)
}

func (p printer) multipleOf(field, n string) string {
	return i18n.Sprintf(p.lang, "%s must be a multiple of %s", p.subject(field), n)
}

func (p printer) minItems(field string, n int) string {
	return i18n.Plural(p.lang, n, "%s needs at least %d item", "%s needs at least %d items", p.subject(field), n)
}

func (p printer) maxItems(field string, n int) string {
	return i18n.Plural(p.lang, n, "%s allows at most %d item", "%s allows at most %d items", p.subject(field), n)
}

func (p printer) uniqueItems(field string, i, j int) string {
	return i18n.Sprintf(p.lang, "%s must have unique items (items %d and %d are equal)", p.subject(field), i, j)
}

func (p printer) additionalItems(field string, n int) string {
	return i18n.Plural(p.lang, n, "%s has %d item more than allowed", "%s has %d items more than allowed", p.subject(field), n)
}

func (p printer) contains(field string) string {
	return i18n.Sprintf(p.lang, "%s needs an item matching the contains schema", p.subject(field))
}

func (p printer) minContains(field string, want, got int) string {
	return i18n.Plural(p.lang, want, "%s needs at least %d item matching the contains schema, found %d",
		"%s needs at least %d items matching the contains schema, found %d", p.subject(field), want, got)
}

func (p printer) maxContains(field string, want, got int) string {
	return i18n.Plural(p.lang, want, "%s allows at most %d item matching the contains schema, found %d",
		"%s allows at most %d items matching the contains schema, found %d", p.subject(field), want, got)
}

func (p printer) minProperties(field string, n int) string {
	return i18n.Plural(p.lang, n, "%s needs at least %d property", "%s needs at least %d properties", p.subject(field), n)
}

func (p printer) maxProperties(field string, n int) string {
	return i18n.Plural(p.lang, n, "%s allows at most %d property", "%s allows at most %d properties", p.subject(field), n)
}

// notAllowed: additionalProperties, unevaluatedProperties, items or a false schema.
func (p printer) notAllowed(field string) string {
	return i18n.Sprintf(p.lang, "%s is not allowed", p.subject(field))
}

func (p printer) propertyName(field, name string) string {
	return i18n.Sprintf(p.lang, "%s has an invalid property name '%s'", p.subject(field), name)
}

func (p printer) not(field string) string {
	return i18n.Sprintf(p.lang, "%s must not match the schema in 'not'", p.subject(field))
}

func (p printer) anyOf(field string) string {
	return i18n.Sprintf(p.lang, "%s must match at least one schema in anyOf", p.subject(field))
}

func (p printer) oneOfNone(field string) string {
	return i18n.Sprintf(p.lang, "%s must match exactly one schema in oneOf, but matches none", p.subject(field))
}

func (p printer) oneOfMany(field string, i, j int) string {
	return i18n.Sprintf(p.lang, "%s must match exactly one schema in oneOf, but matches schemas %d and %d", p.subject(field), i, j)
}

func (p printer) contentEncoding(field, encoding string) string {
	return i18n.Sprintf(p.lang, "%s must be %s-encoded", p.subject(field), encoding)
}

func (p printer) contentMediaType(field, mediaType string) string {
	return i18n.Sprintf(p.lang, "%s must hold valid %s", p.subject(field), mediaType)
}

func (p printer) contentSchema(field string) string {
	return i18n.Sprintf(p.lang, "%s must hold content matching contentSchema", p.subject(field))
}

// refCycle: the schema's $refs loop without consuming any of the value.
func (p printer) refCycle(field, url string) string {
	return i18n.Sprintf(p.lang, "%s cannot be checked: the schema's $refs loop at %s", p.subject(field), url)
}

// invalidValue: the caller handed in a Go value JSON has no counterpart for.
func (p printer) invalidValue(field string, v any) string {
	return i18n.Sprintf(p.lang, "%s holds a %T, which is not a JSON value", p.subject(field), v)
}

// numberLimit: a number beyond MaxNumberDigits (digits > 0, how many it has) or
// MaxNumberExponent.
func (p printer) numberLimit(field string, digits int) string {
	if digits > 0 {
		return i18n.Sprintf(p.lang, "%s is a number beyond seam's limits: it must have at most %d digits, not %d", p.subject(field), MaxNumberDigits, digits)
	}
	return i18n.Sprintf(p.lang, "%s is a number beyond seam's limits: its exponent must be between -%d and %d", p.subject(field), MaxNumberExponent, MaxNumberExponent)
}

// other is for error kinds seam has no wording for (custom vocabularies): jsonschema's text.
func (p printer) other(field, text string) string {
	return i18n.Sprintf(p.lang, "%s: %s", p.subject(field), text)
}
