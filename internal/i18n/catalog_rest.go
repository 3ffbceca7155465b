package i18n

// jaRest is the Japanese of retention (seam runs prune), recorded outputs (seam runs output)
// and the gate's policy on runs.
func jaRest() map[string]string {
	return map[string]string{
		"deleted":                      "削除しました",
		"would delete":                 "削除予定",
		"%s %s (%s) and %s":            "%[2]s（%[3]s）と %[4]s: %[1]s",
		"%d run":                       "実行 %d 件",
		"%d runs":                      "実行 %d 件",
		"%d sub-run":                   "サブ実行 %d 件",
		"%d sub-runs":                  "サブ実行 %d 件",
		"%d stored output":             "保存済みの出力 %d 件",
		"%d stored outputs":            "保存済みの出力 %d 件",
		"keep %d runs: want 0 or more": "実行を %d 件残す: 0 以上を指定してください",
		"declare the fields it hands on in contract.output: seam runs output RUN %s > sample.json saves what it handed on in a run, and seam schema infer sample.json drafts the contract from such samples.": "読まれるフィールドを contract.output で宣言してください。seam runs output RUN %s > sample.json で実行時の出力を保存し、seam schema infer sample.json でそうした出力例から契約を下書きできます。",
		"node %s of run %s has no foreach items: leave --item out":                      "実行 %[2]s のノード %[1]s には foreach の項目がありません。--item を外してください",
		"node %s of run %s has %d items, 0 to %d: no item %d":                           "実行 %[2]s のノード %[1]s の項目は %[3]d 個（0 から %[4]d）です。項目 %[5]d はありません",
		"item %d of node %s in run %s recorded nothing":                                 "実行 %[3]s のノード %[2]s の項目 %[1]d は何も記録していません",
		"node %s of run %s recorded no output: it ended %s":                             "実行 %[2]s のノード %[1]s は出力を記録していません。終了状態: %[3]s",
		"%s (a new break on an edge already incompatible at %s)":                        "%s（%s で既に非互換だったエッジへの新しい破壊）",
		"%d lint warnings; breaks accepted by the policy: %d (seam lint %s shows them)": "lint の警告 %d 件。ポリシーが受け入れた破壊: %d 件（seam lint %s で表示できます）",
		"policy %s: %w":  "ポリシー %s: %w",
		"prune runs: %w": "実行の削除: %w",
		"--older-than %q: want a positive duration (30d, 12h, 90m)": "--older-than %q: 正の期間を指定してください（30d、12h、90m）",
	}
}
