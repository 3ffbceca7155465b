package contract

import (
	"fmt"
	"strings"
)

// ResolveLang picks the message language: flag when set, else $SEAM_LANG, else the locale
// ($LC_ALL, $LC_MESSAGES, $LANG, the first one set: ja_JP.UTF-8 means ja, anything else en).
// An unknown flag or SEAM_LANG value is an error.
func ResolveLang(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return supported(flag)
	}
	if v := getenv("SEAM_LANG"); v != "" {
		return supported(v)
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		// ja, ja_JP, ja_JP.UTF-8, ja-JP
		if v == "ja" || strings.HasPrefix(v, "ja_") || strings.HasPrefix(v, "ja.") || strings.HasPrefix(v, "ja-") {
			return "ja", nil
		}
		return "en", nil
	}
	return "en", nil
}

func supported(lang string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(lang)); l {
	case "en", "ja":
		return l, nil
	}
	return "", fmt.Errorf("unsupported language %q (want en or ja)", lang)
}

// NotJSON is the violation of an output that does not parse as JSON.
func NotJSON(lang string) Violation {
	return Violation{Message: newPrinter(lang, wholeOutput).notJSON()}
}
