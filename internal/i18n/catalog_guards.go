package i18n

// jaGuards is the Japanese of lint's guards: a CEL expression that fails on a null its
// producer may deliver, and the narrowing of producers by a node's when (lint/lint_cel.go,
// lint/lint_guard.go).
func jaGuards() map[string]string {
	return map[string]string{
		"${{ %s }} fails when %s delivers null for %s, which its contract allows: %s":                                                    "${{ %[1]s }} は、%[2]s が %[3]s に null を返すと失敗します（その契約は null を許しています）：%[4]s",
		"guard the read: `%s != null ? … : <default>` (or test it in the node's when), or declare %s never null in %s's output contract": "読み出しをガードするか（`%[1]s != null ? … : <既定値>`、またはノードの when で確かめる）、%[3]s の出力契約で %[2]s を null にならないと宣言してください",
		// W301's reasons, with the schemas named (lint/lint_messages.go) and a keyword the
		// subset checker does not compare (contract/subset/check.go).
		"cannot prove that %s fits %s: %s.":                           "%s が%sに適合することを証明できません：%s。",
		"cannot prove that ${{ %s }} is a list: %s.":                  "${{ %s }} がリストであることを証明できません：%s。",
		"what %s hands on":                                            "%s が渡す値",
		"(no witness: the value lint built is one %s cannot deliver)": "（反例なし：lint が作った値は %s が返せないものです）",
		"a list": "リスト",
		"⟨b⟩ uses %s, which seam does not compare yet": "⟨b⟩ は seam がまだ比較できない %s を使っています",
	}
}
