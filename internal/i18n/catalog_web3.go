package i18n

// jaWeb3 is the Japanese of the web view's live logs: the panel's log, its download, and a
// foreach node's running items.
func jaWeb3() map[string]string {
	return map[string]string{
		"log (the end)":                           "ログ（末尾）",
		"download the whole log":                  "ログ全体をダウンロード",
		"node %s of run %s has no log":            "実行 %[2]s のノード %[1]s にはログがありません",
		"── item %d ──":                           "── 項目 %d ──",
		"── item %d · attempt %d · session %d ──": "── 項目 %d · 試行 %d · セッション %d ──",
		"── attempt %d · session %d ──":           "── 試行 %d · セッション %d ──",
	}
}
