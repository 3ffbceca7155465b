package i18n

// jaWeb is the Japanese of rerunning a run from a node (service, mcp, serve) and of the web
// view's timeline and DAG pages.
func jaWeb() map[string]string {
	return map[string]string{
		"run %s of %s rerun from node %s: get_run shows how it goes, cancel_run stops it": "実行 %s（%s）をノード %s から再実行しました：経過は get_run で確認でき、cancel_run で停止できます",
		"Rerun from here": "ここから再実行",
		"--from names the node a run is rerun from: give the run with --resume RUN": "--from は実行を再実行し始めるノードを指定します: 実行を --resume RUN で指定してください",
		"Recent runs":                    "最近の実行",
		"Success rate":                   "成功率",
		"median duration":                "所要時間の中央値",
		"over the last runs that ended:": "対象（終了した直近の実行）:",
		"Started by":                     "開始した人",
		"All runs of this DAG →":         "この DAG のすべての実行 →",
		"Last run":                       "最後の実行",
		"nodes settled":                  "完了したノード",
		"Timeline":                       "タイムライン",
		"The timeline spans":             "タイムラインの長さ:",
		"%s: %d items, %s, %s":           "%s: 項目 %d 件、%s、%s",
		"%s: attempt %d, %s":             "%s: 試行 %d、%s",
		"%s: reused, %s":                 "%s: 再利用、%s",
		"%s: attempt %d, %s, %s":         "%s: 試行 %d、%s、%s",
		"run %s of DAG %q has no node %q to rerun from": "実行 %s の DAG %q には、再実行を始めるノード %q がありません",
	}
}
