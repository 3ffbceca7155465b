package i18n

// jaDrafts is the Japanese of the JSON Schema drafts: refusing an unknown $schema (contract)
// and lint's findings on what a declared draft ignores.
func jaDrafts() map[string]string {
	return map[string]string{
		"$schema %q names no draft seam reads; declare one of %s":                       "$schema %q は seam が読めるドラフトではありません。次のいずれかを宣言してください: %s",
		"declare one of the drafts listed in $schema, or leave $schema out for 2020-12": "$schema には一覧にあるドラフトのいずれかを宣言するか、$schema を省いて 2020-12 としてください",
		// lint (lint_drafts.go)
		"node %s's contract.%s": "ノード %s の contract.%s",
		"the params schema":     "params スキーマ",
		"%s uses %s at %s, which %s does not define: validation ignores it.":                                                                                      "%s は %[3]s で %[2]s を使っていますが、%[4]s はこのキーワードを定義していないため、検証では無視されます。",
		"declare \"$schema\": %q, or rename it definitions (a $ref to #/$defs/… still resolves as a JSON pointer, but %s reads nothing under $defs as a schema).": "\"$schema\": %q を宣言するか、definitions に名前を変えてください（#/$defs/… への $ref は JSON ポインタとして解決されますが、%s は $defs の下をスキーマとして読みません）。",
		"write it as %s does: the items after prefixItems are items.":                                                                                             "%s の書き方にしてください: prefixItems の後に続く要素は items で書きます。",
		"declare a draft that defines it: \"$schema\": %q.":                                                                                                       "このキーワードを定義するドラフトを宣言してください: \"$schema\": %q。",
		"%s writes %s beside the $ref at %s, which %s ignores: the object is the $ref alone.":                                                                     "%s は %[3]s の $ref の横に %[2]s を書いていますが、%[4]s はこれを無視します: そのオブジェクトは $ref だけとして読まれます。",
		"move them into an allOf with the $ref, or declare \"$schema\": \"https://json-schema.org/draft/2019-09/schema\" or later.":                               "それらを $ref と並べて allOf の中に移すか、\"$schema\": \"https://json-schema.org/draft/2019-09/schema\" 以降を宣言してください。",
		"%s declares $schema at %s, below a resource's root: %s ignores it there.":                                                                                "%s は %s で $schema を宣言していますが、そこはリソースのルートではないため %s は無視します。",
		"give that schema an %s to make it a resource of its own, or remove the $schema.":                                                                         "そのスキーマに %s を付けて独立したリソースにするか、$schema を削除してください。",
	}
}
