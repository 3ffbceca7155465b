package i18n

// jaReach is the Japanese of messages that reached people in English only: the http and
// transform node types' errors, the loader's limits and a run's environment and references,
// the files seam reads, the run store's, the n8n validator's entry points and telemetry's
// configuration.
func jaReach() map[string]string {
	return map[string]string{
		// nodes/http.go, nodes/transform.go
		"redirected to %s, and max_redirects is 0":                           "%s にリダイレクトされましたが、max_redirects は 0 です",
		"stopped after %d redirects (max_redirects: %d); the next was to %s": "%d 回リダイレクトしたところで止めました（max_redirects：%d）。次のリダイレクト先は %s でした",
		"%s: %w (seam always verifies TLS certificates: give the server a certificate the system trusts, or add its CA to the system store or SSL_CERT_FILE)": "%s：%w（seam は TLS 証明書を必ず検証します：システムが信頼する証明書をサーバーに設定するか、その CA をシステムの証明書ストアか SSL_CERT_FILE に追加してください）",
		"%s: no complete response within %s (with.timeout): %w": "%s：%s 以内に応答が完了しませんでした（with.timeout）：%w",
		"transform: program produced no output":                 "transform：プログラムが何も出力しませんでした",
		// n8n/validate/validate.go
		"unknown profile %q (want minimal, runtime, ai-friendly or strict)": "不明なプロファイル %q です（minimal、runtime、ai-friendly、strict のいずれかを指定してください）",
		"workflow is not JSON: %w": "ワークフローが JSON ではありません：%w",
		// contract/limits.go, said by the loader (SEAM-E120)
		"number %s at offset %d has %d digits, more than seam's limit of %d": "数値 %s（オフセット %d）は %d 桁あり、seam の上限 %d 桁を超えています",
		"number %s has %d digits, more than seam's limit of %d":              "数値 %s は %d 桁あり、seam の上限 %d 桁を超えています",
		"number %s at offset %d has an exponent beyond seam's limit of ±%d":  "数値 %s（オフセット %d）の指数が seam の上限 ±%d を超えています",
		"number %s has an exponent beyond seam's limit of ±%d":               "数値 %s の指数が seam の上限 ±%d を超えています",
		"subschemas nest more than %d levels deep":                           "サブスキーマの入れ子が %d 段を超えています",
		"more than %d subschemas (with the files it refers to)":              "サブスキーマが（参照先のファイルを含めて）%d 個を超えています",
		// dag/load_env.go: a run's environment
		"%s (listed at %s:%d:%d)": "%s（%s:%d:%d に記載）",
		"environment variable %s is not set; the DAG reads it through env":                                                                                  "環境変数 %sが設定されていません：DAG はこれを env で読み取ります",
		"environment variables not set, which the DAG reads through env: %s":                                                                                "DAG が env で読み取る環境変数が設定されていません：%s",
		"env %s (listed at %s:%d:%d) holds %d bytes, fewer than the %d a secret needs to be masked: its value will show in outputs, logs and the run store": "env %s（%s:%d:%d に記載）の値は %d バイトで、秘密の値としてマスクされるのに必要な %d バイトに足りません：値が出力、ログ、実行ストアにそのまま表示されます",
		// dag/ref.go: a reference resolved in a run
		"is a %T, not a JSON value":                         "%T であり、JSON の値ではありません",
		"environment variable %s was not read for this run": "環境変数 %s はこの実行では読み取られていません",
		"[%d]: index out of range (length %d)":              "[%d]：インデックスが範囲外です（長さ %d）",
		"no field %q":                                       "フィールド %q がありません",
		"node %s has no output":                             "ノード %s には出力がありません",
		"[%d]: %s is not an array":                          "[%d]：%sは配列ではありません",
		"%s: %s is not an object":                           "%s：%sはオブジェクトではありません",
		"${{ %s }} is %s, not a boolean":                    "${{ %s }} は%sであり、真偽値ではありません",
		// internal/userfile: the files seam reads
		"not a regular file (%s)":           "通常のファイルではありません（%s）",
		"a named pipe":                      "名前付きパイプ",
		"a socket":                          "ソケット",
		"a character device":                "キャラクターデバイス",
		"a block device":                    "ブロックデバイス",
		"a directory":                       "ディレクトリ",
		"more than %s: over the limit (%s)": "%s より大きく、上限を超えています（%s）",
		"%s is over the %s limit (%s)":      "%s は上限の %s を超えています（%s）",
		"%d bytes":                          "%d バイト",
		"%s=%q: want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)": "%s=%q：正のバイト数か、KiB、MiB、GiB を付けた数を指定してください（例：64MiB）",
		// runs: the run store refused
		"store %s has schema version %d, this seam knows up to %d: it was written by a newer seam; use that one (or a newer one) with it":      "ストア %s のスキーマバージョンは %d ですが、この seam が扱えるのは %d までです：より新しい seam が書いたストアなので、その seam（またはさらに新しいもの）で使ってください",
		"store %s has schema version %d, this seam needs %d: `seam store migrate` brings it up to date (seam run does so unless --no-migrate)": "ストア %s のスキーマバージョンは %d ですが、この seam には %d が必要です：`seam store migrate` で最新にできます（seam run も --no-migrate がなければ最新にします）",
		"open store %s to read: %w": "ストア %s を読み取り用に開けません：%w",
		"open store %s to read: %w: the database holds no runs yet (`seam run` or `seam store migrate` creates the store)":                                        "ストア %s を読み取り用に開けません：%w：データベースにはまだ実行がありません（`seam run` か `seam store migrate` がストアを作成します）",
		"open store: the location starts with %s: but not %s://, so it is no PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DB":                         "ストアを開けません：場所は %s: で始まりますが %s:// ではないため、PostgreSQL の URL ではありません：postgres://USER:PASSWORD@HOST:PORT/DB と書いてください",
		"open store %s: this is a key=value connection string; give a PostgreSQL store as a postgres:// URL (postgres://USER:PASSWORD@HOST:PORT/DB)":              "ストア %s を開けません：これは key=value 形式の接続文字列です：PostgreSQL のストアは postgres:// の URL（postgres://USER:PASSWORD@HOST:PORT/DB）で指定してください",
		"open store %s: the password holds @, /, ?, # or & as it is, which a URL reads as the end of the password: write them as %%40, %%2F, %%3F, %%23 and %%26": "ストア %s を開けません：パスワードに @、/、?、#、& がそのまま含まれていて、URL ではそこでパスワードが終わると読まれます：それぞれ %%40、%%2F、%%3F、%%23、%%26 と書いてください",
		// telemetry/config.go: the OTEL_* variables
		"%s: unknown exporter %q; want otlp, console or none":                                                           "%s：不明なエクスポーター %q です：otlp、console、none のいずれかを指定してください",
		"%s: none cannot be combined with other exporters":                                                              "%s：none はほかのエクスポーターと組み合わせられません",
		"%s: http/json is not supported for %s; use http/protobuf or grpc":                                              "%s：%s には http/json を使えません：http/protobuf か grpc を使ってください",
		"%s: unknown protocol %q; want http/protobuf or grpc":                                                           "%s：不明なプロトコル %q です：http/protobuf か grpc を指定してください",
		"%s: want a number of milliseconds, not %q":                                                                     "%s：ミリ秒数を指定してください（%q ではなく）",
		"%s: want gzip or none, not %q":                                                                                 "%s：gzip か none を指定してください（%q ではなく）",
		"%s: not a URL (want e.g. http://localhost:4318)":                                                               "%s：URL ではありません（例：http://localhost:4318）",
		"%s: %q is not an http:// or https:// URL with a host (e.g. http://localhost:4318)":                             "%s：%q はホストを含む http:// または https:// の URL ではありません（例：http://localhost:4318）",
		"%s: entry %d is not key=value (values are not shown: they may be secrets)":                                     "%s：%d 番目の項目が key=value の形ではありません（値は秘密かもしれないので表示しません）",
		"%s: the value of %q is not correctly percent-encoded (values are not shown: they may be secrets)":              "%s：%q の値が正しくパーセントエンコードされていません（値は秘密かもしれないので表示しません）",
		"%s: entry %d (%q) is not key=value":                                                                            "%s：%d 番目の項目（%q）が key=value の形ではありません",
		"%s: the value of %q is not correctly percent-encoded":                                                          "%s：%q の値が正しくパーセントエンコードされていません",
		"OTEL_TRACES_SAMPLER_ARG: want a ratio from 0 to 1, not %q":                                                     "OTEL_TRACES_SAMPLER_ARG：0 から 1 までの比率を指定してください（%q ではなく）",
		"OTEL_TRACES_SAMPLER: unknown sampler %q; want always_on, always_off, traceidratio or their parentbased_ forms": "OTEL_TRACES_SAMPLER：不明なサンプラー %q です：always_on、always_off、traceidratio か、それらの parentbased_ 形式を指定してください",
	}
}
