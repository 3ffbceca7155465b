package i18n

// jaPrincipals is the Japanese of who is asking: the principals file (auth/), the roles the
// web view and the MCP server ask for, and seam token new.
func jaPrincipals() map[string]string {
	return map[string]string{
		// auth/file.go
		"%s:%d: the principals file does not parse: %s: fix the YAML (docs/serve.md shows the format)":                            "%s:%d: principals ファイルを解析できません: %s: YAML を直してください（書式は docs/serve.md にあります）",
		"%s: no principals: add one with the line seam token new NAME --role ROLE prints":                                         "%s: プリンシパルがありません: seam token new NAME --role ROLE が表示する行で追加してください",
		"%s:%d: a principals file is a mapping with the key principals: see docs/serve.md":                                        "%s:%d: principals ファイルはキー principals を持つマッピングです: docs/serve.md を参照してください",
		"%s:%d: principals must be a mapping of names to {token_sha256, roles, groups}":                                           "%s:%d: principals は名前から {token_sha256, roles, groups} へのマッピングにしてください",
		"%s:%d: principal %q is named twice: give each principal its own name":                                                    "%s:%d: プリンシパル %q が 2 回あります: プリンシパルごとに別の名前を付けてください",
		"%s:%d: principals %q and %q (line %d) have the same token_sha256: give each principal its own token (seam token new)":    "%s:%d: プリンシパル %q と %q（%d 行目）の token_sha256 が同じです: プリンシパルごとに別のトークンを使ってください（seam token new）",
		"%s:%d: principal name %q: use letters, digits, '.', '_', '-' and '@' (':' is kept for os:USER)":                          "%s:%d: プリンシパル名 %q: 英数字と '.'、'_'、'-'、'@' を使ってください（':' は os:USER 用です）",
		"%s:%d: principal %q must be a mapping {token_sha256, roles, groups}":                                                     "%s:%d: プリンシパル %q はマッピング {token_sha256, roles, groups} にしてください",
		"%s:%d: principal %q: token_sha256 is not 64 hex digits: put the SHA-256 of the token there, as seam token new prints it": "%s:%d: プリンシパル %q: token_sha256 が 16 進数 64 桁ではありません: seam token new が表示するトークンの SHA-256 を書いてください",
		"%s:%d: principal %q: %s must be a list, e.g. [viewer]":                                                                   "%s:%d: プリンシパル %q: %s はリストにしてください（例: [viewer]）",
		"%s:%d: principal %q: unknown role %q: want one of %s":                                                                    "%s:%d: プリンシパル %q: 不明なロール %q: %s のいずれかを指定してください",
		"%s:%d: principal %q has no token_sha256: add the line seam token new prints":                                             "%s:%d: プリンシパル %q に token_sha256 がありません: seam token new が表示する行を追加してください",
		"%s:%d: principal %q has no roles: give it at least one of %s":                                                            "%s:%d: プリンシパル %q にロールがありません: %s の少なくとも 1 つを与えてください",
		"principals file: %w":    "principals ファイル: %w",
		"principals file %s: %w": "principals ファイル %s: %w",
		"principals file %s is larger than %d bytes: keep one line per principal":                                                                           "principals ファイル %s が %d バイトを超えています: 1 プリンシパル 1 行にしてください",
		"principals file %s read again: %d principals":                                                                                                      "principals ファイル %s を読み直しました: プリンシパル %d 件",
		"principals file changed but cannot be used; the last good version stays in force: %v":                                                              "principals ファイルが変更されましたが使えません。最後に正しかった版が有効なままです: %v",
		"both a principals file (%s) and %s are set: the file replaces the token; add the token's SHA-256 to the file as an admin principal, then unset %s": "principals ファイル（%s）と %s の両方が設定されています: ファイルがトークンに代わります。トークンの SHA-256 を admin プリンシパルとしてファイルに加え、%s を外してください",
		// serve/principals.go
		"Not allowed": "許可されていません",
		"that bearer token is not one of the server's principals":                                                               "その bearer トークンはこのサーバーのどのプリンシパルのものでもありません",
		"%s may not do this: it needs the role %s (or admin), and %s has %s. An admin can add the role in the principals file.": "%[1]s はこの操作をできません: ロール %[2]s（または admin）が必要ですが、%[3]s のロールは %[4]s です。admin が principals ファイルでロールを追加できます。",
		// mcp/principals.go
		"%s may not call %s: it needs the role %s (or admin), and %s has %s; an admin can add the role in the principals file": "%[1]s は %[2]s を呼び出せません: ロール %[3]s（または admin）が必要ですが、%[4]s のロールは %[5]s です。admin が principals ファイルでロールを追加できます",
		// auth/token.go: seam token new
		"principal name %q: use letters, digits, '.', '_', '-' and '@'": "プリンシパル名 %q: 英数字と '.'、'_'、'-'、'@' を使ってください",
		"--role %q: unknown role: want one of %s":                       "--role %q: 不明なロールです: %s のいずれかを指定してください",
		"The token of %s, shown this once (seam keeps no copy; give it to %s through a secret store):\n\n  %s\n\nAdd this line under principals: in the principals file (seam serve and seam mcp read it again within a second):\n\n  %s\n": "%[1]s のトークンです。表示はこの 1 回だけです（seam は控えを持ちません。シークレットストアを通じて %[2]s に渡してください）:\n\n  %[3]s\n\nprincipals ファイルの principals: の下にこの行を追加してください（seam serve と seam mcp は 1 秒以内に読み直します）:\n\n  %[4]s\n",
		// runs/who.go: seam runs show
		"by       %s\n":                           "実行者   %s\n",
		"canceled by %s at %s\n":                  "%[2]s に %[1]s がキャンセル\n",
		"resumed by %s at %s (the last resume)\n": "%[2]s に %[1]s が再開（最後の再開）\n",
		// serve/assets/run.html
		"by":          "実行者",
		"canceled by": "キャンセルした人",
		"resumed by":  "再開した人",
		"Your token":  "あなたのトークン",
	}
}
