package i18n

// jaWild is the Japanese of the messages of contracts from the wild (issue 43): vendoring a
// catalog schema with what it refers to (contract/vendor.go).
func jaWild() map[string]string {
	return map[string]string{
		"%s lies outside every catalog folder": "%s はどのカタログフォルダーの中にもありません",
	}
}
