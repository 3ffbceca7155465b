package i18n

// jaApprovals is the Japanese of the approval node type (nodes/approval.go) and its lint
// rules (lint/lint_approval.go).
func jaApprovals() map[string]string {
	return map[string]string{
		// dag: the status of a run, or of an approval node, waiting for a person's answer
		"waiting": "回答待ち",
		"must be a positive duration such as 30m or 24h, not %q": "30m や 24h のような正の期間で指定してください（%q ではありません）",
		// service: answers (service/approval.go)
		"run %s has no approval %s waiting for an answer; `seam approvals list` shows those that are":                                  "実行 %s には回答を待っている承認 %s がありません。`seam approvals list` で一覧できます",
		"%s may not answer approval %s of run %s: not one of its approvers":                                                            "%s は実行 %[3]s の承認 %[2]s に回答できません: 承認者ではありません",
		"%s may not answer approval %s of run %s: it started the run, and the approval excludes the starter":                           "%s は実行 %[3]s の承認 %[2]s に回答できません: この実行を開始しており、承認は開始者を除外しています",
		"approval %s of run %s does not take answers from agents (MCP): set agents_may_answer: true to allow them":                     "実行 %[2]s の承認 %[1]s はエージェント（MCP）からの回答を受け付けません。許可するには agents_may_answer: true を設定してください",
		"approval %s of run %s shows other evidence now (%s) than the answer saw (%s): look at it again (`seam approvals show %s %s`)": "実行 %[2]s の承認 %[1]s の根拠は、回答が見たもの（%[4]s）から変わっています（%[3]s）。もう一度確認してください（`seam approvals show %[5]s %[6]s`）",
		"the answer to approval %s of run %s breaks its form:":                                                                         "実行 %[2]s の承認 %[1]s への回答はフォームに違反しています:",
		"approval %s of run %s was answered already: %s by %s through %s":                                                              "実行 %[2]s の承認 %[1]s には回答済みです: %[4]s が %[5]s で %[3]s",
		"decision %q is not one of %s": "決定 %q は %s のいずれでもありません",
		"seam: run %s waits for approval %s: answer with `seam approve %s %s` (or `seam reject %s %s`)\n": "seam: 実行 %s は承認 %s の回答を待っています: `seam approve %s %s`（または `seam reject %s %s`）で回答してください\n",
		"seam: approval %s of run %s was answered so already; nothing to do":                              "seam: 実行 %[2]s の承認 %[1]s には同じ回答が記録済みです。何もしません",
		"seam: approval %s of run %s answered; the process running the run continues it":                  "seam: 実行 %[2]s の承認 %[1]s に回答しました。実行中のプロセスが続けます",
		"approval %s of run %s passed its deadline (%s): its on_timeout answer was recorded instead":      "実行 %[2]s の承認 %[1]s は期限（%[3]s）を過ぎたため、代わりに on_timeout の回答を記録しました",
		"no answer by the deadline": "期限までに回答がありませんでした",
		// lint: the prefill proved against the form
		"%s's form":   "%s のフォーム",
		"its prefill": "prefill",
		// lint: SEAM-E320..E325
		"approval %s names no approvers, so no one could answer it":                                                   "承認 %s は承認者を指定していないため、誰も回答できません",
		"name who may answer (approvers: {principals: [alice], groups: [leads]}), or write approvers: anyone":         "回答できる人を指定するか（approvers: {principals: [alice], groups: [leads]}）、approvers: anyone と書いてください",
		"approval %s runs inside a foreach, which this version of seam cannot wait on":                                "承認 %s は foreach の中にありますが、このバージョンの seam はそこで回答を待てません",
		"ask once for the whole list: give the approval the list as evidence (show) and move the foreach after it":    "リスト全体について一度だけ尋ねてください: リストを承認の根拠（show）に渡し、foreach を承認の後に移します",
		"approval %s rewinds to %q, which is not a node it depends on":                                                "承認 %s は %q まで巻き戻しますが、そのノードに依存していません",
		"name a node upstream of the approval (one whose output its evidence reads)":                                  "承認より上流のノード（根拠がその出力を読むノード）を指定してください",
		"approval %s's form uses %s at %s, which the web view cannot render as a field":                               "承認 %s のフォームは %[3]s で %[2]s を使っていますが、Web ビューはこれを入力欄として表示できません",
		"write the form with scalars (string, integer, number, boolean), enums, arrays of scalars and nested objects": "フォームはスカラー（string、integer、number、boolean）、enum、スカラーの配列、入れ子のオブジェクトで書いてください",
		"approval %s's form gives %s the default %s, which its schema rejects: %s":                                    "承認 %s のフォームは %s に既定値 %s を与えていますが、そのスキーマが拒否します: %s",
		"give a default the field accepts, or leave the default out":                                                  "フィールドが受け付ける既定値を指定するか、既定値を省いてください",
		"approval %s's on_timeout decides %q, which is not one of its decisions (%s)":                                 "承認 %s の on_timeout は %q と決定しますが、これは decisions（%s）のいずれでもありません",
		"approval %s's on_timeout answer does not fit its form: %s":                                                   "承認 %s の on_timeout の回答はフォームに合いません: %s",
		"give on_timeout an answer a person could give: one of the decisions and fields the form accepts":             "on_timeout には人が返せる回答を指定してください: decisions のいずれかと、フォームが受け付けるフィールドです",
		"${{ %s }} compares nodes.%s.output.data.%s with %q, which it never is (%s): the comparison never holds":      "${{ %s }} は nodes.%s.output.data.%s を %q と比較していますが、その値になることはありません（%s）: この比較は決して成り立ちません",
		"compare with one of %s": "%s のいずれかと比較してください",
	}
}
