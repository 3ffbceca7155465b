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
