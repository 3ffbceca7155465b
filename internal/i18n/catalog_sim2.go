package i18n

// jaSim2 is the Japanese of the simulation's report lines shared by the text report and the
// web view (simulate/write.go), and of the web view's Simulate section (serve/).
func jaSim2() map[string]string {
	return map[string]string{
		// simulate/write.go
		"simulated %s (%s): %d paths, %d of %d combinations of outcomes tried, %d excluded by the contracts; nothing ran with a side effect, nothing was recorded": "%[1]s（%[2]s）をシミュレーションしました：経路 %[3]d 本、結果の組み合わせ %[5]d 通りのうち %[4]d 通りを試行、契約により %[6]d 通りを除外。副作用のあるものは何も実行せず、何も記録していません",
		"path %d replays the outputs of run %s": "経路 %d は実行 %s の出力を再生します",
		"path %d: %s failed: %s":                "経路 %d：%s が失敗しました：%s",
		"path %d: %s":                           "経路 %d：%s",
		"%s in paths %s":                        "%s：経路 %s",
		"%s in no path (not proved impossible)": "%s：どの経路にもなし（不可能とは証明されていません）",
		"never %s, proved by exhaustion of the enum: %s is one of %s, and none of them meets the condition":                      "決して%[1]sになりません（enum の網羅による証明）：%[2]s は %[3]s のいずれかで、どれも条件を満たしません",
		"never %s, proved by the subset checker: what %s's contract allows at %s and what the condition needs there cannot meet": "決して%[1]sになりません（部分集合チェッカーによる証明）：%[2]s の契約が %[3]s に許す値と、条件がそこに求める値は両立しません",
		// serve/simulate.go, serve/assets/dag.html
		"Simulate":   "シミュレーション実行",
		"Simulation": "シミュレーション",
		"Path":       "経路",
		"Simulated":  "シミュレーション",
		"Skipped":    "スキップ",
		"Failed":     "失敗",
		"Branches":   "分岐",
		"Unknown nodes (no output could be generated; the node fails in every path)": "不明なノード（出力を生成できず、そのノードはすべての経路で失敗します）",
		"Runs the DAG with every node that has a side effect given an output generated from its contract, along every branch the contracts allow. Nothing runs with a side effect and nothing is recorded.": "副作用のあるノードには契約から生成した出力を与え、契約が許すすべての分岐に沿って DAG を実行します。副作用のあるものは何も実行せず、何も記録しません。",
		"No when or foreach: one path.":    "when も foreach もないため、経路は 1 本です。",
		"the simulation could not run: %v": "シミュレーションを実行できません：%v",
	}
}
