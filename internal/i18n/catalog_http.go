package i18n

// jaHTTP is the Japanese of what seam's HTTP servers (seam serve, seam mcp --http) say about
// their limits, tokens, logins and the files they serve.
func jaHTTP() map[string]string {
	return map[string]string{
		"%s is %d characters long: a token needs at least %d, e.g. one that openssl rand -hex 24 draws": "%s は %d 文字です：トークンには少なくとも %d 文字が必要です（例：openssl rand -hex 24 が生成するもの）",
		"too many wrong tokens from your address: try again in %d s":                                    "このアドレスからの誤ったトークンが多すぎます：%d 秒後にもう一度試してください",
		"%s is not a DAG file: hidden files and folders are not served":                                 "%s は DAG ファイルではありません：隠しファイルと隠しフォルダは表示しません",
		"%s is not a DAG file: only *.yaml and *.yml files are served":                                  "%s は DAG ファイルではありません：表示するのは *.yaml と *.yml のファイルだけです",
		"%s is not a DAG file: it has no top-level nodes key":                                           "%s は DAG ファイルではありません：最上位に nodes キーがありません",
		"%s cannot be read: %v":          "%s を読めません：%v",
		"the form could not be read: %v": "フォームを読めませんでした：%v",
	}
}
