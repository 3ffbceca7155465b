package i18n

// jaTappr is the Japanese of approvals on the Temporal engine (temporal/approval.go).
func jaTappr() map[string]string {
	return map[string]string{
		"answer approval %s of run %s on Temporal: %w": "Temporal 上の実行 %[2]s の承認 %[1]s に回答: %[3]w",
	}
}
