package i18n

// jaLive is the Japanese of what `seam runs show` and the run pages say of running nodes and
// failed foreach items.
func jaLive() map[string]string {
	return map[string]string{
		"    item %d output: %s\n":     "    項目 %d の出力：%s\n",
		"    … %d more failed items\n": "    … ほかに失敗した項目が %d 件\n",
		"item %d output: %s\n":         "項目 %d の出力：%s\n",
	}
}
