package i18n

// jaPresence is the Japanese of lint's reads of members a producer may leave out
// (SEAM-E311, lint/lint_presence.go) and of the engine's failed DAG outputs.
func jaPresence() map[string]string {
	return map[string]string{
		"the DAG's output %s": "DAG の出力 %s",
		// engine/engine_sched.go: a declared output that cannot be resolved fails the run.
		"output %s could not be resolved: %s": "出力 %s を解決できませんでした: %s",
		// serve/assets/run.html
		"The run failed: outputs that could not be resolved:": "実行は失敗しました。解決できなかった出力：",
		// cmd/seam/runs.go: seam runs show
		"output %s could not be resolved: %s\n":                                                                                        "出力 %s を解決できませんでした: %s\n",
		" (and %d more outputs)":                                                                                                       "（ほかに %d 個の出力も）",
		"%s reads %s, but %s may deliver an output without it; the run fails then":                                                     "%[1]s は %[2]s を読みますが、%[3]s はそれを含まない出力を返す場合があり、そのとき実行は失敗します",
		"require %s in %s's output contract, or guard the read: `has(%s) ? %s : <default>`":                                            "%[2]s の出力契約で %[1]s を必須にするか、読み出しをガードしてください：`has(%[3]s) ? %[4]s : <既定値>`",
		"%s reads %s, but %s may deliver %s with %d items, too few for [%d]; the run fails then":                                       "%[1]s は %[2]s を読みますが、%[3]s は %[4]s を %[5]d 項目で返す場合があり、[%[6]d] には足りません。そのとき実行は失敗します",
		"require minItems: %d for %s in %s's output contract, or guard the read: `size(%s) > %d ? %s : <default>`":                     "%[3]s の出力契約で %[2]s に minItems: %[1]d を指定するか、読み出しをガードしてください：`size(%[4]s) > %[5]d ? %[6]s : <既定値>`",
		"%s reads %s, but %s may deliver %s as %s, not a list; the run fails then":                                                     "%[1]s は %[2]s を読みますが、%[3]s は %[4]s をリストではなく%[5]sとして返す場合があり、そのとき実行は失敗します",
		"declare it a list of at least %d items in %s's output contract, or read it only when it is one":                               "%[2]s の出力契約でそれを %[1]d 項目以上のリストとして宣言するか、リストのときだけ読んでください",
		"%s reads %s, but %s may deliver %s as %s, without '%s'; the run fails then":                                                   "%[1]s は %[2]s を読みますが、%[3]s は %[4]s を%[5]sとして返す場合があり、'%[6]s' がありません。そのとき実行は失敗します",
		"declare it an object that requires '%s' in %s's output contract, or guard the read: `%s != null && has(%s) ? %s : <default>`": "%[2]s の出力契約でそれを '%[1]s' を必須とするオブジェクトとして宣言するか、読み出しをガードしてください：`%[3]s != null && has(%[4]s) ? %[5]s : <既定値>`",
	}
}
