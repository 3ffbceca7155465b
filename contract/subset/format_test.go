package subset

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// TestAnnotateFormat checks both readings of format: asserted by default (validation rejects
// a string of another format, and Check treats format as a constraint), an annotation under
// contract.Options.AnnotateFormat (neither does).
func TestAnnotateFormat(t *testing.T) {
	const (
		free     = `{"type":"string"}`
		dateTime = `{"type":"string","format":"date-time"}`
	)
	tests := []struct {
		annotate   bool
		violations int
		verdict    Verdict
	}{
		{false, 1, Incompatible},
		{true, 0, Compatible},
	}
	for _, tt := range tests {
		c, err := contract.NewCompiler(contract.Options{AnnotateFormat: tt.annotate})
		if err != nil {
			t.Fatal(err)
		}
		compile := func(src string) *contract.Schema {
			var v any
			if err := json.Unmarshal([]byte(src), &v); err != nil {
				t.Fatal(err)
			}
			s, err := c.Inline("test", v)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		a, b := compile(free), compile(dateTime)
		if vs := b.Validate("yesterday", "en"); len(vs) != tt.violations {
			t.Errorf("annotate %t: violations %v, want %d", tt.annotate, vs, tt.violations)
		}
		if r := Check(a, b); r.Verdict != tt.verdict {
			t.Errorf("annotate %t: Check = %+v, want %v", tt.annotate, r, tt.verdict)
		}
		var src any = map[string]any{"type": "string"}
		if r := CheckSource(src, b, func() (*contract.Schema, error) { return a, nil }); r.Verdict != tt.verdict {
			t.Errorf("annotate %t: CheckSource = %+v, want %v", tt.annotate, r, tt.verdict)
		}
		// A producer that only annotates format may produce any string: it does not fit
		// a consumer that asserts it.
		if tt.annotate {
			asserting, err := contract.NewCompiler(contract.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var v any
			_ = json.Unmarshal([]byte(dateTime), &v)
			strict, err := asserting.Inline("strict", v)
			if err != nil {
				t.Fatal(err)
			}
			if r := Check(b, strict); r.Verdict != Incompatible {
				t.Errorf("annotated date-time into asserted date-time: %+v, want incompatible", r)
			}
		}
	}
}

// TestFormatLanguages checks that every string the validator takes as a format is in the
// language formatLanguage gives it: strings near the format's own (each character replaced,
// removed or doubled, and random ones of its alphabet) that pass the format match the
// pattern.
func TestFormatLanguages(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 29))
	for _, f := range []string{"date", "uuid"} {
		re := regexp.MustCompile(formatLanguage(f))
		c := &checker{assumed: map[string]int{}}
		const alphabet = "0123456789-+ :aAfFgT.Z\u0660"
		var cands []string
		for _, w := range formatSamples(f) {
			cands = append(cands, w)
			rs := []rune(w)
			for i := range rs {
				for _, r := range alphabet {
					cands = append(cands, string(rs[:i])+string(r)+string(rs[i+1:]), string(rs[:i])+string(r)+string(rs[i:]))
				}
				cands = append(cands, string(rs[:i])+string(rs[i+1:]))
			}
		}
		for range 20000 {
			b := make([]rune, rnd.IntN(40))
			for i := range b {
				b[i] = []rune(alphabet)[rnd.IntN(len([]rune(alphabet)))]
			}
			cands = append(cands, string(b))
		}
		valid := 0
		for _, w := range cands {
			if c.formatOK(f, w) == yes {
				valid++
				if !re.MatchString(w) {
					t.Errorf("%s: %q is valid but outside %s", f, w, re)
				}
			}
		}
		if valid < 10 {
			t.Errorf("%s: only %d valid strings tried", f, valid)
		}
	}
}
