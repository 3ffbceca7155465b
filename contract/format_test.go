package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// suiteDrafts are the JSON-Schema-Test-Suite's folders (testdata/json-schema-test-suite, a
// pinned copy) and the $schema of their draft.
var suiteDrafts = []struct{ dir, schema string }{
	{"draft4", "http://json-schema.org/draft-04/schema#"},
	{"draft6", "http://json-schema.org/draft-06/schema#"},
	{"draft7", "http://json-schema.org/draft-07/schema#"},
	{"draft2019-09", "https://json-schema.org/draft/2019-09/schema"},
	{"draft2020-12", "https://json-schema.org/draft/2020-12/schema"},
}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// formatsLeft are the suite's files whose cases seam does not all pass, and why: the test
// skips them, saying so.
var formatsLeft = map[string]string{
	// The library checks format regex with the pattern engine and lets no format replace it;
	// seam keeps RE2 wherever it compiles a pattern (contracts use (?i)), so RE2's extensions
	// ((?i), (?P<n>…), (?#…), \a) stay valid regexes.
	"ecmascript-regex": "RE2's extensions are accepted",
}

// TestFormatSuite: every format outside formatsLeft gives the JSON-Schema-Test-Suite's answer
// on each of its optional/format cases, in every draft.
func TestFormatSuite(t *testing.T) {
	for _, d := range suiteDrafts {
		files, err := filepath.Glob(filepath.Join("testdata", "json-schema-test-suite", d.dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no cases (%v)", d.dir, err)
		}
		c := newCompiler(t)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			format := strings.TrimSuffix(filepath.Base(f), ".json")
			if why, ok := formatsLeft[format]; ok {
				t.Logf("%s/%s skipped: %s", d.dir, format, why)
				continue
			}
			var groups []suiteGroup
			if err := json.Unmarshal(b, &groups); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, g := range groups {
				schema := parse(t, string(g.Schema)).(map[string]any)
				schema["$schema"] = d.schema
				name := d.dir + "/" + format + ": " + g.Description
				s, err := c.Inline(name, schema)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				for _, tc := range g.Tests {
					vs := s.Validate(parse(t, string(tc.Data)), i18n.English)
					if (len(vs) == 0) != tc.Valid {
						t.Errorf("%s: %s: %s: valid=%v, want %v", name, tc.Description, tc.Data, len(vs) == 0, tc.Valid)
					}
				}
			}
		}
	}
}

// TestURIReference: uri-reference and uri by RFC 3986, with the reason a value is refused.
func TestURIReference(t *testing.T) {
	tests := []struct {
		value    string
		absolute bool
		err      string
	}{
		{"not a uri", false, "the path holds a character RFC 3986 does not allow there"},
		{"../a/b?c=d#e", false, ""},
		{"//host:8080/p", false, ""},
		{"../a/b", true, "a URI needs a scheme (a relative reference is a uri-reference)"},
		{"1http://x", false, "the scheme is not a letter followed by letters, digits, +, - or ."},
		{"http://[::1]:80/", true, ""},
		{"http://[v1.x]/", true, ""},
		{"http://[zz]/", true, "the IP literal is neither an IPv6 address nor an IPvFuture"},
		{"http://a:b/", true, "the port is not a number"},
		{"http://a b/", true, "the host holds a character RFC 3986 does not allow there"},
		{"http://x/?a b", true, "the query holds a character RFC 3986 does not allow there"},
		{"http://x/#a b", true, "the fragment holds a character RFC 3986 does not allow there"},
		{"http://u@s@x/", true, "the host holds a character RFC 3986 does not allow there"},
		{"mailto:a@b.example", true, ""},
	}
	for _, tt := range tests {
		got := ""
		if err := uriReference(tt.value, tt.absolute); err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("uriReference(%q, %v) = %q, want %q", tt.value, tt.absolute, got, tt.err)
		}
	}
	c := newCompiler(t)
	s, err := c.Inline("ref", parse(t, `{"format": "uri-reference"}`))
	if err != nil {
		t.Fatal(err)
	}
	if vs := s.Validate("not a uri", i18n.English); len(vs) != 1 || vs[0].Message != "the output must be a valid uri-reference" {
		t.Errorf("not a uri: %v", vs)
	}
}
