package i18n

// jaOrigins is the Japanese of the web view's refusal of a request from another site.
func jaOrigins() map[string]string {
	return map[string]string{
		"a request from another site is refused: open seam's page and send the form from there": "別のサイトからのリクエストは拒否されます：seam のページを開き、そこからフォームを送信してください",
	}
}
