package i18n

// jaTextWhen is the Japanese of what interpolation and lint's type checks of CEL expressions
// say: a value inside text that JSON cannot write, and an expression whose types cannot work.
func jaTextWhen() map[string]string {
	return map[string]string{
		// dag/ref.go: an object or an array inside text is written as JSON
		"cannot be written as JSON: %w": "JSON として書けません：%w",
	}
}
