package auth

import (
	"context"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
)

// OIDCConfig is the oidc: block of a principals file: single sign-on for the web view
// through an OpenID provider (authorization code flow with PKCE).
//
//	oidc:
//	  issuer: https://accounts.example.com/
//	  client_id: seam
//	  client_secret_env: SEAM_OIDC_SECRET   # none: a public client (PKCE alone)
//	  redirect_url: https://seam.example.com/login/oidc/callback   # none: from the request
//	  roles_claim: groups
//	  role_map: {support-leads: [operator], sre: [admin]}
type OIDCConfig struct {
	Issuer          string
	ClientID        string
	ClientSecretEnv string
	RedirectURL     string
	RolesClaim      string
	RoleMap         map[string][]Role
}

// Claims are what the provider says of a person, from the ID token (and its userinfo
// endpoint for what the ID token leaves out).
type Claims struct {
	Subject       string
	Email         string
	EmailVerified bool
	// Groups are the values of the roles_claim.
	Groups []string
}

// parseOIDC reads the oidc: block v.
func parseOIDC(file string, v *yaml.Node, lang i18n.Lang) (*OIDCConfig, error) {
	if v.Kind != yaml.MappingNode {
		return nil, i18n.Errorf(lang, "%s:%d: oidc must be a mapping {issuer, client_id, client_secret_env, redirect_url, roles_claim, role_map}", file, v.Line)
	}
	c := &OIDCConfig{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]
		str := map[string]*string{"issuer": &c.Issuer, "client_id": &c.ClientID, "client_secret_env": &c.ClientSecretEnv,
			"redirect_url": &c.RedirectURL, "roles_claim": &c.RolesClaim}
		if p, ok := str[key.Value]; ok {
			if val.Kind != yaml.ScalarNode {
				return nil, i18n.Errorf(lang, "%s:%d: oidc: %s must be a string", file, val.Line, key.Value)
			}
			*p = val.Value
			continue
		}
		if key.Value != "role_map" {
			return nil, i18n.Errorf(lang, "%s:%d: oidc: unknown key %q: want issuer, client_id, client_secret_env, redirect_url, roles_claim or role_map", file, key.Line, key.Value)
		}
		if val.Kind != yaml.MappingNode {
			return nil, i18n.Errorf(lang, "%s:%d: oidc: role_map must map a claim's values to roles, e.g. {support-leads: [operator]}", file, val.Line)
		}
		c.RoleMap = map[string][]Role{}
		for j := 0; j+1 < len(val.Content); j += 2 {
			group, roles := val.Content[j], val.Content[j+1]
			if roles.Kind != yaml.SequenceNode {
				return nil, i18n.Errorf(lang, "%s:%d: oidc: role_map %q must be a list of roles, e.g. [viewer]", file, roles.Line, group.Value)
			}
			for _, item := range roles.Content {
				r, ok := ParseRole(item.Value)
				if !ok {
					return nil, i18n.Errorf(lang, "%s:%d: oidc: role_map %q: unknown role %q: want one of %s", file, item.Line, group.Value, item.Value, roleNames)
				}
				c.RoleMap[group.Value] = append(c.RoleMap[group.Value], r)
			}
		}
	}
	switch {
	case c.Issuer == "":
		return nil, i18n.Errorf(lang, "%s:%d: oidc has no issuer: put the provider's issuer URL there, e.g. https://accounts.example.com/", file, v.Line)
	case c.ClientID == "":
		return nil, i18n.Errorf(lang, "%s:%d: oidc has no client_id: register seam with the provider and put its client ID there", file, v.Line)
	case c.RoleMap != nil && c.RolesClaim == "":
		return nil, i18n.Errorf(lang, "%s:%d: oidc has a role_map but no roles_claim: name the claim whose values role_map maps, e.g. groups", file, v.Line)
	}
	return c, nil
}

// OIDC is the set's oidc: block, or nil.
func (s *Set) OIDC() *OIDCConfig {
	if s == nil {
		return nil
	}
	return s.oidc
}

// ForClaims is the principal the provider's claims c stand for, or nil: first the principal
// whose oidc: is c's subject, then the one whose email: is c's email when the provider has
// verified it, else a principal named "oidc:" and the email (or subject) with the roles
// role_map gives the values of roles_claim, when it gives any.
func (s *Set) ForClaims(c Claims) *Principal {
	if s == nil || c.Subject == "" {
		return nil
	}
	for _, e := range s.list {
		if e.subject != "" && e.subject == c.Subject {
			return e.p
		}
	}
	if c.Email != "" && c.EmailVerified {
		for _, e := range s.list {
			if e.email != "" && strings.EqualFold(e.email, c.Email) {
				return e.p
			}
		}
	}
	if s.oidc == nil {
		return nil
	}
	var roles []Role
	for _, g := range c.Groups {
		for _, r := range s.oidc.RoleMap[g] {
			if !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
	}
	if len(roles) == 0 {
		return nil
	}
	name := c.Email
	if name == "" || !c.EmailVerified {
		name = c.Subject
	}
	return &Principal{Name: "oidc:" + name, Roles: roles, Groups: c.Groups}
}

// OIDC is a client of an OpenID provider, found by discovery at DialOIDC.
type OIDC struct {
	cfg      OIDCConfig
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	secret   string
	lang     i18n.Lang
}

// DialOIDC reads the discovery document of c's issuer; a provider that does not answer, or
// a client_secret_env that names an empty variable, is an error naming the issuer (never the
// secret) and the fix.
func DialOIDC(ctx context.Context, c *OIDCConfig, getenv func(string) string, lang i18n.Lang) (*OIDC, error) {
	o := &OIDC{cfg: *c, lang: lang}
	if c.ClientSecretEnv != "" {
		if o.secret = getenv(c.ClientSecretEnv); o.secret == "" {
			return nil, i18n.Errorf(lang, "oidc: client_secret_env names %s, which is empty: set it to the client secret the provider gave seam", c.ClientSecretEnv)
		}
	}
	p, err := oidc.NewProvider(ctx, c.Issuer)
	if err != nil {
		return nil, i18n.Errorf(lang, "oidc: the issuer %s does not answer its discovery document (%v): check issuer in the principals file and that the provider is reachable from here", c.Issuer, err)
	}
	o.provider = p
	o.verifier = p.Verifier(&oidc.Config{ClientID: c.ClientID})
	return o, nil
}

// oauth is the OAuth 2.0 client for redirect, the URL the provider sends the browser back to.
func (o *OIDC) oauth(redirect string) *oauth2.Config {
	if o.cfg.RedirectURL != "" {
		redirect = o.cfg.RedirectURL
	}
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	if o.cfg.RolesClaim != "" && !slices.Contains(scopes, o.cfg.RolesClaim) {
		scopes = append(scopes, o.cfg.RolesClaim) // providers commonly name the scope after the claim
	}
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.secret, Endpoint: o.provider.Endpoint(), RedirectURL: redirect, Scopes: scopes}
}

// AuthCodeURL is where to send the browser to log in: state and nonce are checked when it
// comes back, verifier is the PKCE secret whose S256 challenge the URL carries.
func (o *OIDC) AuthCodeURL(redirect, state, nonce, verifier string) string {
	return o.oauth(redirect).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
}

// Exchange trades code for tokens with the PKCE verifier, verifies the ID token (signature,
// issuer, audience, expiry) and its nonce, and returns its claims, completed from the
// userinfo endpoint when the ID token has no email.
func (o *OIDC) Exchange(ctx context.Context, redirect, code, verifier, nonce string) (Claims, error) {
	tok, err := o.oauth(redirect).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Claims{}, i18n.Errorf(o.lang, "oidc: the provider %s did not trade the code for tokens: %v", o.cfg.Issuer, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Claims{}, i18n.Errorf(o.lang, "oidc: the provider %s sent no ID token: ask for the openid scope", o.cfg.Issuer)
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		return Claims{}, i18n.Errorf(o.lang, "oidc: the ID token does not verify: %v", err)
	}
	if idt.Nonce != nonce {
		return Claims{}, i18n.Errorf(o.lang, "oidc: the ID token's nonce is not the one this login sent: log in again")
	}
	all := map[string]any{}
	if err := idt.Claims(&all); err != nil {
		return Claims{}, i18n.Errorf(o.lang, "oidc: the ID token's claims do not decode: %w", err)
	}
	if _, ok := all["email"]; !ok && o.provider.UserInfoEndpoint() != "" {
		ui, err := o.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return Claims{}, i18n.Errorf(o.lang, "oidc: the provider %s's userinfo: %v", o.cfg.Issuer, err)
		}
		if ui.Subject != idt.Subject { // OpenID Connect Core 5.3.2: else the answer is not about this person
			return Claims{}, i18n.Errorf(o.lang, "oidc: userinfo speaks of another subject than the ID token: log in again")
		}
		more := map[string]any{}
		if err := ui.Claims(&more); err != nil {
			return Claims{}, i18n.Errorf(o.lang, "oidc: the userinfo claims do not decode: %w", err)
		}
		for k, v := range more {
			if _, ok := all[k]; !ok {
				all[k] = v
			}
		}
	}
	c := Claims{Subject: idt.Subject}
	c.Email, _ = all["email"].(string)
	c.EmailVerified, _ = all["email_verified"].(bool)
	switch g := all[o.cfg.RolesClaim].(type) {
	case string:
		c.Groups = []string{g}
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				c.Groups = append(c.Groups, s)
			}
		}
	}
	return c, nil
}

// ForUser is the principal an authenticating proxy's user header names, or nil: the one so
// named, else the one whose email: is user (the proxy has verified it).
func (s *Set) ForUser(user string) *Principal {
	if p := s.Named(user); p != nil || user == "" {
		return p
	}
	for _, e := range s.list {
		if e.email != "" && strings.EqualFold(e.email, user) {
			return e.p
		}
	}
	return nil
}
