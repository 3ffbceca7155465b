package i18n

// jaYAML is the Japanese of the DAG file's YAML: merge keys and extension fields.
func jaYAML() map[string]string {
	return map[string]string{
		"merge an anchored mapping: `<<: *defaults` or `<<: [*a, *b]`":   "アンカーを付けたマッピングをマージしてください: `<<: *defaults` または `<<: [*a, *b]`",
		"a merge key (<<) takes a mapping or a list of mappings, not %s": "マージキー（<<）が受け取るのはマッピングかマッピングのリストで、%s ではありません",
	}
}
