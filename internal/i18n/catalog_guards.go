package i18n

// jaGuards is the Japanese of lint's guards: a CEL expression that fails on a null its
// producer may deliver, and the narrowing of producers by a node's when (lint/lint_cel.go,
// lint/lint_guard.go).
func jaGuards() map[string]string {
	return map[string]string{
		"${{ %s }} fails when %s delivers null for %s, which its contract allows: %s":                                                    "${{ %[1]s }} は、%[2]s が %[3]s に null を返すと失敗します（その契約は null を許しています）：%[4]s",
		"guard the read: `%s != null ? … : <default>` (or test it in the node's when), or declare %s never null in %s's output contract": "読み出しをガードするか（`%[1]s != null ? … : <既定値>`、またはノードの when で確かめる）、%[3]s の出力契約で %[2]s を null にならないと宣言してください",
	}
}
