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
	}
}
