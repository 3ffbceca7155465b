package i18n

// jaVendor is the Japanese of `seam schema vendor`: fetching a schema set over HTTP into a
// catalog folder (contract/vendor.go).
func jaVendor() map[string]string {
	return map[string]string{
		"%s is not an absolute URL":                                         "%s は絶対 URL ではありません",
		"the schema set is over the limit of %d bytes at %s":                "スキーマ一式が %[2]s で上限の %[1]d バイトを超えました",
		"%s: the answer is not JSON: %v":                                    "%s: 応答が JSON ではありません: %v",
		"%s at %s: %w":                                                      "%s の %s: %w",
		"the schema set has more than %d documents (%s at %s refers to %s)": "スキーマ一式の文書が %d を超えます (%s の %s が %s を参照しています)",
		"%s is not an http(s) URL: seam fetches schemas over HTTP only":     "%s は http(s) の URL ではありません: seam がスキーマを取得するのは HTTP だけです",
		"%s holds credentials: vendor from a URL without them":              "%s は認証情報を含んでいます: 認証情報のない URL から取り込んでください",
		"more than %d redirects":                                            "リダイレクトが %d 回を超えました",
		"fetch %s: %w":                                                      "%s の取得: %w",
		"fetch %s: HTTP status %s":                                          "%s の取得: HTTP ステータス %s",
		"fetch %s: the document is over the limit of %d bytes":              "%s の取得: 文書が上限の %d バイトを超えています",
		"%s names no file a catalog can hold (a query, a path that ends in / or holds . or ..)": "%s はカタログに置けるファイルを指していません (クエリ、/ で終わるパス、. や .. を含むパス)",
		"%s and %s would both be written to %s":                                                 "%s と %s がどちらも %s に書き込まれることになります",
		"wrote %s (%s)":                                                                         "%s を書き込みました (%s)",
		"add to the DAG (dir relative to the DAG file), or pass --catalog PREFIX=DIR to validate and compat:": "DAG に追加してください (dir は DAG ファイルからの相対パス)。validate と compat には --catalog PREFIX=DIR を渡します:",
	}
}
