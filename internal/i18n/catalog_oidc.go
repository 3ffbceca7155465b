package i18n

// jaOIDC is the Japanese of single sign-on, the trusted proxy and MCP's bearer refusals: the principals file's oidc: block and oidc: and
// email: keys (auth/), the OpenID provider client, and the web view's login through it.
func jaOIDC() map[string]string {
	return map[string]string{
		// auth/file.go
		"%s:%d: unknown key %q: want principals or oidc":                                          "%s:%d: 不明なキー %q: principals か oidc を指定してください",
		"%s:%d: principal %q: unknown key %q: want token_sha256, oidc, email, roles or groups":    "%s:%d: プリンシパル %q: 不明なキー %q: token_sha256、oidc、email、roles、groups のいずれかです",
		"%s:%d: principal %q: oidc must be the provider's subject (the ID token's sub), a string": "%s:%d: プリンシパル %q: oidc にはプロバイダのサブジェクト（ID トークンの sub）を文字列で指定してください",
		"%s:%d: principal %q: email must be an address the provider has verified, a string":       "%s:%d: プリンシパル %q: email にはプロバイダが検証済みのアドレスを文字列で指定してください",
		// auth/oidc.go
		"%s:%d: oidc must be a mapping {issuer, client_id, client_secret_env, redirect_url, roles_claim, role_map}": "%s:%d: oidc はマッピング {issuer, client_id, client_secret_env, redirect_url, roles_claim, role_map} にしてください",
		"%s:%d: oidc: %s must be a string": "%s:%d: oidc: %s は文字列にしてください",
		"%s:%d: oidc: unknown key %q: want issuer, client_id, client_secret_env, redirect_url, roles_claim or role_map":                                     "%s:%d: oidc: 不明なキー %q: issuer、client_id、client_secret_env、redirect_url、roles_claim、role_map のいずれかです",
		"%s:%d: oidc: role_map must map a claim's values to roles, e.g. {support-leads: [operator]}":                                                        "%s:%d: oidc: role_map はクレームの値からロールへのマッピングにしてください（例: {support-leads: [operator]}）",
		"%s:%d: oidc: role_map %q must be a list of roles, e.g. [viewer]":                                                                                   "%s:%d: oidc: role_map %q はロールのリストにしてください（例: [viewer]）",
		"%s:%d: oidc: role_map %q: unknown role %q: want one of %s":                                                                                         "%s:%d: oidc: role_map %q: 不明なロール %q: %s のいずれかを指定してください",
		"%s:%d: oidc has no issuer: put the provider's issuer URL there, e.g. https://accounts.example.com/":                                                "%s:%d: oidc に issuer がありません: プロバイダの issuer URL を指定してください（例: https://accounts.example.com/）",
		"%s:%d: oidc has no client_id: register seam with the provider and put its client ID there":                                                         "%s:%d: oidc に client_id がありません: seam をプロバイダに登録し、そのクライアント ID を指定してください",
		"%s:%d: oidc has a role_map but no roles_claim: name the claim whose values role_map maps, e.g. groups":                                             "%s:%d: oidc に role_map がありますが roles_claim がありません: role_map が対応付ける値を持つクレームを指定してください（例: groups）",
		"oidc: client_secret_env names %s, which is empty: set it to the client secret the provider gave seam":                                              "oidc: client_secret_env が指す %s が空です: プロバイダが seam に発行したクライアントシークレットを設定してください",
		"oidc: the issuer %s does not answer its discovery document (%v): check issuer in the principals file and that the provider is reachable from here": "oidc: issuer %s がディスカバリー文書に応答しません（%v）: principals ファイルの issuer と、ここからプロバイダに到達できるかを確認してください",
		"oidc: the provider %s did not trade the code for tokens: %v":                                                                                       "oidc: プロバイダ %s がコードをトークンに交換しませんでした: %v",
		"oidc: the provider %s sent no ID token: ask for the openid scope":                                                                                  "oidc: プロバイダ %s が ID トークンを送りませんでした: openid スコープを要求してください",
		"oidc: the ID token does not verify: %v":                                                                                                            "oidc: ID トークンを検証できません: %v",
		"oidc: the ID token's nonce is not the one this login sent: log in again":                                                                           "oidc: ID トークンの nonce がこのログインで送ったものと違います: もう一度ログインしてください",
		"oidc: the ID token's claims do not decode: %w":                                                                                                     "oidc: ID トークンのクレームを復号できません: %w",
		"oidc: the provider %s's userinfo: %v":                                                                                                              "oidc: プロバイダ %s の userinfo: %v",
		"oidc: userinfo speaks of another subject than the ID token: log in again":                                                                          "oidc: userinfo が ID トークンと別のサブジェクトを示しています: もう一度ログインしてください",
		"oidc: the userinfo claims do not decode: %w":                                                                                                       "oidc: userinfo のクレームを復号できません: %w",
		// serve/oidc.go
		"the OpenID provider did not log you in: %s %s":                                                 "OpenID プロバイダでログインできませんでした: %s %s",
		"this answer of the OpenID provider is not for a login this browser started here: log in again": "この OpenID プロバイダの応答は、このブラウザがここで始めたログインのものではありません: もう一度ログインしてください",
		"this login took longer than %d minutes or was used already: log in again":                      "このログインは %d 分を超えたか、すでに使われています: もう一度ログインしてください",
		"the OpenID provider says you are %s, but no principal in the principals file is you: an admin can add oidc: %q (or your verified email as email:) to a principal, or give one of your groups roles in oidc: role_map": "OpenID プロバイダによるとあなたは %s ですが、principals ファイルにあなたに当たるプリンシパルがありません: 管理者がプリンシパルに oidc: %q（または検証済みのメールアドレスを email: に）を追加するか、oidc: role_map であなたのグループにロールを与えられます",
		// serve/proxy.go
		"--auth-proxy-from without --auth-proxy-header: name the header the proxy sets, e.g. --auth-proxy-header X-Forwarded-User":                "--auth-proxy-header なしの --auth-proxy-from: プロキシが設定するヘッダーを指定してください（例: --auth-proxy-header X-Forwarded-User）",
		"--auth-proxy-header %s needs a principals file (--principals): the header names one of its principals":                                   "--auth-proxy-header %s には principals ファイル（--principals）が必要です: ヘッダーはそのプリンシパルの 1 つを指します",
		"--auth-proxy-header %s without --auth-proxy-from: give the proxy's addresses (CIDR, e.g. 10.0.0.5/32), else anyone could set the header": "--auth-proxy-header %s に --auth-proxy-from がありません: プロキシのアドレス（CIDR、例: 10.0.0.5/32）を指定してください。指定しないと誰でもヘッダーを設定できます",
		"--auth-proxy-from %q: want an address or a CIDR, e.g. 10.0.0.5 or 10.0.0.0/24":                                                           "--auth-proxy-from %q: アドレスか CIDR を指定してください（例: 10.0.0.5 や 10.0.0.0/24）",
		"the authenticating proxy says you are %s, but no principal in the principals file has that name or email: an admin can add one":          "認証プロキシによるとあなたは %s ですが、principals ファイルにその名前かメールアドレスのプリンシパルがありません: 管理者が追加できます",
		// mcp/principals.go
		"a bearer token is required: send the header Authorization: Bearer TOKEN": "ベアラートークンが必要です: ヘッダー Authorization: Bearer TOKEN を送ってください",
		"invalid bearer token: it is none of the tokens this server lets in":      "無効なベアラートークンです: このサーバーが受け付けるトークンのどれでもありません",
		"Logged in as":               "ログイン中:",
		"Log in with single sign-on": "シングルサインオンでログイン",
	}
}
