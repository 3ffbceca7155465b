package auth

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestParseOIDCErrors: each mistake in the oidc: block, and in a principal's oidc: and
// email:, is refused with file:line and the fix, in English and Japanese.
func TestParseOIDCErrors(t *testing.T) {
	const ada = "principals:\n  ada: {oidc: id1, roles: [viewer]}\n"
	cases := []struct {
		name, file string
		en, ja     string
	}{
		{"oidc not a mapping", "oidc: https://idp/\n" + ada,
			`p.yaml:1: oidc must be a mapping {issuer, client_id, client_secret_env, redirect_url, roles_claim, role_map}`,
			`p.yaml:1: oidc はマッピング {issuer, client_id, client_secret_env, redirect_url, roles_claim, role_map} にしてください`},
		{"no issuer", "oidc:\n  client_id: seam\n" + ada,
			`p.yaml:2: oidc has no issuer: put the provider's issuer URL there, e.g. https://accounts.example.com/`,
			`p.yaml:2: oidc に issuer がありません: プロバイダの issuer URL を指定してください（例: https://accounts.example.com/）`},
		{"no client_id", "oidc: {issuer: https://idp/}\n" + ada,
			`p.yaml:1: oidc has no client_id: register seam with the provider and put its client ID there`,
			`p.yaml:1: oidc に client_id がありません: seam をプロバイダに登録し、そのクライアント ID を指定してください`},
		{"unknown key", "oidc: {issuer: https://idp/, client_id: seam, secret: x}\n" + ada,
			`p.yaml:1: oidc: unknown key "secret": want issuer, client_id, client_secret_env, redirect_url, roles_claim or role_map`,
			`p.yaml:1: oidc: 不明なキー "secret": issuer、client_id、client_secret_env、redirect_url、roles_claim、role_map のいずれかです`},
		{"issuer not a string", "oidc: {issuer: [a], client_id: seam}\n" + ada,
			`p.yaml:1: oidc: issuer must be a string`,
			`p.yaml:1: oidc: issuer は文字列にしてください`},
		{"role_map not a mapping", "oidc: {issuer: https://idp/, client_id: seam, roles_claim: groups, role_map: [a]}\n" + ada,
			`p.yaml:1: oidc: role_map must map a claim's values to roles, e.g. {support-leads: [operator]}`,
			`p.yaml:1: oidc: role_map はクレームの値からロールへのマッピングにしてください（例: {support-leads: [operator]}）`},
		{"role_map value not a list", "oidc: {issuer: https://idp/, client_id: seam, roles_claim: groups, role_map: {sre: admin}}\n" + ada,
			`p.yaml:1: oidc: role_map "sre" must be a list of roles, e.g. [viewer]`,
			`p.yaml:1: oidc: role_map "sre" はロールのリストにしてください（例: [viewer]）`},
		{"role_map unknown role", "oidc:\n  issuer: https://idp/\n  client_id: seam\n  roles_claim: groups\n  role_map:\n    sre: [root]\n" + ada,
			`p.yaml:6: oidc: role_map "sre": unknown role "root": want one of viewer, operator, approver, admin`,
			`p.yaml:6: oidc: role_map "sre": 不明なロール "root": viewer, operator, approver, admin のいずれかを指定してください`},
		{"role_map without roles_claim", "oidc: {issuer: https://idp/, client_id: seam, role_map: {sre: [admin]}}\n" + ada,
			`p.yaml:1: oidc has a role_map but no roles_claim: name the claim whose values role_map maps, e.g. groups`,
			`p.yaml:1: oidc に role_map がありますが roles_claim がありません: role_map が対応付ける値を持つクレームを指定してください（例: groups）`},
		{"principal oidc empty", "principals:\n  ada: {oidc: \"\", roles: [viewer]}\n",
			`p.yaml:2: principal "ada": oidc must be the provider's subject (the ID token's sub), a string`,
			`p.yaml:2: プリンシパル "ada": oidc にはプロバイダのサブジェクト（ID トークンの sub）を文字列で指定してください`},
		{"principal email a list", "principals:\n  ada: {email: [a@b], roles: [viewer]}\n",
			`p.yaml:2: principal "ada": email must be an address the provider has verified, a string`,
			`p.yaml:2: プリンシパル "ada": email にはプロバイダが検証済みのアドレスを文字列で指定してください`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for lang, want := range map[i18n.Lang]string{i18n.English: c.en, i18n.Japanese: c.ja} {
				if _, err := Parse("p.yaml", []byte(c.file), lang); err == nil || err.Error() != want {
					t.Errorf("%s:\n got %v\nwant %s", lang, err, want)
				}
			}
		})
	}
}

// TestForClaims: the provider's claims map to a principal by subject first, then by an email
// the provider verified, then through role_map to "oidc:" and the email; nothing else maps.
func TestForClaims(t *testing.T) {
	s, err := Parse("p.yaml", []byte("oidc: {issuer: https://idp/, client_id: seam, roles_claim: groups, role_map: {sre: [admin], leads: [operator, approver], all: [viewer]}}\n"+
		"principals:\n"+
		"  ada: {oidc: sub-ada, roles: [operator]}\n"+
		"  bob: {email: Bob@Example.com, roles: [viewer], groups: [leads]}\n"+
		"  cy: {token_sha256: \""+hashA+"\", email: cy@example.com, roles: [admin]}\n"), i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		c     Claims
		who   string
		roles []Role
	}{
		{"subject", Claims{Subject: "sub-ada", Email: "bob@example.com", EmailVerified: true}, "ada", []Role{Operator}},
		{"verified email, any case", Claims{Subject: "x", Email: "bob@example.com", EmailVerified: true}, "bob", []Role{Viewer}},
		{"unverified email", Claims{Subject: "x", Email: "bob@example.com"}, "", nil},
		{"role_map", Claims{Subject: "x", Email: "dee@example.com", EmailVerified: true, Groups: []string{"leads", "all", "other"}}, "oidc:dee@example.com", []Role{Operator, Approver, Viewer}},
		{"role_map, unverified email", Claims{Subject: "x", Email: "dee@example.com", Groups: []string{"sre"}}, "oidc:x", []Role{Admin}},
		{"groups role_map does not know", Claims{Subject: "x", Groups: []string{"other"}}, "", nil},
		{"no subject", Claims{Email: "bob@example.com", EmailVerified: true}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := s.ForClaims(tc.c)
			switch {
			case tc.who == "" && p != nil:
				t.Errorf("mapped to %s, want nobody", p.Name)
			case tc.who != "" && (p == nil || p.Name != tc.who || !equalRoles(p.Roles, tc.roles)):
				t.Errorf("mapped to %+v, want %s %v", p, tc.who, tc.roles)
			}
		})
	}
	if p := s.Lookup(""); p != nil {
		t.Errorf("the empty token finds %s", p.Name)
	}
	if p := s.Lookup(tokA); p == nil || p.Name != "cy" {
		t.Errorf("cy's token finds %v", p)
	}
}

func equalRoles(a, b []Role) bool {
	return strings.Join(rolesOf(a), ",") == strings.Join(rolesOf(b), ",")
}

func rolesOf(rs []Role) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// TestDialOIDCErrors: a provider that does not answer at start, and a client secret variable
// that is empty, are refused naming the issuer or the variable (never a secret) and the fix.
func TestDialOIDCErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing answers there now
	for _, tc := range []struct {
		name string
		c    OIDCConfig
		en   string
		ja   string
	}{
		{"issuer does not answer", OIDCConfig{Issuer: closed, ClientID: "seam"},
			"oidc: the issuer " + closed + " does not answer its discovery document (",
			"oidc: issuer " + closed + " がディスカバリー文書に応答しません（"},
		{"secret variable empty", OIDCConfig{Issuer: closed, ClientID: "seam", ClientSecretEnv: "SEAM_TEST_SECRET"},
			"oidc: client_secret_env names SEAM_TEST_SECRET, which is empty: set it to the client secret the provider gave seam",
			"oidc: client_secret_env が指す SEAM_TEST_SECRET が空です: プロバイダが seam に発行したクライアントシークレットを設定してください"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[i18n.Lang]string{i18n.English: tc.en, i18n.Japanese: tc.ja} {
				_, err := DialOIDC(context.Background(), &tc.c, func(string) string { return "" }, lang)
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s: %v, want it to start %q", lang, err, want)
				}
			}
		})
	}
	_, err = DialOIDC(context.Background(), &OIDCConfig{Issuer: closed, ClientID: "seam"}, nil, i18n.English)
	if err == nil || !strings.Contains(err.Error(), "check issuer in the principals file and that the provider is reachable from here") {
		t.Errorf("the unreachable issuer's fix: %v", err)
	}
}
