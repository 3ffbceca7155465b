package i18n

// jaLintJQ is the Japanese of lint's checks of a transform node's jq program (lint/lint_jq.go).
func jaLintJQ() map[string]string {
	return map[string]string{
		"the program reads %s, which its input never holds: %s does not declare %s":                    "プログラムは %s を読みますが、入力にそれが含まれることはありません：%s は %s を宣言していません",
		"the program reads %s, which %s does not declare (it allows other fields, so it may be there)": "プログラムは %s を読みますが、%s はそれを宣言していません（ほかのフィールドを許すので、存在する可能性はあります）",
		"did you mean %s? Correct the program, or declare the field in %s.":                            "%s のことですか？プログラムを直すか、%s にそのフィールドを宣言してください。",
		"correct the program, or declare the field in %s.":                                             "プログラムを直すか、%s にそのフィールドを宣言してください。",
		"%s's contract.input":                          "%s の contract.input",
		"%s's input (its upstream outputs by node id)": "%s の入力（上流ノードの出力をノード ID ごとにまとめたもの）",
	}
}
