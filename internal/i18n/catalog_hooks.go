package i18n

// jaHooks is the Japanese of webhooks: POST /hooks/{dag}/{trigger} on seam serve
// (serve/hooks.go) and what the service says of a request (service/hooks.go).
func jaHooks() map[string]string {
	return map[string]string{
		// service
		"trigger %s of %s is a schedule, not a webhook: POST /hooks/%s/%s starts nothing": "%[2]s のトリガー %[1]s はスケジュールで、webhook ではありません: POST /hooks/%[3]s/%[4]s は何も開始しません",
		"the body breaks the webhook's contract":                                          "本文が webhook の契約に違反しています",
		"the body is not JSON: %w":                                                        "本文が JSON ではありません: %w",
		"trigger %s: the key cannot be made of the body: %w":                              "トリガー %s: 本文から key を作れません: %w",
		"trigger %s: the params cannot be made of the body: %w":                           "トリガー %s: 本文から params を作れません: %w",
		"params must make an object, not %s":                                              "params はオブジェクトを作る必要があります（%s ではなく）",
		"it is empty":                                                                     "空です",
		// service: seam schedule trigger and backfill (service/fire.go)
		"manual":          "手動",
		"triggered by %s": "%s が手動で起動",
		"backfill by %s":  "%s によるバックフィル",
		"trigger %s is a webhook: POST its body to /hooks/%s/%s on seam serve":                   "トリガー %s は webhook です: 本文を seam serve の /hooks/%s/%s に POST してください",
		"--to %s is before --from %s":                                                            "--to %s が --from %s より前です",
		"--to %s is in the future: a backfill starts past times, the scheduler the ones to come": "--to %s は未来です: バックフィルは過去の時刻を、スケジューラーはこれからの時刻を開始します",
		"from %s to %s trigger %s has more than %d times: backfill a shorter range at a time":    "%[1]s から %[2]s までにトリガー %[3]s の時刻が %[4]d 個を超えます: 短い範囲ずつバックフィルしてください",
		"--%s %q: want an RFC 3339 time such as 2026-03-01T00:00:00Z":                            "--%s %q: 2026-03-01T00:00:00Z のような RFC 3339 の時刻を指定してください",
		"%s  decided already: nothing started":                                                   "%s  決定済み: 何も開始しません",
		"%s  could not start: %s":                                                                "%s  開始できませんでした: %s",
		"%s  run %s %s":                                                                          "%s  実行 %s %s",
		// serve
		"this server is read-only: webhooks start nothing": "このサーバーは読み取り専用です: webhook は何も開始しません",
		"a webhook's address is /hooks/DAG/TRIGGER":        "webhook のアドレスは /hooks/DAG/TRIGGER です",
		"wait=%q: want a duration such as 30s, at most %s": "wait=%q: 30s のような期間を指定してください（最大 %s）",
		"the body is longer than %d bytes":                 "本文が %d バイトを超えています",
		"the body could not be read: %v":                   "本文を読めませんでした: %v",
		"no DAG named %s under the root":                   "ルートの下に名前が %s の DAG はありません",
		"webhook %s/%s: sign the body (\"sha256=<hex>\" of its HMAC-SHA256 with the shared secret) or send an operator's bearer token": "webhook %s/%s: 本文に署名するか（共有シークレットによる HMAC-SHA256 の \"sha256=<hex>\"）、operator ロールの bearer トークンを送ってください",
		"webhook %s/%s: the signature in %s is not the body's HMAC-SHA256 with the shared secret":                                      "webhook %s/%s: %s の署名は、共有シークレットによる本文の HMAC-SHA256 ではありません",
		"%s may not start runs: it needs the role %s (or admin), and %s has %s. An admin can add the role in the principals file.":     "%[1]s は実行を開始できません: ロール %[2]s（または admin）が必要ですが、%[3]s のロールは %[4]s です。管理者が principals ファイルでロールを追加できます。",
	}
}
