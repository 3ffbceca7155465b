package contract

import (
	"fmt"
	"strings"
)

// The checker's reasons are said in English or Japanese: each is kept as its English format
// and arguments (reason), and ReasonIn says it in a language, from reasonJA's formats. An
// argument that is itself a reason, or a bilingual text, is said in the same language.

// reason is one reason's English format and its arguments.
type reason struct {
	format string
	args   []any
}

// bilingual is an argument that differs by language: a validator message, an article.
type bilingual struct{ en, ja string }

func msg(format string, args ...any) reason { return reason{format, args} }

// say sets r's reason.
func (r *Result) say(format string, args ...any) {
	r.why = msg(format, args...)
	r.Reason = r.why.in("en")
}

func (m reason) in(lang string) string {
	f := m.format
	if lang == "ja" {
		if j, ok := reasonJA(f); ok {
			f = j
		}
	}
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case reason:
			args[i] = a.in(lang)
		case bilingual:
			args[i] = a.en
			if lang == "ja" {
				args[i] = a.ja
			}
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(f, args...)
}

// ReasonIn is Reason in lang ("en" or "ja"), with the schemas called as SubsetNamed was told.
func (r Result) ReasonIn(lang string) string {
	if r.why.format == "" {
		return r.Reason
	}
	a, b := r.names[0], r.names[1]
	if a == "" {
		a, b = "a", "b"
	}
	return strings.NewReplacer("⟨a⟩", a, "⟨b⟩", b).Replace(r.why.in(lang))
}

// reasonJA is the Japanese of a reason's English format, with the same verbs in the same order.
func reasonJA(en string) (string, bool) {
	switch en {
	case "⟨b⟩ requires '%s' where '%s' is there, but ⟨a⟩ does not guarantee it":
		return "⟨b⟩ は '%[2]s' があるとき '%[1]s' を必須としていますが、⟨a⟩ はそれを保証しません", true
	case "⟨b⟩ requires '%s' where '%s' is there, but ⟨a⟩ does not guarantee it, and no object of ⟨a⟩ shows it":
		return "⟨b⟩ は '%[2]s' があるとき '%[1]s' を必須としていますが、⟨a⟩ はそれを保証せず、それを示す ⟨a⟩ のオブジェクトも組み立てられませんでした", true
	case "⟨a⟩ may produce %s, which matches more than one of ⟨b⟩'s oneOf branches":
		return "⟨a⟩ は ⟨b⟩ の oneOf の複数の分岐に一致する %s を出力することがあります", true
	case "%s (and no array of ⟨a⟩ could be built around it)":
		return "%s（そのうえ、それを含む ⟨a⟩ の配列を組み立てられませんでした）", true
	case "%s (and no object of ⟨a⟩ could be built around it)":
		return "%s（そのうえ、それを含む ⟨a⟩ のオブジェクトを組み立てられませんでした）", true
	case "a counterexample was built but did not verify: %s":
		return "反例を組み立てましたが検証に通りませんでした：%s", true
	case "a counterexample was built but did not verify: %s; ⟨a⟩'s keywords not modelled: %s":
		return "反例を組み立てましたが検証に通りませんでした：%s。⟨a⟩ のモデル化されていないキーワード：%s", true
	case "cannot show ⟨a⟩'s arrays satisfy ⟨b⟩'s contains":
		return "⟨a⟩ の配列が ⟨b⟩ の contains を満たすことを示せません", true
	case "cannot show ⟨a⟩'s arrays satisfy ⟨b⟩'s minItems, maxItems or uniqueItems":
		return "⟨a⟩ の配列が ⟨b⟩ の minItems、maxItems、uniqueItems を満たすことを示せません", true
	case "cannot show ⟨a⟩'s numbers fit ⟨b⟩'s bounds or multipleOf":
		return "⟨a⟩ の数値が ⟨b⟩ の範囲や multipleOf に収まることを示せません", true
	case "cannot show ⟨a⟩'s objects satisfy ⟨b⟩'s minProperties or maxProperties":
		return "⟨a⟩ のオブジェクトが ⟨b⟩ の minProperties や maxProperties を満たすことを示せません", true
	case "cannot show ⟨a⟩'s other members fit ⟨b⟩'s %s":
		return "⟨a⟩ のその他のメンバーが ⟨b⟩ の %s に適合することを示せません", true
	case "cannot show ⟨a⟩'s strings satisfy ⟨b⟩'s %s":
		return "⟨a⟩ の文字列が ⟨b⟩ の %s を満たすことを示せません", true
	case "cannot show ⟨a⟩'s values avoid ⟨b⟩'s not":
		return "⟨a⟩ の値が ⟨b⟩ の not に当たらないことを示せません", true
	case "cannot tell whether ⟨b⟩ accepts ⟨a⟩'s value %s":
		return "⟨b⟩ が ⟨a⟩ の値 %s を受け入れるか判断できません", true
	case "the comparison exceeded the checker's budget of %d units of work":
		return "比較がチェッカーの作業量の上限（%d 単位）を超えました", true
	case "the comparison exceeded the checker's budget":
		return "比較がチェッカーの作業量の上限を超えました", true
	case "the schemas nest or recurse too deeply to compare":
		return "スキーマの入れ子または再帰が深すぎて比較できません", true
	case "the value matches none of ⟨b⟩'s %s branches":
		return "その値は ⟨b⟩ の %s のどの分岐にも一致しません", true
	case "too many nested anyOf/oneOf alternatives to compare":
		return "入れ子になった anyOf/oneOf の選択肢が多すぎて比較できません", true
	case "⟨a⟩ does not compile: %s":
		return "⟨a⟩ をコンパイルできません：%s", true
	case "⟨a⟩ fits no single branch of ⟨b⟩'s %s":
		return "⟨a⟩ は ⟨b⟩ の %s のどの分岐にも単独では収まりません", true
	case "⟨a⟩ may produce %s where ⟨b⟩ requires %s":
		return "⟨a⟩ は %s を出力することがありますが、⟨b⟩ は %s を要求します", true
	case "⟨a⟩ may produce %s where ⟨b⟩ requires %s, but no such value could be built":
		return "⟨a⟩ は %s を出力することがあり、⟨b⟩ は %s を要求しますが、そのような値を組み立てられませんでした", true
	case "⟨a⟩ may produce %s, outside ⟨b⟩'s numeric bounds or multipleOf":
		return "⟨a⟩ は ⟨b⟩ の数値の範囲または multipleOf に合わない %s を出力することがあります", true
	case "⟨a⟩ may produce %s, which breaks ⟨b⟩'s %s":
		return "⟨a⟩ は %s を出力することがあり、これは ⟨b⟩ の %s に違反します", true
	case "⟨a⟩ may produce %s, which breaks ⟨b⟩'s contains":
		return "⟨a⟩ は %s を出力することがあり、これは ⟨b⟩ の contains に違反します", true
	case "⟨a⟩ may produce %s, which breaks ⟨b⟩'s item count or uniqueness":
		return "⟨a⟩ は %s を出力することがあり、これは ⟨b⟩ の項目数または一意性の制約に違反します", true
	case "⟨a⟩ may produce %s, which is not in ⟨b⟩'s enum":
		return "⟨a⟩ は ⟨b⟩ の enum にない %s を出力することがあります", true
	case "⟨a⟩ may produce %s, which ⟨b⟩ rejects":
		return "⟨a⟩ は ⟨b⟩ が拒否する %s を出力することがあります", true
	case "⟨a⟩ may produce %s, which ⟨b⟩'s enum rejects":
		return "⟨a⟩ は ⟨b⟩ の enum が拒否する %s を出力することがあります", true
	case "⟨a⟩ may produce %s, which ⟨b⟩'s not excludes":
		return "⟨a⟩ は ⟨b⟩ の not が除外する %s を出力することがあります", true
	case "⟨a⟩ may produce an object with %d members, outside ⟨b⟩'s minProperties or maxProperties":
		return "⟨a⟩ はメンバーが %d 個のオブジェクトを出力することがあり、これは ⟨b⟩ の minProperties または maxProperties の範囲外です", true
	case "⟨a⟩ rejects it (%s)":
		return "⟨a⟩ がそれを拒否します（%s）", true
	case "⟨b⟩ accepts it":
		return "⟨b⟩ がそれを受け入れます", true
	case "⟨b⟩ accepts nothing here and no value of ⟨a⟩ could be built":
		return "⟨b⟩ はここで何も受け入れず、⟨a⟩ の値も組み立てられませんでした", true
	case "⟨b⟩ accepts nothing here but ⟨a⟩ produces a value":
		return "⟨b⟩ はここで何も受け入れませんが、⟨a⟩ は値を出力します", true
	case "⟨b⟩ requires '%s' but ⟨a⟩ does not guarantee it":
		return "⟨b⟩ は '%s' を必須としていますが、⟨a⟩ はそれを保証しません", true
	case "⟨b⟩ requires '%s' but ⟨a⟩ does not guarantee it, and no object of ⟨a⟩ could be built":
		return "⟨b⟩ は '%s' を必須としていますが、⟨a⟩ はそれを保証せず、⟨a⟩ のオブジェクトも組み立てられませんでした", true
	case "⟨b⟩ requires '%s' but ⟨a⟩ only may emit it: it is optional in ⟨a⟩":
		return "⟨b⟩ は '%s' を必須としていますが、⟨a⟩ はそれを出力するとは限りません：⟨a⟩ では任意です", true
	case "⟨b⟩ restricts %s values to an enum, ⟨a⟩ does not":
		return "⟨b⟩ は %s の値を enum に制限していますが、⟨a⟩ はしていません", true
	case "⟨b⟩ uses %s, which the checker does not model":
		return "⟨b⟩ はチェッカーがモデル化していない %s を使っています", true
	}
	return "", false
}
