package i18n

// jaSched2 is the Japanese of the schedule surfaces over MCP and in the web view, and of
// the overlap decisions as Temporal makes them (schedule/plan.go).
func jaSched2() map[string]string {
	return map[string]string{
		// schedule
		"waited %s for the run going, past the %s window": "実行中の実行を %s 待ち、%s のウィンドウを過ぎました",
		"%s; the buffer holds %s already":                 "%s。バッファーには既に %s が待機しています",
		// mcp: the schedule tools (mcp/tools_schedules.go)
		"%[1]d trigger":                 "トリガー %[1]d 件",
		"%[1]d triggers":                "トリガー %[1]d 件",
		"%[1]d decision":                "決定 %[1]d 件",
		"%[1]d decisions":               "決定 %[1]d 件",
		"%[1]d time":                    "%[1]d 個の時刻",
		"%[1]d times":                   "%[1]d 個の時刻",
		"%s at %s":                      "%s の %s",
		"%s %s resumed":                 "%s %s を再開しました",
		"%v of %s %s":                   "%[2]s %[3]s の%[1]v",
		"list schedules: %v":            "スケジュールを一覧できません: %v",
		"pause %s %s: %v":               "%s %s を一時停止できません: %v",
		"count %d: want 1 to %d":        "count %d: 1 から %d を指定してください",
		"the next %v of %s %s":          "%[2]s %[3]s の次の%[1]v",
		"%s %s fired: run %s %s":        "%s %s を起動しました: 実行 %s %s",
		"read the history of %s %s: %v": "%s %s の履歴を読めません: %v",
		"after %q: want an RFC 3339 time such as 2026-03-01T00:00:00Z":                           "after %q: 2026-03-01T00:00:00Z のような RFC 3339 の時刻を指定してください",
		"note is empty: say why the schedule is paused (it is recorded with its missed times)":   "note が空です: 一時停止する理由を書いてください（見送られた時刻とともに記録されます）",
		"trigger is empty: give the id of one of the DAG's triggers (list_schedules lists them)": "trigger が空です: DAG のトリガーの ID を指定してください（list_schedules が一覧します）",
		"path is empty: give a DAG file under the root (list_schedules lists the triggers)":      "path が空です: ルート配下の DAG ファイルを指定してください（list_schedules がトリガーを一覧します）",
		"%s %s paused: its times are missed until resume_schedule":                               "%s %s を一時停止しました: resume_schedule まで時刻は見送られます",
		"%s %s backfilled: %v started, %d decided already":                                       "%s %s をバックフィルしました: %v を開始、%d 件は決定済み",
		// serve: the schedule pages (serve/schedules.go, assets/schedules.html)
		"Schedules":                        "スケジュール",
		"Trigger":                          "トリガー",
		"Kind":                             "種類",
		"Next times":                       "次の時刻",
		"Paused":                           "一時停止中",
		"Pause":                            "一時停止",
		"Decisions":                        "決定",
		"Scheduled":                        "予定時刻",
		"Decision":                         "決定",
		"Decided":                          "決定日時",
		"Note":                             "メモ",
		"Why (kept with its missed times)": "理由（見送られた時刻とともに記録されます）",
		"No triggers in the DAG files under the root.":                          "ルート配下の DAG ファイルにトリガーはありません。",
		"No decisions yet.":                                                     "まだ決定はありません。",
		"webhook: POST its body to":                                             "webhook: 本文の POST 先",
		"say why the trigger is paused: the note is kept with its missed times": "トリガーを一時停止する理由を書いてください: メモは見送られた時刻とともに記録されます",
	}
}
