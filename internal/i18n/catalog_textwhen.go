package i18n

// jaTextWhen is the Japanese of what interpolation and lint's type checks of CEL expressions
// say: a value inside text that JSON cannot write, and an expression whose types cannot work.
func jaTextWhen() map[string]string {
	return map[string]string{
		// dag/ref.go: an object or an array inside text is written as JSON
		"cannot be written as JSON: %w": "JSON として書けません：%w",
		// lint/lint_cel.go: SEAM-E312, SEAM-E313
		"${{ %s }} could not be type-checked: %v":                                                                                       "${{ %s }} の型を検査できませんでした：%v",
		"${{ %s }} cannot work with the types its producers' contracts give its references: %s":                                         "${{ %s }} は、参照先のノードの契約が参照に与える型では成り立ちません：%s",
		"compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract": "同じ型の値どうしを比べてください（string(…)、int(…)、double(…) で変換できます）。または参照か、参照先のノードの契約を直してください",
		"when ${{ %s }} may give %s, which is not a boolean: a run whose producer delivers one fails deciding whether %s runs":          "when ${{ %s }} の値は%sになることがあり、真偽値ではありません：生成元ノードがそれを出力した実行は、%s を実行するかどうかを決める時点で失敗します",
		"when ${{ %s }} gives %s, never a boolean: every run fails deciding whether %s runs":                                            "when ${{ %s }} の値は%sで、真偽値になることはありません：%s を実行するかどうかを決める時点で、どの実行も失敗します",
		"write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))":     "条件を書いてください：値を比べる（== 'pass'、> 0）、配列の大きさを調べる（size(…) > 0）、メンバーの有無を調べる（has(…)）など",
	}
}
