package i18n

// jaNear is the Japanese of lint's "did you mean" for a reference to a member its producer
// does not declare, and of a foreach item's undeclared member.
func jaNear() map[string]string {
	return map[string]string{
		"%s; did you mean %s?": "%s。%s のことですか？",
		"write %s, or %s":      "%s と書くか、%s",
		"item.%s: the elements of %s's foreach list do not declare %s (they allow other fields, so it may be there)": "item.%s: %s の foreach リストの要素は %s を宣言していません（ほかのフィールドを許しているので、あるかもしれません）",
		"declare it where the list comes from, or correct the reference.":                                            "リストの出どころで宣言するか、参照を直してください。",
	}
}
