package i18n

// jaDrafts is the Japanese of the JSON Schema drafts: refusing an unknown $schema (contract)
// and lint's findings on what a declared draft ignores.
func jaDrafts() map[string]string {
	return map[string]string{
		"$schema %q names no draft seam reads; declare one of %s": "$schema %q は seam が読めるドラフトではありません。次のいずれかを宣言してください: %s",
	}
}
