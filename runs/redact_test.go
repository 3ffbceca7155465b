package runs

import (
	"strings"
	"testing"
)

// TestRedact: whatever the shape of a store's location, what is shown holds no part of its
// password, which is "p@ss#w?rd" or another with the characters that end a URL's parts.
func TestRedact(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		secret   []string // the password's parts, none of which may be shown
	}{
		{".seam/seam.db", ".seam/seam.db", nil},
		{"/tmp/a b/seam.db", "/tmp/a b/seam.db", nil},
		{"postgres://u:secret@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable", []string{"secret"}},
		{"postgresql://u@h/db", "postgresql://u@h/db", nil},
		{"postgres://h/db", "postgres://h/db", nil},
		{"postgres://u@h/db?password=secret&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable", []string{"secret"}},
		{"POSTGRES://u:secret@h/db", "postgres://u:xxxxx@h/db", []string{"secret"}},
		{"postgres://u:sec%zzret@h/db", "postgres://u:xxxxx@h/db", []string{"sec", "zzret"}},
		{"postgres://u:p%40ss%23w%3Frd@h/db", "postgres://u:xxxxx@h/db", []string{"p%40ss", "w%3Frd"}},
		{"postgres://u:p@ss#w?rd@h/db", "postgres://u:xxxxx@h/db", []string{"p@ss", "ss#w", "w?rd", "rd@"}},
		{"postgres://u:p@ss#w?rd@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable", []string{"ss#w", "rd@"}},
		{"postgres://u:pa/ss@h/db", "postgres://u:xxxxx@h/db", []string{"pa/ss", "ss@"}},
		{"postgres://u:pa?ss@h/db", "postgres://u:xxxxx@h/db", []string{"pa?ss", "ss@"}},
		{"postgres://u:pa#ss@h/db", "postgres://u:xxxxx@h/db", []string{"pa#ss", "ss@"}},
		{"postgres://u:pa:ss@h/db", "postgres://u:xxxxx@h/db", []string{"pa:ss", "ss@"}},
		{"postgres://u:@h/db", "postgres://u:xxxxx@h/db", nil},
		{"postgres://u:secret@h/db?application_name=a@b", "postgres://u:xxxxx@b", []string{"secret"}}, // ambiguous: hide more
		{"postgres://u@h/db?password=pa#ss&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable", []string{"pa#ss", "#ss"}},
		{"postgres://u@h/db?password=pa&ss&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable", []string{"&ss&"}},
		{"postgres://u@h/db?sslmode=disable&password=p@ss#w?rd", "postgres://u@h/db?sslmode=disable&password=xxxxx", []string{"ss#w", "w?rd"}},
		{"postgres://u@h/db?PASSWORD=secret", "postgres://u@h/db?PASSWORD=xxxxx", []string{"secret"}},
		{"postgres://u@h/db?sslpassword=secret&sslmode=require", "postgres://u@h/db?sslpassword=xxxxx&sslmode=require", []string{"secret"}},
		{"postgres://u:one@h/db?password=two", "postgres://u:xxxxx@h/db?password=xxxxx", []string{"one", "two"}},
		{"host=h user=u password=p@ss#w?rd dbname=db", "host=h user=u password=xxxxx dbname=db", []string{"ss#w", "w?rd"}},
		{"host=h password='pa ss\\' wo' dbname=db", "host=h password=xxxxx dbname=db", []string{"pa ss", "wo'"}},
		{"host=h password=", "host=h password=xxxxx", nil},
	} {
		got := Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, part := range tt.secret {
			if strings.Contains(got, part) {
				t.Errorf("Redact(%q) = %q shows %q of the password", tt.in, got, part)
			}
		}
	}
}

// TestCheckLocation: a URL whose password a parser would cut (an unescaped @, /, ?, # in the
// user info; # or & in a password parameter) and a key=value connection string are refused
// before anything connects, by a message without the password; the others pass.
func TestCheckLocation(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{".seam/seam.db", ""},
		{"runs/host.db", ""},
		{"postgres://u:secret@h/db?sslmode=disable", ""},
		{"postgres://u:p%40ss%23w%3Frd@h/db", ""},
		{"postgres://u:pa&ss@h/db", ""}, // & is plain in the user info
		{"postgres://u@h/db?password=p%26ss", ""},
		{"postgres://u:p@ss#w?rd@h/db", "open store postgres://u:xxxxx@h/db: the password holds @, /, ?, # or & as it is, which a URL reads as the end of the password: write them as %40, %2F, %3F, %23 and %26"},
		{"postgres://u:pa/ss@h/db", "the password holds @, /, ?, # or &"},
		{"postgres://u:pa?ss@h/db", "the password holds @, /, ?, # or &"},
		{"postgres://u:pa#ss@h/db", "the password holds @, /, ?, # or &"},
		{"postgres://u@h/db?password=pa#ss", "the password holds @, /, ?, # or &"},
		{"postgres://u@h/db?password=pa&ss&sslmode=disable", "the password holds @, /, ?, # or &"},
		{"host=h user=u password=p@ss#w?rd dbname=db", "open store host=h user=u password=xxxxx dbname=db: this is a key=value connection string; give a PostgreSQL store as a postgres:// URL (postgres://USER:PASSWORD@HOST:PORT/DB)"},
		{"dbname=seam", "this is a key=value connection string"},
		{"postgres:/u:pass-ss@h/db", "open store: the location starts with postgres: but not postgres://, so it is no PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DB"},
		{"PostgreSQL:u:pass-ss@h/db", "starts with PostgreSQL: but not PostgreSQL://"},
	} {
		err := checkLocation(tt.in, "")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("checkLocation(%q): %v, want nil", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("checkLocation(%q): %v, want %q", tt.in, err, tt.want)
		case err != nil && containsAny(err.Error(), "ss#", "/ss", "?ss", "#ss", "&ss&", "w?rd", "pass-ss"):
			t.Errorf("checkLocation(%q): %v shows the password", tt.in, err)
		}
	}
}

func containsAny(s string, parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
