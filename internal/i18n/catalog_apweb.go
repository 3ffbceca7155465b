package i18n

// jaApweb is the Japanese of the web view's approvals: the form on a run's page and the
// "Waiting for you" page (serve/approval.go).
func jaApweb() map[string]string {
	return map[string]string{
		"Waiting for you":                  "あなたの回答待ち",
		"Waiting for an answer":            "回答待ち",
		"Evidence":                         "根拠",
		"Deadline":                         "期限",
		"Opened":                           "開始",
		"Comment":                          "コメント",
		"one per line":                     "1 行に 1 つ",
		"No approvals wait for you.":       "あなたの回答を待っている承認はありません。",
		"Approval":                         "承認",
		"%s: %q is not one of its choices": "%s: %q は選択肢のいずれでもありません",
		"%s: %q is not true or false":      "%s: %q は true でも false でもありません",
	}
}
