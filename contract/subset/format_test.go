package subset

import (
	"encoding/json"
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
