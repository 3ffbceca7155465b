package i18n

// jaSched2 is the Japanese of the schedule surfaces over MCP and in the web view, and of
// the overlap decisions as Temporal makes them (schedule/plan.go).
func jaSched2() map[string]string {
	return map[string]string{
		// schedule
		"waited %s for the run going, past the %s window": "実行中の実行を %s 待ち、%s のウィンドウを過ぎました",
		"%s; the buffer holds %s already":                 "%s。バッファーには既に %s が待機しています",
	}
}
