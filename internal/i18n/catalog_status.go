package i18n

// jaStatus is the Japanese of conditions on an upstream's status (nodes.<id>.status): the
// engine's skip and lint's SEAM-E317.
func jaStatus() map[string]string {
	return map[string]string{
		"upstream %s %s: its output is not there":                                                                                         "上流のノード %s の状態: %s。その出力はありません",
		"${{ %s }} compares nodes.%s.status with %q, which is not a status (%s); did you mean %q?":                                        "${{ %s }} は nodes.%s.status を %q と比べていますが、これはノードの状態ではありません（%s）。%q のことですか？",
		"${{ %s }} compares nodes.%s.status with %q, which is not a status (%s)":                                                          "${{ %s }} は nodes.%s.status を %q と比べていますが、これはノードの状態ではありません（%s）",
		"compare with one of the statuses a node ends with; what %s's output says of itself (pass, warn, fail) is nodes.%s.output.status": "ノードが終わるときの状態のどれかと比べてください。%s の出力が自分について言う status（pass、warn、fail）は nodes.%s.output.status です",
	}
}
