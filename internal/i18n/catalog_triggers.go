package i18n

// jaTriggers is the Japanese of triggers: the `triggers:` section of a DAG file, their lint
// findings and the scheduler.
func jaTriggers() map[string]string {
	return map[string]string{
		// dag: the triggers section
		"trigger %q": "トリガー %q",
		"triggers must be a mapping of trigger ids, not %s":                                                                "triggers はトリガー ID のマッピングである必要があります（%s ではなく）",
		"write `<id>: {cron: \"0 2 * * *\"}` lines":                                                                        "`<id>: {cron: \"0 2 * * *\"}` の行で書いてください",
		"bad trigger id %q: ids are a lowercase letter followed by lowercase letters, digits, _ or -":                      "不正なトリガー ID %q: ID は英小文字で始まり、英小文字・数字・_・- が続きます",
		"%s needs exactly one of cron, every and webhook, got %d":                                                          "%s には cron、every、webhook のうちちょうど 1 つが必要ですが、%d 個あります",
		"give one of `cron: \"0 2 * * *\"`, `every: 10m` or `webhook: {}`":                                                 "`cron: \"0 2 * * *\"`、`every: 10m`、`webhook: {}` のいずれか 1 つを書いてください",
		"%s: every must be a whole number of seconds, at least 1s, not %s":                                                 "%s: every は 1s 以上の整数秒である必要があります（%s ではなく）",
		"use whole seconds, from 1s up, e.g. `every: 10s`":                                                                 "1s 以上の整数秒を使ってください。例: `every: 10s`",
		"%s: %s applies to schedules (cron or every), not to a webhook":                                                    "%s: %s はスケジュール（cron または every）に使うもので、webhook には使えません",
		"remove %s: a webhook starts a run when a request comes":                                                           "%s を削除してください。webhook はリクエストが来たときに実行を開始します",
		"%s: key applies to webhooks, not to a schedule":                                                                   "%s: key は webhook に使うもので、スケジュールには使えません",
		"remove key: a schedule's runs are told apart by their scheduled time":                                             "key を削除してください。スケジュールの実行は予定時刻で区別されます",
		"%s: webhook.hmac needs secret_env":                                                                                "%s: webhook.hmac には secret_env が必要です",
		"add `secret_env: NAME`, the variable that holds the shared secret":                                                "共有シークレットを持つ変数を `secret_env: NAME` で指定してください",
		"%s: %q is not an environment variable's name":                                                                     "%s: %q は環境変数の名前ではありません",
		"name an environment variable: letters, digits and _, not starting with a digit":                                   "環境変数を指定してください。英字・数字・_ からなり、数字で始まらない名前です",
		"%s: %s is not there before the run starts; a trigger reads only trigger.*":                                        "%s: %s は実行が始まる前には存在しません。トリガーが読めるのは trigger.* だけです",
		"read trigger.scheduled_time (a schedule) or trigger.body (a webhook)":                                             "trigger.scheduled_time（スケジュール）または trigger.body（webhook）を読んでください",
		"%s: trigger is read only in a trigger's params and key":                                                           "%s: trigger はトリガーの params と key の中でだけ読めます",
		"pass it through a trigger's params: `params: {since: \"${{ trigger.scheduled_time }}\"}`, then read params.since": "トリガーの params で渡してください: `params: {since: \"${{ trigger.scheduled_time }}\"}`。そのうえで params.since を読みます",
		"output %q": "出力 %q",
		// lint
		"trigger %s: cron %q does not parse: %s": "トリガー %s: cron %q を解釈できません: %s",
		"write five fields, minute hour day-of-month month day-of-week (\"0 2 * * *\"), or @hourly, @daily, @weekly, @monthly, @yearly; an interval is every: 10m": "分 時 日 月 曜日 の 5 フィールド（\"0 2 * * *\"）か、@hourly、@daily、@weekly、@monthly、@yearly を書いてください。一定間隔なら every: 10m です",
		"trigger %s: unknown time zone %q":                                                           "トリガー %s: 不明なタイムゾーン %q",
		"trigger %s: time zone Local is the zone of whichever machine runs the scheduler":            "トリガー %s: タイムゾーン Local はスケジューラーを動かすマシンごとに変わります",
		"name an IANA zone such as Europe/Berlin or America/New_York, or leave timezone out for UTC": "Europe/Berlin や America/New_York のような IANA のタイムゾーンを指定するか、UTC にするなら timezone を省いてください",
		"a schedule provides trigger.scheduled_time":                                                 "スケジュールが提供するのは trigger.scheduled_time です",
		"a webhook provides trigger.body":                                                            "webhook が提供するのは trigger.body です",
		"trigger %s reads %s, which it does not provide: %s":                                         "トリガー %s は %s を読みますが、それは提供されません。%s",
		"read trigger.%s": "trigger.%s を読んでください",
		"trigger %s may make params %s, which the params schema rejects: %s":                                                          "トリガー %s は params %s を作ることがあり、params スキーマはそれを受け付けません: %s",
		"give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema": "params スキーマが受け付ける params をトリガーに与える（trigger.* から読む値も含めて）か、params スキーマを広げてください",
		"the params schema (for trigger %s)": "params スキーマ（トリガー %s 用）",
		"trigger %s catches up every missed time, but its params do not read trigger.scheduled_time: each catch-up run processes the same as a run on time": "トリガー %s は見逃した時刻をすべて実行しますが、その params は trigger.scheduled_time を読みません。追いつきのための実行はどれも定刻の実行と同じものを処理します",
		"pass the time in params, e.g. `params: {since: \"${{ trigger.scheduled_time }}\"}`, or catch up only the latest time: `catchup: {runs: latest}`":   "時刻を params で渡すか（例: `params: {since: \"${{ trigger.scheduled_time }}\"}`）、最新の時刻だけを追いつき実行してください: `catchup: {runs: latest}`",
		// runs show
		"trigger  %s, for %s\n": "トリガー %s（%s の分）\n",
		"trigger  %s, key %q\n": "トリガー %s（キー %q）\n",
		"trigger  %s\n":         "トリガー %s\n",
		// schedule: the scheduler's decisions
		"seen %s late, outside the %s window":                      "%s 遅れて検出されました。%s の枠の外です",
		"missed while no scheduler ran; catchup runs none":         "スケジューラーが動いていない間に過ぎました。catchup は none です",
		"superseded by %s (catchup runs latest)":                   "%s に置き換えられました（catchup は latest）",
		"%d run of the trigger is still going":                     "トリガーの実行 %d 件がまだ続いています",
		"%d runs of the trigger are still going":                   "トリガーの実行 %d 件がまだ続いています",
		"a run of the trigger starts before it":                    "この前にトリガーの実行が始まります",
		"%s; the buffer holds one time":                            "%s。バッファーに入るのは 1 時刻だけです",
		"superseded: only the latest time runs under cancel_other": "置き換えられました。cancel_other では最新の時刻だけが実行されます",
		"%s: canceled":                  "%s。キャンセルしました",
		"a run of the trigger is going": "トリガーの実行が続いています",
		// service: the scheduler
		"paused by %s: %s": "%s が一時停止しました: %s",
		"trigger %s: params must make an object, not %s": "トリガー %s: params はオブジェクトを作る必要があります（%s ではなく）",
		"started by another scheduler":                   "別のスケジューラーが開始しました",
		"could not start: %v":                            "開始できませんでした: %v",
		"trigger %s: %w":                                 "トリガー %s: %w",
	}
}
