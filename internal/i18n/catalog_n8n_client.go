package i18n

// jaN8NClient is the Japanese of the n8n REST client and the n8n node types' own errors
// (n8n/client.go, api.go, executions.go, outcome.go, webhook.go, gate.go, types.go): what a
// node's failure, an MCP n8n tool and the web view's n8n pages say. Operations ("get
// workflow") are nouns, so that "%s %s: %w" reads "ワークフローの取得（abc）: …".
func jaN8NClient() map[string]string {
	return map[string]string{
		// client.go: the instance, the key, the answer
		"n8n: no URL (set N8N_URL, or url in the node or the DAG's n8n block)":            "n8n: URL がありません（N8N_URL か、ノードまたは DAG の n8n ブロックの url を設定してください）",
		"n8n: no API key (set N8N_API_KEY, or api_key_env to the variable that holds it)": "n8n: API キーがありません（N8N_API_KEY か、キーを保持する変数名を api_key_env に設定してください）",
		"n8n: bad URL %s: %w":                                                      "n8n: URL %s が不正です: %w",
		"n8n: bad URL %q: want http(s)://host[:port]":                              "n8n: URL %q が不正です。http(s)://ホスト[:ポート] の形で指定してください",
		"n8n: bad URL %s: credentials in the URL are not allowed; use the API key": "n8n: URL %s が不正です。URL に認証情報は書けません。API キーを使ってください",
		"n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; use https:// or set insecure: true": "n8n: ループバックではない %s への平文の http:// は拒否します。API キーとデータが暗号化されずに流れます。https:// を使うか、insecure: true を設定してください",
		"n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; use https:// or pass --insecure":    "n8n: ループバックではない %s への平文の http:// は拒否します。API キーとデータが暗号化されずに流れます。https:// を使うか、--insecure を指定してください",
		"n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; set N8N_URL to an https:// URL":     "n8n: ループバックではない %s への平文の http:// は拒否します。API キーとデータが暗号化されずに流れます。N8N_URL に https:// の URL を設定してください",
		" (check the API key: N8N_API_KEY, or the variable api_key_env names)":                                                                            "（API キーを確認してください: N8N_API_KEY か、api_key_env が指す変数）",
		"n8n %s %s: encode body: %w":           "n8n %s %s: 本文をエンコードできません: %w",
		"n8n %s %s: decode answer: %w":         "n8n %s %s: 応答をデコードできません: %w",
		"n8n %s %s: %v while waiting to retry": "n8n %s %s: 再試行を待つ間に中断されました（%v）",
		"read answer: %w":                      "応答を読めません: %w",
		"answer larger than %d MiB":            "応答が %d MiB を超えています",
		"%w (request timed out)":               "%w（リクエストがタイムアウトしました）",
		"encode body: %w":                      "本文をエンコードできません: %w",
		"%s: %w":                               "%s: %w",
		"%s %s: %w":                            "%s（%s）: %w",

		// api.go: ids, operations, pages
		"id is empty":                             "id が空です",
		"id is missing":                           "id がありません",
		"id must be a whole number, got %v":       "id は整数である必要がありますが、%v です",
		"id must be a string or a number, got %T": "id は文字列か数値である必要がありますが、%T です",
		"id %q is not an n8n id":                  "id %q は n8n の id ではありません",
		"list workflows: %w":                      "ワークフロー一覧の取得: %w",
		"list executions: %w":                     "実行一覧の取得: %w",
		"page %d: %w":                             "%d ページ目: %w",
		"page %d: n8n's cursor does not advance; stopped following it":                                        "%d ページ目: n8n のカーソルが進まないため、たどるのをやめました",
		"list executions: page %d: n8n's cursor does not advance; stopped following it":                       "実行一覧の取得: %d ページ目: n8n のカーソルが進まないため、たどるのをやめました",
		"page %d: stopped after %d pages, seam's limit on one list; narrow it with a filter":                  "%d ページ目: 一つの一覧に対する seam の上限 %d ページに達したため、読むのをやめました。フィルターで絞り込んでください",
		"list executions: page %d: stopped after %d pages, seam's limit on one list; narrow it with a filter": "実行一覧の取得: %d ページ目: 一つの一覧に対する seam の上限 %d ページに達したため、読むのをやめました。フィルターで絞り込んでください",
		"get workflow":                "ワークフローの取得",
		"update workflow":             "ワークフローの更新",
		"delete workflow":             "ワークフローの削除",
		"activate workflow":           "ワークフローの有効化",
		"deactivate workflow":         "ワークフローの無効化",
		"get tags of workflow":        "ワークフローのタグの取得",
		"set tags of workflow":        "ワークフローのタグの設定",
		"create workflow %q: %w":      "ワークフロー %q の作成: %w",
		"create tag %q: %w":           "タグ %q の作成: %w",
		"get execution: %w":           "実行の取得: %w",
		"get execution %s: %w":        "実行 %s の取得: %w",
		"delete execution: %w":        "実行の削除: %w",
		"delete execution %s: %w":     "実行 %s の削除: %w",
		"retry execution: %w":         "実行の再試行: %w",
		"retry execution %s: %w":      "実行 %s の再試行: %w",
		"the name of workflow %s: %w": "ワークフロー %s の名前: %w",

		// outcome.go, gate.go, types.go
		"execution %s: read data: %w":                                                                                   "実行 %s: データを読めません: %w",
		"execution %s: read data: node %q, output %d, item %d: %w":                                                      "実行 %s: データを読めません: ノード %q、出力 %d、項目 %d: %w",
		"execution %s has no data (fetch it with includeData)":                                                          "実行 %s にデータがありません（includeData 付きで取得してください）",
		"n8n would reject or break this workflow; set force: true to write it anyway":                                   "このワークフローは n8n に拒否されるか、実行時に壊れます。それでも書き込むには force: true を設定してください",
		"n8n would reject or break this workflow: %s; the first: %s %s%s (fix: %s); set force: true to write it anyway": "このワークフローは n8n に拒否されるか、実行時に壊れます（%s）。最初のもの: %s %s%s（修正: %s）。それでも書き込むには force: true を設定してください",
		"node %q: ":                "ノード %q: ",
		"validate workflow %q: %w": "ワークフロー %q の検証: %w",
		"n8n node catalog: %w":     "n8n のノードカタログ: %w",
		"no n8n URL: set url in the node's with or the DAG's n8n block, or N8N_URL": "n8n の URL がありません。ノードの with か DAG の n8n ブロックに url を書くか、N8N_URL を設定してください",
		"no n8n API key: the environment variable %s is empty or unset":             "n8n の API キーがありません。環境変数 %s が空か未設定です",
		"created workflow %s but could not activate it: %w":                         "ワークフロー %s を作成しましたが、有効化できませんでした: %w",

		// webhook.go
		"webhook %s %s": "Webhook %s %s",
		"%s: no answer within %s; raise timeout to wait longer":                           "%s: %s 以内に応答がありません。長く待つには timeout を上げてください",
		"find the workflow of the webhook: %w":                                            "Webhook のワークフローを探せません: %w",
		"no active workflow has a Webhook node for %s %s; activate it, or set workflowId": "%s %s の Webhook ノードを持つ有効なワークフローがありません。ワークフローを有効にするか、workflowId を設定してください",
		"%d active workflows have a Webhook node for %s %s; set workflowId":               "%[2]s %[3]s の Webhook ノードを持つ有効なワークフローが %[1]d 個あります。workflowId を設定してください",
		"execution %s is %s": "実行 %s は %s",
		"no finished execution of workflow %s within %s; raise timeout to wait longer":      "%[2]s 以内に終わったワークフロー %[1]s の実行がありません。長く待つには timeout を上げてください",
		"no finished execution of workflow %s within %s (%s); raise timeout to wait longer": "%[2]s 以内に終わったワークフロー %[1]s の実行がありません（%[3]s）。長く待つには timeout を上げてください",
		"wait for the execution of workflow %s: %w":                                         "ワークフロー %s の実行を待てません: %w",
	}
}
