package auth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
)

// MaxFileSize caps a principals file (docs/limits.md).
const MaxFileSize = 1 << 20

// Parse reads a principals file's bytes; file names it in errors, which carry file:line and
// the fix, said in lang, and never a hash or a token.
//
//	principals:
//	  alice: {token_sha256: "<64 hex>", roles: [operator, approver], groups: [support-leads]}
func Parse(file string, data []byte, lang i18n.Lang) (*Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, i18n.Errorf(lang, "%s:%d: the principals file does not parse: %s: fix the YAML (docs/serve.md shows the format)", file, yamlLine(err), yamlReason(err))
	}
	if len(doc.Content) == 0 {
		return nil, i18n.Errorf(lang, "%s: no principals: add one with the line seam token new NAME --role ROLE prints", file)
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, i18n.Errorf(lang, "%s:%d: a principals file is a mapping with the key principals: see docs/serve.md", file, top.Line)
	}
	var list *yaml.Node
	s := &Set{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "principals":
			list = v
		case "oidc":
			c, err := parseOIDC(file, v, lang)
			if err != nil {
				return nil, err
			}
			s.oidc = c
		default:
			return nil, i18n.Errorf(lang, "%s:%d: unknown key %q: want principals or oidc", file, k.Line, k.Value)
		}
	}
	if list == nil || list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, i18n.Errorf(lang, "%s: no principals: add one with the line seam token new NAME --role ROLE prints", file)
	}
	if list.Kind != yaml.MappingNode {
		return nil, i18n.Errorf(lang, "%s:%d: principals must be a mapping of names to {token_sha256, roles, groups}", file, list.Line)
	}
	type seen struct {
		name string
		line int
	}
	first := map[[sha256.Size]byte]seen{} // who gave each hash first, and where
	for i := 0; i+1 < len(list.Content); i += 2 {
		k, v := list.Content[i], list.Content[i+1]
		e, err := parsePrincipal(file, k, v, lang)
		if err != nil {
			return nil, err
		}
		if s.Named(e.p.Name) != nil {
			return nil, i18n.Errorf(lang, "%s:%d: principal %q is named twice: give each principal its own name", file, k.Line, k.Value)
		}
		if o, ok := first[e.hash]; ok && e.hasHash {
			return nil, i18n.Errorf(lang, "%s:%d: principals %q and %q (line %d) have the same token_sha256: give each principal its own token (seam token new)", file, k.Line, e.p.Name, o.name, o.line)
		}
		if e.hasHash {
			first[e.hash] = seen{e.p.Name, k.Line}
		}
		s.list = append(s.list, e)
	}
	if len(s.list) == 0 {
		return nil, i18n.Errorf(lang, "%s: no principals: add one with the line seam token new NAME --role ROLE prints", file)
	}
	return s, nil
}

// parsePrincipal reads one principal, name k and body v.
func parsePrincipal(file string, k, v *yaml.Node, lang i18n.Lang) (entry, error) {
	name := k.Value
	if !validName(name) {
		return entry{}, i18n.Errorf(lang, "%s:%d: principal name %q: use letters, digits, '.', '_', '-' and '@' (':' is kept for os:USER)", file, k.Line, name)
	}
	if v.Kind != yaml.MappingNode {
		return entry{}, i18n.Errorf(lang, "%s:%d: principal %q must be a mapping {token_sha256, roles, groups}", file, v.Line, name)
	}
	e := entry{p: &Principal{Name: name}}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]
		switch key.Value {
		case "token_sha256":
			b, err := hex.DecodeString(val.Value)
			if val.Kind != yaml.ScalarNode || err != nil || len(b) != sha256.Size {
				return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: token_sha256 is not 64 hex digits: put the SHA-256 of the token there, as seam token new prints it", file, val.Line, name)
			}
			copy(e.hash[:], b)
			e.hasHash = true
		case "oidc":
			if val.Kind != yaml.ScalarNode || val.Value == "" {
				return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: oidc must be the provider's subject (the ID token's sub), a string", file, val.Line, name)
			}
			e.subject = val.Value
		case "email":
			if val.Kind != yaml.ScalarNode || val.Value == "" {
				return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: email must be an address the provider has verified, a string", file, val.Line, name)
			}
			e.email = val.Value
		case "roles", "groups":
			if val.Kind != yaml.SequenceNode {
				return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: %s must be a list, e.g. [viewer]", file, val.Line, name, key.Value)
			}
			for _, item := range val.Content {
				if key.Value == "groups" {
					e.p.Groups = append(e.p.Groups, item.Value)
					continue
				}
				r, ok := ParseRole(item.Value)
				if !ok {
					return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: unknown role %q: want one of %s", file, item.Line, name, item.Value, roleNames)
				}
				e.p.Roles = append(e.p.Roles, r)
			}
		default:
			return entry{}, i18n.Errorf(lang, "%s:%d: principal %q: unknown key %q: want token_sha256, oidc, email, roles or groups", file, key.Line, name, key.Value)
		}
	}
	if !e.hasHash && e.subject == "" && e.email == "" {
		return entry{}, i18n.Errorf(lang, "%s:%d: principal %q has no token_sha256: add the line seam token new prints", file, k.Line, name)
	}
	if len(e.p.Roles) == 0 {
		return entry{}, i18n.Errorf(lang, "%s:%d: principal %q has no roles: give it at least one of %s", file, k.Line, name, roleNames)
	}
	return e, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlLine is the line a yaml.v3 parse error names, else 1.
func yamlLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

// yamlReason is a yaml.v3 parse error without its "yaml: line N: " prefix.
func yamlReason(err error) string {
	msg := yamlLineRE.ReplaceAllString(err.Error(), "")
	return strings.TrimPrefix(msg, "yaml: ")
}

// DefaultCheckEvery is how often a File looks whether its file changed.
const DefaultCheckEvery = time.Second

// File is a principals file in force: read at Open, and read again, at most once every
// CheckEvery, when a request asks for the principals and the file's bytes changed. A new
// version that is invalid (or a file that went away) keeps the last good one in force, and
// the reason is logged once per version.
type File struct {
	path  string
	lang  i18n.Lang
	log   *slog.Logger
	every time.Duration

	mu      sync.Mutex
	cur     *Set
	digest  [sha256.Size]byte // of the bytes cur was read from
	bad     string            // the last reason logged, not logged again
	checked time.Time
}

// FileOptions configure Open.
type FileOptions struct {
	// Lang says the errors and the log lines.
	Lang i18n.Lang
	// Log receives why a changed file was not taken; nil discards it.
	Log *slog.Logger
	// CheckEvery is how often the file is looked at again; 0 is DefaultCheckEvery, a
	// negative value every time the principals are asked for (tests).
	CheckEvery time.Duration
}

// Open reads the principals file at path; an unreadable or invalid file is an error.
func Open(path string, opts FileOptions) (*File, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.CheckEvery == 0 {
		opts.CheckEvery = DefaultCheckEvery
	}
	f := &File{path: path, lang: opts.Lang, log: opts.Log, every: opts.CheckEvery}
	data, err := f.read()
	if err != nil {
		return nil, err
	}
	if f.cur, err = Parse(path, data, opts.Lang); err != nil {
		return nil, err
	}
	f.digest, f.checked = sha256.Sum256(data), time.Now()
	return f, nil
}

func (f *File) read() ([]byte, error) {
	h, err := os.Open(f.path)
	if err != nil {
		return nil, i18n.Errorf(f.lang, "principals file: %w", err)
	}
	defer h.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(h, MaxFileSize+1)); err != nil {
		return nil, i18n.Errorf(f.lang, "principals file %s: %w", f.path, err)
	}
	if buf.Len() > MaxFileSize {
		return nil, i18n.Errorf(f.lang, "principals file %s is larger than %d bytes: keep one line per principal", f.path, MaxFileSize)
	}
	return buf.Bytes(), nil
}

// Current is the set in force, after reading the file again when it is due.
func (f *File) Current() *Set {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if f.every > 0 && now.Sub(f.checked) < f.every {
		return f.cur
	}
	f.checked = now
	data, err := f.read()
	if err == nil {
		d := sha256.Sum256(data)
		if d == f.digest {
			return f.cur
		}
		var s *Set
		if s, err = Parse(f.path, data, f.lang); err == nil {
			f.cur, f.digest, f.bad = s, d, ""
			f.log.Info(i18n.Sprintf(f.lang, "principals file %s read again: %d principals", f.path, s.Len()))
			return f.cur
		}
	}
	if why := err.Error(); why != f.bad {
		f.bad = why
		f.log.Warn(i18n.Sprintf(f.lang, "principals file changed but cannot be used; the last good version stays in force: %v", err))
	}
	return f.cur
}

// Config says where a front end's principals come from.
type Config struct {
	// File is the principals file (--principals); "" reads $SEAM_PRINCIPALS.
	File string
	// TokenVar names the variable of the one shared token of before principals files
	// ($SEAM_SERVE_TOKEN, $SEAM_MCP_TOKEN), which stands for an admin named "token".
	TokenVar string
	// Getenv reads $SEAM_PRINCIPALS and TokenVar.
	Getenv func(string) string
	FileOptions
}

// Load is the Source of c: the principals file, else the token's one admin principal, else
// nil (nobody is asked who they are). A file and a token both set is an error: the file
// replaces the token.
func Load(c Config) (Source, error) {
	if c.File == "" {
		c.File = c.Getenv("SEAM_PRINCIPALS")
	}
	token := strings.TrimSpace(c.Getenv(c.TokenVar))
	switch {
	case c.File != "" && token != "":
		return nil, i18n.Errorf(c.Lang, "both a principals file (%s) and %s are set: the file replaces the token; add the token's SHA-256 to the file as an admin principal, then unset %s", c.File, c.TokenVar, c.TokenVar)
	case c.File != "":
		f, err := Open(c.File, c.FileOptions)
		if err != nil {
			return nil, err // not a nil *File in a Source
		}
		return f, nil
	case token != "":
		return Single(TokenPrincipal, token), nil
	}
	return nil, nil
}

// IsFile reports whether src is a principals file (rather than a shared token or nobody).
func IsFile(src Source) bool {
	_, ok := src.(*File)
	return ok
}
