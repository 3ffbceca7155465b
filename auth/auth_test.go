package auth

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

var (
	tokA, hashA = "token-of-alice-0123456789", Hash("token-of-alice-0123456789")
	tokB, hashB = "token-of-bob-0123456789", Hash("token-of-bob-0123456789")
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, file string
		en, ja     string
	}{
		{"not YAML", "principals:\n  alice: {roles: [viewer]}\n\tbob: {}\n",
			`p.yaml:3: the principals file does not parse: found character that cannot start any token: fix the YAML (docs/serve.md shows the format)`,
			`p.yaml:3: principals ファイルを解析できません: found character that cannot start any token: YAML を直してください（書式は docs/serve.md にあります）`},
		{"hash not hex", "principals:\n  alice: {token_sha256: \"abc\", roles: [viewer]}\n",
			`p.yaml:2: principal "alice": token_sha256 is not 64 hex digits: put the SHA-256 of the token there, as seam token new prints it`,
			`p.yaml:2: プリンシパル "alice": token_sha256 が 16 進数 64 桁ではありません: seam token new が表示するトークンの SHA-256 を書いてください`},
		{"hash 63 digits", "principals:\n  alice:\n    token_sha256: \"" + hashA[:63] + "\"\n    roles: [viewer]\n",
			`p.yaml:3: principal "alice": token_sha256 is not 64 hex digits: put the SHA-256 of the token there, as seam token new prints it`,
			`p.yaml:3: プリンシパル "alice": token_sha256 が 16 進数 64 桁ではありません: seam token new が表示するトークンの SHA-256 を書いてください`},
		{"unknown role", "principals:\n  alice:\n    token_sha256: \"" + hashA + "\"\n    roles: [viewer,\n      root]\n",
			`p.yaml:5: principal "alice": unknown role "root": want one of viewer, operator, approver, admin`,
			`p.yaml:5: プリンシパル "alice": 不明なロール "root": viewer, operator, approver, admin のいずれかを指定してください`},
		{"two with one hash", "principals:\n  alice: {token_sha256: \"" + hashA + "\", roles: [viewer]}\n  bob: {token_sha256: \"" + hashA + "\", roles: [admin]}\n",
			`p.yaml:3: principals "bob" and "alice" (line 2) have the same token_sha256: give each principal its own token (seam token new)`,
			`p.yaml:3: プリンシパル "bob" と "alice"（2 行目）の token_sha256 が同じです: プリンシパルごとに別のトークンを使ってください（seam token new）`},
		{"no roles", "principals:\n  alice: {token_sha256: \"" + hashA + "\"}\n",
			`p.yaml:2: principal "alice" has no roles: give it at least one of viewer, operator, approver, admin`,
			`p.yaml:2: プリンシパル "alice" にロールがありません: viewer, operator, approver, admin の少なくとも 1 つを与えてください`},
		{"no hash", "principals:\n  alice: {roles: [admin]}\n",
			`p.yaml:2: principal "alice" has no token_sha256: add the line seam token new prints`,
			`p.yaml:2: プリンシパル "alice" に token_sha256 がありません: seam token new が表示する行を追加してください`},
		{"unknown key", "principals:\n  alice: {token: \"x\", roles: [admin]}\n",
			`p.yaml:2: principal "alice": unknown key "token": want token_sha256, oidc, email, roles or groups`,
			`p.yaml:2: プリンシパル "alice": 不明なキー "token": token_sha256、oidc、email、roles、groups のいずれかです`},
		{"unknown top key", "users:\n  alice: {}\n",
			`p.yaml:1: unknown key "users": want principals or oidc`,
			`p.yaml:1: 不明なキー "users": principals か oidc を指定してください`},
		{"empty", "",
			`p.yaml: no principals: add one with the line seam token new NAME --role ROLE prints`,
			`p.yaml: プリンシパルがありません: seam token new NAME --role ROLE が表示する行で追加してください`},
		{"bad name", "principals:\n  \"os:root\": {token_sha256: \"" + hashA + "\", roles: [admin]}\n",
			`p.yaml:2: principal name "os:root": use letters, digits, '.', '_', '-' and '@' (':' is kept for os:USER)`,
			`p.yaml:2: プリンシパル名 "os:root": 英数字と '.'、'_'、'-'、'@' を使ってください（':' は os:USER 用です）`},
		{"roles not a list", "principals:\n  alice: {token_sha256: \"" + hashA + "\", roles: admin}\n",
			`p.yaml:2: principal "alice": roles must be a list, e.g. [viewer]`,
			`p.yaml:2: プリンシパル "alice": roles はリストにしてください（例: [viewer]）`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for lang, want := range map[i18n.Lang]string{i18n.English: c.en, i18n.Japanese: c.ja} {
				_, err := Parse("p.yaml", []byte(c.file), lang)
				if err == nil || err.Error() != want {
					t.Errorf("%s:\n got %v\nwant %s", lang, err, want)
				}
				if err != nil && (strings.Contains(err.Error(), hashA) || strings.Contains(err.Error(), hashA[:63])) {
					t.Errorf("the error shows a hash: %v", err)
				}
			}
		})
	}
}

func TestLookupAndRoles(t *testing.T) {
	s, err := Parse("p.yaml", []byte("principals:\n"+
		"  alice: {token_sha256: \""+hashA+"\", roles: [operator, approver], groups: [support-leads]}\n"+
		"  bob: {token_sha256: \""+strings.ToUpper(hashB)+"\", roles: [viewer]}\n"), i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		token string
		want  string // principal name, "" for none
		can   []Role
		not   []Role
	}{
		{tokA, "alice", []Role{Viewer, Operator, Approver}, []Role{Admin}},
		{tokB, "bob", []Role{Viewer}, []Role{Operator, Approver, Admin}},
		{"token-of-carol", "", nil, []Role{Viewer}},
		{"", "", nil, []Role{Viewer}},
		{tokA + " ", "", nil, []Role{Viewer}},
	}
	for _, c := range cases {
		p := s.Lookup(c.token)
		if got := ""; p != nil {
			got = p.Name
			if got != c.want {
				t.Errorf("Lookup(%q) = %q, want %q", c.token, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("Lookup(%q) = nil, want %q", c.token, c.want)
		}
		for _, r := range c.can {
			if !p.Can(r) {
				t.Errorf("%s cannot %s", c.want, r)
			}
		}
		for _, r := range c.not {
			if p.Can(r) {
				t.Errorf("%q can %s", c.want, r)
			}
		}
	}
	if g := s.Named("alice").Groups; len(g) != 1 || g[0] != "support-leads" {
		t.Errorf("alice's groups = %v", g)
	}
	admin := Single(TokenPrincipal, "the-shared-token-0123")
	if p := admin.Lookup("the-shared-token-0123"); p == nil || p.Name != "token" || !p.Can(Admin) || !p.Can(Approver) {
		t.Errorf("the token's principal = %+v, want admin named token", p)
	}
	if p := OS("ci", nil); p.Name != "os:ci" || !p.Can(Admin) {
		t.Errorf("OS = %+v", p)
	}
	if From(With(context.Background(), s.Named("bob"))).Name != "bob" {
		t.Error("the principal did not travel in the context")
	}
}

func TestBearer(t *testing.T) {
	cases := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer  abc ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer ", "", false},
		{"Bearerabc", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		if tok, ok := Bearer(c.header); tok != c.token || ok != c.ok {
			t.Errorf("Bearer(%q) = %q, %v; want %q, %v", c.header, tok, ok, c.token, c.ok)
		}
	}
}

// TestFileReload: a change is taken at the next look; an invalid version or a file gone
// keeps the last good one in force and logs why, once.
func TestFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "principals.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("principals:\n  alice: {token_sha256: \"" + hashA + "\", roles: [admin]}\n")
	var log bytes.Buffer
	f, err := Open(path, FileOptions{Lang: i18n.English, Log: slog.New(slog.NewTextHandler(&log, nil)), CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		change  func()
		alice   bool // alice's token finds her
		bob     bool
		logs    string // in the log after the step
		logsNot string
	}{
		{"unchanged", func() {}, true, false, "", ""},
		{"bob added, alice revoked", func() {
			write("principals:\n  bob: {token_sha256: \"" + hashB + "\", roles: [viewer]}\n")
		}, false, true, "read again: 1 principals", ""},
		{"invalid keeps bob", func() {
			write("principals:\n  bob: {token_sha256: \"" + hashB + "\", roles: [root]}\n")
		}, false, true, `principals file changed but cannot be used; the last good version stays in force: ` + path + `:2: principal`, hashB},
		{"file gone keeps bob", func() { os.Remove(path) }, false, true, "no such file or directory", ""},
		{"valid again", func() {
			write("principals:\n  alice: {token_sha256: \"" + hashA + "\", roles: [viewer]}\n")
		}, true, false, "read again: 1 principals", ""},
	}
	for _, st := range steps {
		log.Reset()
		st.change()
		s := f.Current()
		f.Current() // a second look logs nothing more
		if got := s.Lookup(tokA) != nil; got != st.alice {
			t.Errorf("%s: alice found = %v", st.name, got)
		}
		if got := s.Lookup(tokB) != nil; got != st.bob {
			t.Errorf("%s: bob found = %v", st.name, got)
		}
		if !strings.Contains(log.String(), st.logs) || strings.Count(log.String(), "\n") > 1 {
			t.Errorf("%s: log = %q, want once %q", st.name, log.String(), st.logs)
		}
		if st.logsNot != "" && strings.Contains(log.String(), st.logsNot) {
			t.Errorf("%s: log shows %q", st.name, st.logsNot)
		}
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(path, []byte("principals:\n  alice: {token_sha256: \""+hashA+"\", roles: [admin]}\n"), 0o600)
	cases := []struct {
		name string
		c    Config
		want string // the principal tokA or the token finds; "nil" for no source
		en   string
	}{
		{"none", Config{}, "nil", ""},
		{"token", Config{TokenVar: "SEAM_SERVE_TOKEN"}, "token", ""},
		{"file", Config{File: path}, "alice", ""},
		{"file from the environment", Config{TokenVar: "SEAM_NONE"}, "alice", ""},
		{"both", Config{File: path, TokenVar: "SEAM_MCP_TOKEN"}, "", "both a principals file (" + path + ") and SEAM_MCP_TOKEN are set: the file replaces the token; add the token's SHA-256 to the file as an admin principal, then unset SEAM_MCP_TOKEN"},
		{"missing file", Config{File: path + ".gone"}, "", "principals file: open " + path + ".gone: no such file or directory"},
	}
	env := map[string]string{"SEAM_SERVE_TOKEN": " the-shared-token-0123\n", "SEAM_MCP_TOKEN": "x"}
	for _, c := range cases {
		c.c.Getenv = func(k string) string { return env[k] }
		if c.name == "file from the environment" {
			env["SEAM_PRINCIPALS"] = path
		}
		src, err := Load(c.c)
		if c.en != "" {
			if err == nil || err.Error() != c.en {
				t.Errorf("%s: err = %v, want %s", c.name, err, c.en)
			}
			if src != nil {
				t.Errorf("%s: a source with the error", c.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.want == "nil":
			if src != nil {
				t.Errorf("%s: a source", c.name)
			}
		case src.Current().Lookup(tokA) != nil:
			if n := src.Current().Lookup(tokA).Name; n != c.want {
				t.Errorf("%s: %s", c.name, n)
			}
		case src.Current().Lookup("the-shared-token-0123") == nil || c.want != "token":
			t.Errorf("%s: nobody found", c.name)
		}
	}
}

func TestNewToken(t *testing.T) {
	tok, sum := NewToken()
	tok2, _ := NewToken()
	if !strings.HasPrefix(tok, "seam_") || len(tok) != 48 || tok == tok2 || sum != Hash(tok) || len(sum) != 64 {
		t.Errorf("NewToken = %q, %q", tok, sum)
	}
	if _, err := Parse("p", []byte("principals:\n  x: {token_sha256: "+sum+", roles: [viewer]}\n"), i18n.English); err != nil {
		t.Errorf("the hash does not parse: %v", err)
	}
}

func TestNewTokenText(t *testing.T) {
	cases := []struct {
		name  string
		roles []string
		lang  i18n.Lang
		line  string // the file line, up to the hash
		roleL string // its roles
		err   string
	}{
		{"ci-bot", []string{"operator"}, i18n.English, `  ci-bot: {token_sha256: "`, `roles: [operator]}`, ""},
		{"alice", nil, i18n.English, `  alice: {token_sha256: "`, `roles: [viewer]}`, ""},
		{"alice", []string{"operator", "approver"}, i18n.Japanese, `  alice: {token_sha256: "`, `roles: [operator, approver]}`, ""},
		{"bob", []string{"root"}, i18n.English, "", "", `--role "root": unknown role: want one of viewer, operator, approver, admin`},
		{"bob", []string{"root"}, i18n.Japanese, "", "", `--role "root": 不明なロールです: viewer, operator, approver, admin のいずれかを指定してください`},
		{"os:bob", nil, i18n.English, "", "", `principal name "os:bob": use letters, digits, '.', '_', '-' and '@'`},
	}
	for _, c := range cases {
		out, err := NewTokenText(c.name, c.roles, c.lang)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s %v: err = %v, want %s", c.name, c.roles, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		tok := strings.TrimSpace(lines[2])
		var fileLine string
		for _, l := range lines {
			if strings.HasPrefix(l, c.line) {
				fileLine = l
			}
		}
		if !strings.HasPrefix(tok, "seam_") || !strings.Contains(fileLine, Hash(tok)) || !strings.HasSuffix(fileLine, c.roleL) {
			t.Errorf("%s: token %q, line %q:\n%s", c.name, tok, fileLine, out)
		}
		s, err := Parse("p", []byte("principals:\n"+fileLine+"\n"), i18n.English)
		if err != nil || s.Lookup(tok) == nil || s.Lookup(tok).Name != c.name {
			t.Errorf("%s: the printed line does not let the token in: %v", c.name, err)
		}
	}
}
