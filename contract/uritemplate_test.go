package contract

import "testing"

// TestURITemplate: RFC 6570 templates, GitHub's among them (operators / and ? after a path),
// validate; what is no template fails.
func TestURITemplate(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Inline("t", map[string]any{"type": "string", "format": "uri-template"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		v     string
		valid bool
	}{
		{"https://api.github.com/repos/o/r/{archive_format}{/ref}", true},
		{"https://api.github.com/notifications{?since,all,participating}", true},
		{"https://api.github.com/repos/o/r/issues{/number}", true},
		{"https://api.github.com/users/u/starred{/owner}{/repo}", true},
		{"{+path:6}/here{#frag*}{;x,y}{&a.b}", true},
		{"/plain/path%20x", true},
		{"", true},
		{"https://x/{", false},
		{"https://x/}", false},
		{"https://x/{}", false},
		{"https://x/{?}", false},
		{"https://x/{a b}", false},
		{"https://x/{a:0}", false},
		{"https://x/{a:10000}", false},
		{"https://x/{a..b}", false},
		{"https://x/%zz", false},
		{"https://x/a b", false},
	} {
		vs := s.Validate(tt.v, "en")
		if (len(vs) == 0) != tt.valid {
			t.Errorf("%q: violations %v, want valid %v", tt.v, vs, tt.valid)
		}
	}
}
