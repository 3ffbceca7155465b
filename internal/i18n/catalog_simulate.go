package i18n

// jaSimulate is the Japanese of seam run --simulate and of SEAM-W312 (lint/lint_branches.go,
// simulate/).
func jaSimulate() map[string]string {
	return map[string]string{
		"%s is one of %s, and none of them meets the condition":                                                         "%s は %s のいずれかで、どれも条件を満たしません",
		"what %s's contract allows at %s and what the condition needs there cannot meet (proved by the subset checker)": "%[1]s の契約が %[2]s に許す値と、条件がそこに求める値は両立しません（部分集合チェッカーによる証明）",
		"node %s's when is never true, so the node is always skipped: %s.":                                              "ノード %s の when は決して真にならないため、このノードは常にスキップされます：%s。",
		"compare %s with a value %s's contract allows, or widen that contract if the value can occur.":                  "%[1]s を %[2]s の契約が許す値と比較するか、その値が起こりうるなら契約を広げてください。",
		"node %s's when is never false, so it decides nothing: %s.":                                                     "ノード %s の when は決して偽にならないため、何も決めていません：%s。",
		"remove the when, or compare %s with what tells the cases apart.":                                               "when を削除するか、%s を場合を区別できる値と比較してください。",
		// simulate/
		"--stub %s: the DAG has no node %s":                                                   "--stub %s：DAG にノード %s はありません",
		"--stub %s: the output breaks the node's contract at %s: %s":                          "--stub %s：出力がノードの契約に違反しています（%s）：%s",
		"its contract accepts no value":                                                       "その契約はどの値も受け付けません",
		"simulate %s: no params could be generated from the params schema; give them with -p": "simulate %s：params スキーマから params を生成できません。-p で指定してください",
		"%d combinations of outcomes tried, of %d":                                            "結果の組み合わせ %[2]d 通りのうち %[1]d 通りを試しました",
		"%d paths run, the most one simulation runs":                                          "1 回のシミュレーションで実行する上限の %d 経路を実行しました",
		"simulated failure":                                                                   "シミュレーション上の失敗",
		"simulated: no output could be generated from the contract: %s":                       "シミュレーション：契約から出力を生成できません：%s",
		"simulated: the output was generated from the contract":                               "シミュレーション：出力は契約から生成しました",
		"simulated: the sub-DAG %s was simulated inside":                                      "シミュレーション：サブ DAG %s を内部でシミュレーションしました",
		"--stub %q: want NODE=FILE":                                                           "--stub %q：NODE=FILE の形で指定してください",
		"--stub %s: %w":                                                                       "--stub %s：%w",
		"--stub %s: %s is not JSON: %w":                                                       "--stub %s：%s は JSON ではありません：%w",
		"path":                                                                                "経路",
		"status":                                                                              "状態",
		"run":                                                                                 "実行",
		"simulated":                                                                           "シミュレーション",
		"true":                                                                                "真",
		"false":                                                                               "偽",
		"items":                                                                               "項目あり",
		"empty":                                                                               "空",
		"branches:":                                                                           "分岐：",
		"unknown (no output could be generated; the node fails in every path):": "不明（出力を生成できず、そのノードはすべての経路で失敗します）：",
		"bound reached: %s; the combinations not tried are not reported":        "上限に達しました：%s。試していない組み合わせは報告していません",
		// mcp/tools_simulate.go
		"%s simulated: %v, %v tried": "%s をシミュレーションしました：%v、%v を試行",
		"%[1]d path":                 "%[1]d 経路",
		"%[1]d paths":                "%[1]d 経路",
		"%[1]d combination":          "%[1]d 通りの組み合わせ",
		"%[1]d combinations":         "%[1]d 通りの組み合わせ",
		"--from-store: the run store holds no successful run of %s": "--from-store：実行ストアに %s の成功した実行がありません",
		"--stub and --from-store go with --simulate":                "--stub と --from-store は --simulate と一緒に使います",
		// contract/subset/generate.go
		"a value was built but did not verify: %s":                              "値を作りましたが検証に通りませんでした：%s",
		"the search exceeded the checker's budget of %d units of work or %d ms": "探索がチェッカーの予算（作業 %d 単位または %d ms）を超えました",
		"no value was found": "値が見つかりませんでした",
	}
}
