package contract

import (
	"fmt"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// printer writes violation messages in English or Japanese. A field is the instance path with
// dots and indexes (metadata.cost, items[0]); "" is the root, named after what is validated:
// "the output" / "出力", a node's input "the input" / "入力", a run's params "the params object" /
// "パラメーター".
//
// The wording of required, type, enum, minLength, maximum, minItems and not-JSON is the
// specification's (reference/contracts), exactly; the rest follows its style.
type printer struct {
	ja    bool
	whole whole
}

// whole is what a validated value is, as a whole.
type whole int

const (
	wholeOutput whole = iota
	wholeInput
	wholeParams
)

func newPrinter(lang i18n.Lang, w whole) printer { return printer{ja: lang == "ja", whole: w} }

// en is the English subject: "field 'x'", or the root value: "the output", "the input" or
// "the params object".
func (p printer) en(field string) string {
	switch {
	case field != "":
		return "field '" + field + "'"
	case p.whole == wholeInput:
		return "the input"
	case p.whole == wholeParams:
		return "the params object"
	}
	return "the output"
}

// jp is the Japanese subject followed by particle: "フィールド 'x' は", "出力は", "入力は" or
// "パラメーターは".
func (p printer) jp(field, particle string) string {
	switch {
	case field != "":
		return "フィールド '" + field + "' " + particle
	case p.whole == wholeInput:
		return "入力" + particle
	case p.whole == wholeParams:
		return "パラメーター" + particle
	}
	return "出力" + particle
}

func (p printer) notJSON() string {
	if p.ja {
		return "出力は有効な JSON ではありません"
	}
	return "output is not valid JSON"
}

// required: parent is the object's field, name the missing member.
func (p printer) required(parent, name string) string {
	if parent == "" {
		if p.ja {
			return "必須フィールドがありません：" + name
		}
		return "missing required field: " + name
	}
	field := parent + "." + name
	if p.ja {
		return p.jp(field, "は必須です")
	}
	return p.en(field) + " is required"
}

// dependentRequired: field is missing although present is there.
func (p printer) dependentRequired(field, present string) string {
	if p.ja {
		return fmt.Sprintf("%sがある場合、%s", p.jp(present, ""), p.jp(field, "は必須です"))
	}
	return fmt.Sprintf("%s is required when '%s' is present", p.en(field), present)
}

func (p printer) typeMismatch(field string, want []string, got string) string {
	if p.ja {
		names := make([]string, len(want))
		for i, w := range want {
			names[i] = typeJA(w)
		}
		msg := fmt.Sprintf("%s%sが必要ですが、%sが指定されています", p.jp(field, "は"), strings.Join(names, "または"), typeJA(got))
		// " null " keeps the Latin word apart from the kana around it, but not after "、" or a space.
		return strings.NewReplacer("、 ", "、", "  ", " ").Replace(msg)
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = typeEN(w)
	}
	return fmt.Sprintf("%s must be %s, got %s", p.en(field), orList(names), got)
}

func typeEN(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

func typeJA(t string) string {
	switch t {
	case "string":
		return "文字列"
	case "number":
		return "数値"
	case "integer":
		return "整数"
	case "boolean":
		return "真偽値"
	case "object":
		return "オブジェクト"
	case "array":
		return "配列"
	}
	return " " + t + " "
}

// orList joins "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// enum: values are already displayed (strings bare, other values as JSON).
func (p printer) enum(field string, values []string) string {
	if p.ja {
		return p.jp(field, "は次のいずれかである必要があります：") + strings.Join(values, "、")
	}
	return p.en(field) + " must be one of: " + strings.Join(values, ", ")
}

func (p printer) constant(field, value string) string {
	if p.ja {
		return p.jp(field, "は次の値である必要があります：") + value
	}
	return p.en(field) + " must be exactly: " + value
}

func (p printer) format(field, format string) string {
	if p.ja {
		return fmt.Sprintf("%s有効な %s である必要があります", p.jp(field, "は"), format)
	}
	return fmt.Sprintf("%s must be a valid %s", p.en(field), format)
}

func (p printer) minLength(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s minLength %d 以上である必要があります", p.jp(field, "は"), n)
	}
	return fmt.Sprintf("%s must have minLength %d", p.en(field), n)
}

func (p printer) maxLength(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s maxLength %d 以下である必要があります", p.jp(field, "は"), n)
	}
	return fmt.Sprintf("%s must have maxLength %d", p.en(field), n)
}

func (p printer) pattern(field, pattern string) string {
	if p.ja {
		return fmt.Sprintf("%sパターン %s に一致する必要があります", p.jp(field, "は"), pattern)
	}
	return fmt.Sprintf("%s must match pattern %s", p.en(field), pattern)
}

// bound: op is ≥, ≤, > or <; n is the schema's own text.
func (p printer) bound(field, op, n string) string {
	if p.ja {
		return fmt.Sprintf("%s %s %s である必要があります", p.jp(field, "は"), op, n)
	}
	return fmt.Sprintf("%s must be %s %s", p.en(field), op, n)
}

func (p printer) multipleOf(field, n string) string {
	if p.ja {
		return fmt.Sprintf("%s %s の倍数である必要があります", p.jp(field, "は"), n)
	}
	return fmt.Sprintf("%s must be a multiple of %s", p.en(field), n)
}

func (p printer) minItems(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s少なくとも %d つの項目が必要です", p.jp(field, "には"), n)
	}
	return fmt.Sprintf("%s needs at least %d %s", p.en(field), n, plural(n, "item", "items"))
}

func (p printer) maxItems(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s最大 %d つの項目しか指定できません", p.jp(field, "には"), n)
	}
	return fmt.Sprintf("%s allows at most %d %s", p.en(field), n, plural(n, "item", "items"))
}

func (p printer) uniqueItems(field string, i, j int) string {
	if p.ja {
		return fmt.Sprintf("%s項目は一意である必要があります（項目 %d と %d が同じです）", p.jp(field, "の"), i, j)
	}
	return fmt.Sprintf("%s must have unique items (items %d and %d are equal)", p.en(field), i, j)
}

func (p printer) additionalItems(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s許可されていない余分な項目が %d つあります", p.jp(field, "には"), n)
	}
	return fmt.Sprintf("%s has %d %s more than allowed", p.en(field), n, plural(n, "item", "items"))
}

func (p printer) contains(field string) string {
	if p.ja {
		return p.jp(field, "には") + " contains スキーマに一致する項目が少なくとも 1 つ必要です"
	}
	return p.en(field) + " needs an item matching the contains schema"
}

func (p printer) minContains(field string, want, got int) string {
	if p.ja {
		return fmt.Sprintf("%s contains スキーマに一致する項目が少なくとも %d つ必要ですが、%d つしかありません", p.jp(field, "には"), want, got)
	}
	return fmt.Sprintf("%s needs at least %d %s matching the contains schema, found %d", p.en(field), want, plural(want, "item", "items"), got)
}

func (p printer) maxContains(field string, want, got int) string {
	if p.ja {
		return fmt.Sprintf("%s contains スキーマに一致する項目は最大 %d つまでですが、%d つあります", p.jp(field, "で"), want, got)
	}
	return fmt.Sprintf("%s allows at most %d %s matching the contains schema, found %d", p.en(field), want, plural(want, "item", "items"), got)
}

func (p printer) minProperties(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s少なくとも %d つのプロパティが必要です", p.jp(field, "には"), n)
	}
	return fmt.Sprintf("%s needs at least %d %s", p.en(field), n, plural(n, "property", "properties"))
}

func (p printer) maxProperties(field string, n int) string {
	if p.ja {
		return fmt.Sprintf("%s最大 %d つのプロパティしか指定できません", p.jp(field, "には"), n)
	}
	return fmt.Sprintf("%s allows at most %d %s", p.en(field), n, plural(n, "property", "properties"))
}

// notAllowed: additionalProperties, unevaluatedProperties, items or a false schema.
func (p printer) notAllowed(field string) string {
	if p.ja {
		return p.jp(field, "は許可されていません")
	}
	return p.en(field) + " is not allowed"
}

func (p printer) propertyName(field, name string) string {
	if p.ja {
		return fmt.Sprintf("%sプロパティ名 '%s' は無効です", p.jp(field, "の"), name)
	}
	return fmt.Sprintf("%s has an invalid property name '%s'", p.en(field), name)
}

func (p printer) not(field string) string {
	if p.ja {
		return p.jp(field, "は") + " 'not' のスキーマに一致してはいけません"
	}
	return p.en(field) + " must not match the schema in 'not'"
}

func (p printer) anyOf(field string) string {
	if p.ja {
		return p.jp(field, "は") + " anyOf のいずれかのスキーマに一致する必要があります"
	}
	return p.en(field) + " must match at least one schema in anyOf"
}

func (p printer) oneOfNone(field string) string {
	if p.ja {
		return p.jp(field, "は") + " oneOf のスキーマのうち 1 つだけに一致する必要がありますが、どれにも一致しません"
	}
	return p.en(field) + " must match exactly one schema in oneOf, but matches none"
}

func (p printer) oneOfMany(field string, i, j int) string {
	if p.ja {
		return fmt.Sprintf("%s oneOf のスキーマのうち 1 つだけに一致する必要がありますが、スキーマ %d と %d の両方に一致します", p.jp(field, "は"), i, j)
	}
	return fmt.Sprintf("%s must match exactly one schema in oneOf, but matches schemas %d and %d", p.en(field), i, j)
}

func (p printer) contentEncoding(field, encoding string) string {
	if p.ja {
		return fmt.Sprintf("%s %s でエンコードされている必要があります", p.jp(field, "は"), encoding)
	}
	return fmt.Sprintf("%s must be %s-encoded", p.en(field), encoding)
}

func (p printer) contentMediaType(field, mediaType string) string {
	if p.ja {
		return fmt.Sprintf("%s内容は有効な %s である必要があります", p.jp(field, "の"), mediaType)
	}
	return fmt.Sprintf("%s must hold valid %s", p.en(field), mediaType)
}

func (p printer) contentSchema(field string) string {
	if p.ja {
		return p.jp(field, "の") + "内容は contentSchema に一致する必要があります"
	}
	return p.en(field) + " must hold content matching contentSchema"
}

// refCycle: the schema's $refs loop without consuming any of the value.
func (p printer) refCycle(field, url string) string {
	if p.ja {
		return fmt.Sprintf("%s検証できません：スキーマの $ref が %s で循環しています", p.jp(field, "を"), url)
	}
	return fmt.Sprintf("%s cannot be checked: the schema's $refs loop at %s", p.en(field), url)
}

// invalidValue: the caller handed in a Go value JSON has no counterpart for.
func (p printer) invalidValue(field string, v any) string {
	if p.ja {
		return fmt.Sprintf("%s値 (%T) は JSON の値ではありません", p.jp(field, "の"), v)
	}
	return fmt.Sprintf("%s holds a %T, which is not a JSON value", p.en(field), v)
}

// numberLimit: a number beyond MaxNumberDigits (digits > 0, how many it has) or
// MaxNumberExponent.
func (p printer) numberLimit(field string, digits int) string {
	if p.ja {
		if digits > 0 {
			return fmt.Sprintf("%s seam の上限を超える数値です：桁数は %d 以下である必要がありますが、%d 桁あります", p.jp(field, "は"), MaxNumberDigits, digits)
		}
		return fmt.Sprintf("%s seam の上限を超える数値です：指数は -%d から %d の範囲である必要があります", p.jp(field, "は"), MaxNumberExponent, MaxNumberExponent)
	}
	if digits > 0 {
		return fmt.Sprintf("%s is a number beyond seam's limits: it must have at most %d digits, not %d", p.en(field), MaxNumberDigits, digits)
	}
	return fmt.Sprintf("%s is a number beyond seam's limits: its exponent must be between -%d and %d", p.en(field), MaxNumberExponent, MaxNumberExponent)
}

// other is for error kinds seam has no wording for (custom vocabularies): jsonschema's text.
func (p printer) other(field, text string) string {
	if p.ja {
		return p.jp(field, "：") + text
	}
	return p.en(field) + ": " + text
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
