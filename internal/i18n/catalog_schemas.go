package i18n

// jaSchemas is the Japanese of the schema catalog (contract/catalog.go, dag/load_catalog.go).
func jaSchemas() map[string]string {
	return map[string]string{
		"schema catalog %s: prefix %q is not an http(s) URL ending in /":                                                     "スキーマカタログ %s: prefix %q は / で終わる http(s) の URL ではありません",
		"write a list of `- dir: vendor/schemastore` entries, each with an optional `prefix: https://json.schemastore.org/`": "`- dir: vendor/schemastore` の形の項目を並べたリストにしてください（各項目に `prefix: https://json.schemastore.org/` を付けられます）",
		"catalog must be a list, not %s":                                           "catalog はリストである必要があります（%s ではなく）",
		"add `dir:`, the folder of the vendored schemas, relative to the DAG file": "`dir:` に、取り込んだスキーマのフォルダーを DAG ファイルからの相対パスで書いてください",
		"a catalog entry needs dir":                                                "catalog の項目には dir が必要です",
		"give the URL the vendored files were fetched from, ending in /, such as https://json.schemastore.org/": "取り込んだファイルの取得元 URL を / で終わる形で指定してください（例: https://json.schemastore.org/）",
		"catalog: %s": "catalog（スキーマカタログ）: %s",
	}
}
