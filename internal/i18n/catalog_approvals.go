package i18n

// jaApprovals is the Japanese of the approval node type (nodes/approval.go).
func jaApprovals() map[string]string {
	return map[string]string{
		"must be a positive duration such as 30m or 24h, not %q": "30m や 24h のような正の期間で指定してください（%q ではありません）",
	}
}
