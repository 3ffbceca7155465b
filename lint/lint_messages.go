package lint

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/seam-dag/seam/internal/i18n"
)

// lintText writes lint messages in English or Japanese. Codes, field names, node ids, JSON
// values and the checker's own reasons stay as they are in both languages.
type lintText struct {
	lang i18n.Lang
	ja   bool
}

func newLintText(lang i18n.Lang) lintText { return lintText{lang: lang, ja: lang == i18n.Japanese} }

// whyCode says why an arriving value is only partly known.
type whyCode uint8

const (
	whyNotPlain        whyCode = iota // arg: the expression
	whyCELType                        // arg: the expression, arg2: the JSON type CEL gives it
	whyInterp                         // an interpolated string
	whyMixedList                      // a list of differently shaped elements
	whyNoSchema                       // arg: the node without a known output schema
	whyNotStatic                      // arg: the root (item, index, run)
	whyUndeclared                     // a path the producer does not declare
	whyRef                            // a $ref the linter cannot follow
	whyPatternProps                   // patternProperties are not followed
	whyKeyword                        // arg: a keyword not followed
	whyElements                       // a foreach list's schema constrains its elements in a way not followed
	whyUnknownTemplate                // should not happen
)

// why is the reason an arriving value is only partly known.
type why struct {
	code      whyCode
	arg, arg2 string
}

func (t lintText) why(w why) string {
	if t.ja {
		switch w.code {
		case whyNotPlain:
			return fmt.Sprintf("式 %q は単純なパスではありません", w.arg)
		case whyCELType:
			return fmt.Sprintf("CEL に分かるのは %q が%sになることだけです", w.arg, typeWordJA(w.arg2))
		case whyInterp:
			return "埋め込み文字列は文字列であることしか分かりません"
		case whyMixedList:
			return "リストに形の異なる要素が混在しています"
		case whyNoSchema:
			return w.arg + " の出力スキーマが不明です"
		case whyNotStatic:
			return w.arg + " は静的には分かりません"
		case whyUndeclared:
			return "パスが宣言されていません"
		case whyRef:
			return "seam がたどれない $ref を使っています"
		case whyPatternProps:
			return "patternProperties はたどりません"
		case whyKeyword:
			return "キーワード " + w.arg + " はたどりません"
		case whyElements:
			return "foreach リストのスキーマが要素をたどれない形で制約しています"
		}
		return "不明なテンプレートです"
	}
	switch w.code {
	case whyNotPlain:
		return fmt.Sprintf("the expression %q is not a plain path", w.arg)
	case whyCELType:
		return fmt.Sprintf("CEL knows only that %q gives %s", w.arg, typeWordEN(w.arg2))
	case whyInterp:
		return "an interpolated string is only known to be a string"
	case whyMixedList:
		return "the list mixes elements of different shapes"
	case whyNoSchema:
		return w.arg + " has no known output schema"
	case whyNotStatic:
		return w.arg + " is not known statically"
	case whyUndeclared:
		return "the path is undeclared"
	case whyRef:
		return "it uses a $ref seam cannot follow"
	case whyPatternProps:
		return "patternProperties are not followed"
	case whyKeyword:
		return "keyword " + w.arg + " is not followed"
	case whyElements:
		return "the foreach list's schema constrains its elements in a way not followed"
	}
	return "an unknown template"
}

// jpad puts a space between s and Japanese text around it where s starts or ends with
// Latin text (an id, a keyword), as the contract messages write フィールド 'x' は.
func jpad(s string) string {
	if s == "" {
		return s
	}
	if s[0] < utf8.RuneSelf {
		s = " " + s
	}
	if s[len(s)-1] < utf8.RuneSelf {
		s += " "
	}
	return s
}

// jpadL is jpad for the start of a sentence.
func jpadL(s string) string { return strings.TrimLeft(jpad(s), " ") }

func typeWordEN(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	case "null":
		return t
	}
	return "a " + t
}

func typeWordJA(t string) string {
	switch t {
	case "boolean":
		return "真偽値"
	case "integer":
		return "整数"
	case "number":
		return "数値"
	case "string":
		return "文字列"
	case "array":
		return "配列"
	case "object":
		return "オブジェクト"
	}
	return t
}

// kindOf names a value's JSON type: "a number" in English, 数値 in Japanese.
func (t lintText) kindOf(v any) string {
	if !t.ja {
		switch v.(type) {
		case nil:
			return "null"
		case bool:
			return "a boolean"
		case string:
			return "a string"
		case map[string]any:
			return "an object"
		case []any:
			return "an array"
		}
		return "a number"
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "真偽値"
	case string:
		return "文字列"
	case map[string]any:
		return "オブジェクト"
	case []any:
		return "配列"
	}
	return "数値"
}

// place is what a check compares the arriving value with.
type place struct {
	node   string // the consumer
	isWith bool   // the node's `with` against its type's config schema
	typ    string // the node's type, for `with`
	dflt   bool   // the default input (upstream outputs keyed by id)
}

// contract names the schema: "c's contract.input" or "c's configuration (type exec)".
func (t lintText) contract(p place) string {
	switch {
	case p.isWith && t.ja:
		return fmt.Sprintf("%s の設定（%s 型の config スキーマ）", p.node, p.typ)
	case p.isWith:
		return fmt.Sprintf("%s's configuration (the %s config schema)", p.node, p.typ)
	case t.ja:
		return p.node + " の contract.input"
	}
	return p.node + "'s contract.input"
}

// its names where the value comes from: "its input" or "its with".
func (t lintText) its(p place) string {
	switch {
	case p.isWith && t.ja:
		return "with"
	case p.isWith:
		return "its with"
	case p.dflt && t.ja:
		return "入力（上流の出力を id ごとに並べたもの）"
	case p.dflt:
		return "its input (its upstream outputs keyed by id)"
	case t.ja:
		return "入力"
	}
	return "its input"
}

func (t lintText) quoteField(f string) string {
	if f == "" {
		if t.ja {
			return "入力"
		}
		return "its input"
	}
	return "'" + f + "'"
}

func (t lintText) fieldOrValue(f string) string {
	if f == "" {
		if t.ja {
			return "値"
		}
		return "the value"
	}
	return "'" + f + "'"
}

func (t lintText) edgeUnknown(edge, rest string) string {
	if t.ja {
		return fmt.Sprintf("エッジ %s: 不明 — %s", edge, rest)
	}
	return fmt.Sprintf("edge %s: UNKNOWN — %s", edge, rest)
}

func (t lintText) edgeIncompatible(edge, rest string) string {
	if t.ja {
		return fmt.Sprintf("エッジ %s: 非互換 — %s", edge, rest)
	}
	return fmt.Sprintf("edge %s: INCOMPATIBLE — %s", edge, rest)
}

func (t lintText) notCompiled(err error) string {
	if t.ja {
		return fmt.Sprintf("到着する値のスキーマをコンパイルできません：%v", err)
	}
	return fmt.Sprintf("the arriving value's schema does not compile: %v", err)
}

func (t lintText) partlyKnown(field string, p place, w why) string {
	if t.ja {
		return fmt.Sprintf("%s は%sに適合しない可能性がありますが、到着する値は一部しか分かりません（%s）。", t.fieldOrValue(field), jpad(t.contract(p)), t.why(w))
	}
	return fmt.Sprintf("%s may not fit %s, but the arriving value is only partly known (%s).", t.fieldOrValue(field), t.contract(p), t.why(w))
}

func (t lintText) cannotProve(field string, p place, reason string) string {
	var b strings.Builder
	if t.ja {
		fmt.Fprintf(&b, "%s が%sに適合することを証明できません", t.fieldOrValue(field), jpad(t.contract(p)))
		if reason != "" {
			fmt.Fprintf(&b, "（チェッカー、a = 到着する値、b = 契約：%s）", reason)
		}
		b.WriteString("。")
		return b.String()
	}
	fmt.Fprintf(&b, "cannot prove that %s fits %s", t.fieldOrValue(field), t.contract(p))
	if reason != "" {
		b.WriteString(" (checker, a = what arrives, b = the contract: " + reason + ")")
	}
	b.WriteString(".")
	return b.String()
}

// missing: the consumer requires a field its input or with mapping lacks.
func (t lintText) missing(field string, p place) (msg, hint string) {
	q := t.quoteField(field)
	if t.ja {
		return fmt.Sprintf("%s は %s を必要としますが、%sにはありません。", p.node, q, jpad(t.its(p))),
			fmt.Sprintf("%s の%sに %s を追加してください。", p.node, jpad(t.its(p)), q)
	}
	if p.dflt {
		return fmt.Sprintf("%s requires %s but %s does not provide it.", p.node, q, t.its(p)),
			fmt.Sprintf("give %s an input that provides %s.", p.node, q)
	}
	return fmt.Sprintf("%s requires %s but %s does not provide it.", p.node, q, t.its(p)),
		fmt.Sprintf("add %s to %s's %s.", q, p.node, strings.TrimPrefix(t.its(p), "its "))
}

func (t lintText) required(field, who string, p place) (msg, hint string) {
	q := t.quoteField(field)
	if t.ja {
		return fmt.Sprintf("%s は %s を必要としますが、%s はそれを出力しません。", p.node, q, who),
			fmt.Sprintf("%sに %s を追加するか、間に transform ノードを置いてください。", jpadL(t.outContract(who)), q)
	}
	return fmt.Sprintf("%s requires %s but %s does not produce it.", p.node, q, who),
		fmt.Sprintf("add %s to %s, or put a transform node between them.", q, t.outContract(who))
}

func (t lintText) optional(field, who string, p place) (msg, hint string) {
	q := t.quoteField(field)
	if t.ja {
		return fmt.Sprintf("%s は %s を必要としますが、%s はそれを出力する場合があるだけです。", p.node, q, who),
			fmt.Sprintf("%sで %s を必須にするか、間に transform ノードを置いてください。", jpadL(t.outContract(who)), q)
	}
	return fmt.Sprintf("%s requires %s but %s only may produce it.", p.node, q, who),
		fmt.Sprintf("make %s required in %s, or put a transform node between them.", q, t.outContract(who))
}

func (t lintText) typeMismatch(field, who string, v any, p place) (msg, hint string) {
	f := t.fieldOrValue(field)
	if t.ja {
		return fmt.Sprintf("%s は %s に%sを出力する場合があり、%s はその型を受け付けません。", who, f, t.kindOf(v), p.node),
			fmt.Sprintf("両方の契約で %s の型を一致させるか、間に transform ノードを置いてください。", f)
	}
	return fmt.Sprintf("%s may produce %s for %s, a type %s does not accept.", who, t.kindOf(v), f, p.node),
		fmt.Sprintf("make the types of %s agree in both contracts, or put a transform node between them.", f)
}

func (t lintText) constraint(field, who string, v any, p place) (msg, hint string) {
	f := t.fieldOrValue(field)
	w := clipJSON(v)
	if t.ja {
		msg = fmt.Sprintf("%s は %s に %s を出力する場合があり、%s の制約はそれを拒否します。", who, f, w, p.node)
		if p.isWith {
			return msg, fmt.Sprintf("%sで %s を%sに収まるよう狭めてください。", jpadL(t.outContract(who)), f, jpad(t.contract(p)))
		}
		return msg, fmt.Sprintf("%sで %s を%sに収まるよう狭めるか、その契約を広げてください。", jpadL(t.outContract(who)), f, jpad(t.contract(p)))
	}
	msg = fmt.Sprintf("%s may produce %s for %s, which %s's constraints reject.", who, w, f, p.node)
	if p.isWith {
		return msg, fmt.Sprintf("narrow %s in %s to fit %s.", f, t.outContract(who), t.contract(p))
	}
	return msg, fmt.Sprintf("narrow %s in %s to fit %s, or widen that contract.", f, t.outContract(who), t.contract(p))
}

// outContract names the schema a producer's value is promised by: a node's output contract,
// or the params schema.
func (t lintText) outContract(who string) string {
	switch {
	case who == "params" && t.ja:
		return "params スキーマ"
	case who == "params":
		return "the params schema"
	case t.ja:
		return who + " の出力契約"
	}
	return who + "'s output contract"
}

// clipJSON is a value's JSON for a message, cut to a readable length (the witness keeps it
// whole).
func clipJSON(v any) string {
	const limit = 80
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return string(b)
}

// undeclared: a reference to a path the producer's schema forbids.
func (t lintText) undeclared(full, producer, path string) (msg, hint string) {
	var label string
	switch {
	case producer == "" && t.ja:
		label = "params スキーマ"
	case producer == "":
		label = "the params schema"
	case t.ja:
		label = producer + " の出力契約"
	default:
		label = producer + "'s output contract"
	}
	if t.ja {
		return fmt.Sprintf("%s: %sは %s を宣言していません", full, jpadL(label), path),
			fmt.Sprintf("%sで宣言するか、宣言されたフィールドを参照してください。", jpadL(label))
	}
	return fmt.Sprintf("%s: %s does not declare %s", full, label, path),
		fmt.Sprintf("declare it in %s, or reference a field it declares.", label)
}

// loose: a reference to a member the producer's schema does not declare but allows.
func (t lintText) loose(full, producer, path string) (msg, hint string) {
	label := t.outContract(producer)
	if producer == "" {
		label = t.outContract("params")
	}
	if t.ja {
		return fmt.Sprintf("%s: %sは %s を宣言していません（ほかのフィールドを許すので、存在する可能性はあります）", full, jpadL(label), path),
			fmt.Sprintf("%sで宣言するか、参照を直してください。", jpadL(label))
	}
	return fmt.Sprintf("%s: %s does not declare %s (it allows other fields, so it may be there)", full, label, path),
		fmt.Sprintf("declare it in %s, or correct the reference.", label)
}

// Hygiene warnings.

func (t lintText) noContract(node, readers string) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("ノード %s には標準契約以外の出力契約がありませんが、%s がその出力を読みます。", node, readers),
			"読まれるフィールドを contract.output で宣言してください（seam schema infer が出力例から下書きします）。"
	}
	return fmt.Sprintf("node %s has no output contract beyond the standard one, but %s read its output.", node, readers),
		"declare the fields it hands on in contract.output (seam schema infer drafts one from sample outputs)."
}

func (t lintText) content(node, field, what string) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("ノード %s の contract.output は構造ではなく内容を制約しています：%s に %s。", node, t.fieldOrValue(field), what),
			"形（型、必須、列挙）を制約し、実行ごとに変わる文言は制約しないでください。"
	}
	return fmt.Sprintf("node %s's contract.output constrains content, not structure: %s has %s.", node, t.fieldOrValue(field), what),
		"constrain the shape (types, required fields, enums), not wording that varies from run to run."
}

func (t lintText) allRequired(node, field string, n int, unread []string) (msg, hint string) {
	at := "its output"
	if field != "" {
		at = "'" + field + "'"
	}
	if t.ja {
		at = "出力"
		if field != "" {
			at = "'" + field + "'"
		}
		return fmt.Sprintf("ノード %s の contract.output は %s の %d 個のフィールドすべてを必須にしていますが、利用側が読まないものがあります：%s。", node, at, n, strings.Join(unread, ", ")),
			"利用側が必要とするフィールドだけを必須にしてください。"
	}
	return fmt.Sprintf("node %s's contract.output requires all %d fields of %s, but no consumer reads %s.", node, n, at, strings.Join(unread, ", ")),
		"require only what consumers need; make the rest optional."
}

// Foreach lists.

// who names producers in a sentence: "p", "p and q", or "the expression" when there are none.
func (t lintText) who(ps []string) string {
	switch {
	case len(ps) == 0 && t.ja:
		return "式"
	case len(ps) == 0:
		return "the expression"
	case t.ja:
		return strings.Join(ps, " と ")
	}
	return strings.Join(ps, " and ")
}

// notList: what a foreach list's producers guarantee is never a list.
func (t lintText) notList(node, src, who string, v any) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("%s は ${{ %s }} の要素ごとに実行されますが、%s はそこに%sを出力し、リストにはなりません。", node, src, who, t.kindOf(v)),
			fmt.Sprintf("foreach でリストを参照するか、%sでそれをリストにしてください。", jpadL(t.outContract(who)))
	}
	return fmt.Sprintf("%s runs once per item of ${{ %s }}, but %s produces %s there, never a list.", node, src, who, t.kindOf(v)),
		fmt.Sprintf("reference a list in foreach, or make it one in %s.", t.outContract(who))
}

// mayNotList: a foreach list's producers may deliver something else than a list.
func (t lintText) mayNotList(node, src, who string, v any) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("%s は ${{ %s }} の要素ごとに実行されますが、%s はそこに %s を出力する場合があり、それはリストではありません（実行は失敗します）。", node, src, who, clipJSON(v)),
			fmt.Sprintf("%sでそれを配列に狭めてください。", jpadL(t.outContract(who)))
	}
	return fmt.Sprintf("%s runs once per item of ${{ %s }}, but %s may produce %s there, which is not a list (the run fails).", node, src, who, clipJSON(v)),
		fmt.Sprintf("narrow it to an array in %s.", t.outContract(who))
}

// mayBeAbsent: a foreach list's producers only may deliver it.
func (t lintText) mayBeAbsent(node, src, who string) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("%s は ${{ %s }} の要素ごとに実行されますが、%s はそれを出力する場合があるだけです（ないと実行は失敗します）。", node, src, who),
			fmt.Sprintf("%sでそれを必須にしてください。", jpadL(t.outContract(who)))
	}
	return fmt.Sprintf("%s runs once per item of ${{ %s }}, but %s only may produce it (the run fails without it).", node, src, who),
		fmt.Sprintf("make it required in %s.", t.outContract(who))
}

func (t lintText) cannotProveList(src, reason string) string {
	if t.ja {
		return fmt.Sprintf("${{ %s }} がリストであることを証明できません（チェッカー：%s）。", src, reason)
	}
	return fmt.Sprintf("cannot prove that ${{ %s }} is a list (checker: %s).", src, reason)
}

// undeclaredItem: a reference to a path of item that the foreach list's elements forbid.
func (t lintText) undeclaredItem(node, path string) (msg, hint string) {
	if t.ja {
		return fmt.Sprintf("item.%s: %s の foreach リストの要素は %s を宣言していません", path, node, path),
			"要素が宣言しているフィールドを参照するか、リストの出所でそれを宣言してください。"
	}
	return fmt.Sprintf("item.%s: the elements of %s's foreach list do not declare %s", path, node, path),
		"reference a field the elements declare, or declare it where the list comes from."
}
