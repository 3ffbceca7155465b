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
		"prune runs: %w":               "実行の削除: %w",
		"--older-than %q: want a positive duration (30d, 12h, 90m)": "--older-than %q: 正の期間を指定してください（30d、12h、90m）",
	}
}
