package i18n

// jaYAML is the Japanese of the DAG file's YAML (merge keys) and of explain's reading of it
// and of contract files.
func jaYAML() map[string]string {
	return map[string]string{
		"merge an anchored mapping: `<<: *defaults` or `<<: [*a, *b]`":   "アンカーを付けたマッピングをマージしてください: `<<: *defaults` または `<<: [*a, *b]`",
		"a merge key (<<) takes a mapping or a list of mappings, not %s": "マージキー（<<）が受け取るのはマッピングかマッピングのリストで、%s ではありません",
		"the contract file %s could not be read (%v)":                    "契約ファイル %s を読めませんでした（%v）",
		"the contract file %s no longer parses":                          "契約ファイル %s はもう解析できません",
	}
}
