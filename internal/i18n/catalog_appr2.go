package i18n

// jaAppr2 is the Japanese of the approvals' list and show (service/approvals_text.go), the
// CLI's approvals commands and seam run --wait.
func jaAppr2() map[string]string {
	return map[string]string{
		"no approval waits for an answer": "回答を待っている承認はありません",
		"due %s":                          "期限 %s",
		"approval %s of run %s (%s)\n":    "実行 %[2]s の承認 %[1]s（%[3]s）\n",
		"title      %s\n":                 "タイトル   %s\n",
		"body       %s\n":                 "本文       %s\n",
		"opened     %s\n":                 "開始       %s\n",
		"deadline   none\n":               "期限       なし\n",
		"deadline   %s (passed: the next command to touch the run records its on_timeout answer)\n": "期限       %s（経過: 次にこの実行に触れるコマンドが on_timeout の回答を記録します）\n",
		"deadline   %s\n":               "期限       %s\n",
		"evidence   sha256 %s\n":        "根拠       sha256 %s\n",
		"form       not known: %s\n":    "フォーム   不明: %s\n",
		"form       %s\n":               "フォーム   %s\n",
		"decisions  %s\n":               "決定       %s\n",
		"approvers  %s\n":               "承認者     %s\n",
		"prefill    %s\n":               "初期値     %s\n",
		"round %d    evidence %s: %s\n": "第 %d 回    根拠 %s: %s\n",
		"answer     %s\n":               "回答       %s\n",
		"answer it with `seam approve %s %s` (or `seam reject %s %s`)\n": "`seam approve %s %s`（または `seam reject %s %s`）で回答してください\n",
		"you may not answer it\n":       "あなたはこの承認に回答できません\n",
		"anyone":                        "誰でも",
		"principals %s":                 "プリンシパル %s",
		"groups %s":                     "グループ %s",
		"not answered":                  "未回答",
		"%s by %s through %s at %s: %s": "%[2]s が %[3]s で %[4]s に %[1]s: %[5]s",

		// mcp: list_approvals, get_approval, answer_approval (mcp/tools_approvals.go)
		"%[1]d approval":                                               "承認 %[1]d 件",
		"%[1]d approvals":                                              "承認 %[1]d 件",
		"%v waiting for an answer":                                     "回答待ちの%v",
		"list approvals: %v":                                           "承認の一覧: %v",
		"approval %s of run %s waits for an answer: %s":                "実行 %[2]s の承認 %[1]s は回答を待っています: %[3]s",
		"approval %s of run %s was answered: %v":                       "実行 %[2]s の承認 %[1]s には回答済みです: %[3]v",
		"approval %s of run %s was answered so already; nothing to do": "実行 %[2]s の承認 %[1]s には同じ回答が記録済みです。何もしません",
		"approval %s of run %s answered; the process running the run continues it":   "実行 %[2]s の承認 %[1]s に回答しました。実行中のプロセスが続けます",
		"approval %s of run %s answered; the run ended %s":                           "実行 %[2]s の承認 %[1]s に回答しました。実行は %[3]s で終わりました",
		"approval %s of run %s answered; the run goes on: get_run shows how it goes": "実行 %[2]s の承認 %[1]s に回答しました。実行は続きます: get_run で様子を確認できます",
	}
}
