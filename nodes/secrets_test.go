package nodes

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestMaskForms checks each form in which a service or an encoder echoes a secret: every one
// is masked, so the secret's distinctive part ("t0k") is gone and Masked stands in its place.
func TestMaskForms(t *testing.T) {
	tests := []struct {
		name, secret, text string
	}{
		{"raw", "t0k-plain", `got t0k-plain`},
		{`JSON \/ (PHP, some Java)`, "t0k/slash", `{"k":"t0k\/slash"}`},
		{"JSON HTML-escaped (Go)", "t0k<&>html", `{"k":"t0k\u003c\u0026\u003ehtml"}`},
		{"JSON HTML raw (JavaScript, Python)", "t0k<&>html", `{"k":"t0k<&>html"}`},
		{`JSON \" and \\`, `t0k"q\b`, `{"k":"t0k\"q\\b"}`},
		{"JSON non-ASCII escaped (Python)", "t0kpässwörd", `{"k":"t0kp\u00e4ssw\u00f6rd"}`},
		{"JSON non-ASCII escaped, upper-case hex (Java)", "t0kpässwörd", `{"k":"t0kp\u00E4ssw\u00F6rd"}`},
		{"JSON non-ASCII raw (Go, JavaScript)", "t0kpässwörd", `{"k":"t0kpässwörd"}`},
		{"JSON surrogate pair", "t0k😀emoji", `{"k":"t0k\ud83d\ude00emoji"}`},
		{`JSON \/ and non-ASCII escaped (PHP's default)`, "t0k/ü", `{"k":"t0k\/\u00fc"}`},
		{`JSON \/ and HTML-escaped`, "t0k/<x>", `{"k":"t0k\/\u003cx\u003e"}`},
		{"JSON control characters", "t0k\n\x01end", `{"k":"t0k\n\u0001end"}`},
		{"JSON U+2028 (Go escapes it always)", "t0k\u2028ls", `{"k":"t0k\u2028ls"}`},
		{"Go %q", "t0k\x01\"q", `error: "t0k\x01\"q"`},
		{"URL query", "t0k w/+?", `/x?k=t0k+w%2F%2B%3F`},
		{"URL path", "t0k w:@", `/x/t0k%20w:@`},
		{"URL every reserved byte escaped", "t0k:@$", `/x/t0k%3A%40%24`},
		{"URL encodeURIComponent", "t0k (x)!", `/x?k=t0k%20(x)!`},
		{"URL lower-case hex", "t0k/:x", `/x?k=t0k%2f%3ax`},
		{"URL value escaped already, decoded", "t0k%2Fx%20y", `/x/t0k/x y`},
		{"URL value escaped already, as is", "t0k%2Fx", `/x/t0k%2Fx`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MaskString(tt.text, []string{tt.secret})
			if strings.Contains(got, "t0k") || !strings.Contains(got, Masked) {
				t.Errorf("MaskString(%q) = %q", tt.text, got)
			}
		})
	}
}

// TestMaskBase64: a long secret is masked inside base64 text wherever it starts in it (the
// three byte offsets of a group), standard and URL alphabets, as in a Basic credential; what
// is left of the text holds no run of it that decodes to the secret.
func TestMaskBase64(t *testing.T) {
	const secret = "s3cr3t-t0ken-of-20b?>"
	for _, prefix := range []string{"", "u", "us", "user:"} {
		for _, suffix := range []string{"", "!", "!!"} {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				text := "Authorization: Basic " + enc.EncodeToString([]byte(prefix+secret+suffix))
				got := MaskString(text, []string{secret})
				if !strings.Contains(got, Masked) {
					t.Errorf("prefix %q suffix %q: %q not masked", prefix, suffix, text)
				}
				for _, f := range base64Forms(secret) {
					if strings.Contains(got, f) {
						t.Errorf("prefix %q suffix %q: %q still holds %q", prefix, suffix, got, f)
					}
				}
			}
		}
	}
	short := "short-1234" // under minBase64Secret: its base64 would mask look-alikes
	if text := base64.StdEncoding.EncodeToString([]byte(short)); MaskString(text, []string{short}) != text {
		t.Errorf("a short secret's base64 %q was masked", text)
	}
}

// TestMaskShortSecrets checks the documented minimum: a value under MinSecret bytes is not
// masked, in any form, and neither is a form of a longer one that would be that short.
func TestMaskShortSecrets(t *testing.T) {
	if got := MaskString("abc and a/b", []string{"abc", "a/b"}); got != "abc and a/b" {
		t.Errorf("short secrets masked: %q", got)
	}
	// "%41%42" decodes to "AB": too short to mask, though the value itself is long enough.
	if got := MaskString("AB %41%42", []string{"%41%42"}); got != "AB ***" {
		t.Errorf("got %q", got)
	}
	if got := MaskString("abcd", []string{"abcd"}); got != Masked {
		t.Errorf("a secret of MinSecret bytes: %q", got)
	}
}
