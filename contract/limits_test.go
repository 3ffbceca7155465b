package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestNumberLimits: numbers within MaxNumberDigits and MaxNumberExponent parse as they are;
// beyond them ParseJSON, Normalize and CheckNumber refuse them with a NumberError that says
// where the number is and why.
func TestNumberLimits(t *testing.T) {
	accepted := []string{
		"0", "-0.0", "1e1000", "-1E-1000", "1e+1000", "1e0001000", "1E-0000000000000000000000001",
		"5e-324", "1.7976931348623157e308", "123456789012345678901234567890",
		strings.Repeat("9", MaxNumberDigits),
		"0." + strings.Repeat("3", MaxNumberDigits-1),
		"-1." + strings.Repeat("3", MaxNumberDigits-1) + "e-1000",
	}
	for _, n := range accepted {
		doc := `{"data":{"list":[0,` + n + `]}}`
		v, err := ParseJSON([]byte(doc))
		if err != nil {
			t.Errorf("ParseJSON(%.40s): %v", n, err)
			continue
		}
		if got := ValueAt(v, "/data/list/1"); got != json.Number(n) {
			t.Errorf("ParseJSON(%.40s) = %v", n, got)
		}
		if err := CheckNumber(json.Number(n)); err != nil {
			t.Errorf("CheckNumber(%.40s): %v", n, err)
		}
	}

	long := "1" + strings.Repeat("0", MaxNumberDigits)
	rejected := []struct {
		n, err, en, ja string
	}{
		{"1e1001", "number 1e1001 at offset 19 has an exponent beyond seam's limit of ±1000",
			"field 'data.list[1]' is a number beyond seam's limits: its exponent must be between -1000 and 1000",
			"フィールド 'data.list[1]' は seam の上限を超える数値です：指数は -1000 から 1000 の範囲である必要があります"},
		{"-1e-1001", "number -1e-1001 at offset 19 has an exponent", "", ""},
		{"1e-10000000", "number 1e-10000000 at offset 19 has an exponent", "", ""},
		{"1E+99999999999999999999999", "exponent beyond seam's limit", "", ""},
		{"0.5e1000000000000000000000000000000000000000", "exponent beyond seam's limit", "", ""},
		{long, fmt.Sprintf("number %s… at offset 19 has 1001 digits, more than seam's limit of 1000", long[:120]),
			"field 'data.list[1]' is a number beyond seam's limits: it must have at most 1000 digits, not 1001",
			"フィールド 'data.list[1]' は seam の上限を超える数値です：桁数は 1000 以下である必要がありますが、1001 桁あります"},
		{"-0." + strings.Repeat("0", MaxNumberDigits), "has 1001 digits", "", ""},
	}
	for _, tt := range rejected {
		doc := `{"data":{"list":[0,` + tt.n + `]},"status":"pass"}`
		v, err := ParseJSON([]byte(doc))
		var ne *NumberError
		if !errors.As(err, &ne) || v != nil {
			t.Errorf("ParseJSON(%.40s) = %v, %v; want a NumberError", tt.n, v, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrLimit) {
			t.Errorf("ParseJSON(%.40s): %v; want %q", tt.n, err, tt.err)
		}
		if ne.Pointer != "/data/list/1" || ne.Offset != 19 {
			t.Errorf("ParseJSON(%.40s): pointer %q offset %d", tt.n, ne.Pointer, ne.Offset)
		}
		for _, l := range []struct{ lang, want string }{{"en", tt.en}, {"ja", tt.ja}} {
			vi := ParseViolation(err, i18n.Lang(l.lang))
			if vi.Pointer != "/data/list/1" || vi.Value != excerptText(tt.n) || vi.Keyword != "" {
				t.Errorf("ParseViolation(%.40s): %+v", tt.n, vi)
			}
			if l.want != "" && vi.Message != l.want {
				t.Errorf("ParseViolation(%.40s, %s) = %q, want %q", tt.n, l.lang, vi.Message, l.want)
			}
		}
		if err := CheckNumber(json.Number(tt.n)); !errors.Is(err, ErrLimit) {
			t.Errorf("CheckNumber(%.40s): %v", tt.n, err)
		}
		_, err = Normalize(map[string]any{"a": []any{json.Number(tt.n)}})
		if !errors.As(err, &ne) || ne.Pointer != "/a/0" || !strings.HasPrefix(err.Error(), `at "/a/0": number `) {
			t.Errorf("Normalize(%.40s): %v", tt.n, err)
		}
	}

	// The number itself as the document; the root is "the output".
	_, err := ParseJSON([]byte(" 1e1001"))
	if vi := ParseViolation(err, "en"); vi.Pointer != "" ||
		vi.Message != "the output is a number beyond seam's limits: its exponent must be between -1000 and 1000" {
		t.Errorf("root: %+v", vi)
	}
	// Other errors are not JSON, as before.
	_, err = ParseJSON([]byte(`{"a":1e}`))
	if vi := ParseViolation(err, "ja"); vi != NotJSON("ja") {
		t.Errorf("not JSON: %+v", vi)
	}
}

// TestSchemaNumberLimits: a schema holding a number beyond the limits does not compile, from a
// file or inline, instead of compiling with the keyword silently dropped.
func TestSchemaNumberLimits(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": `{"properties":{"n":{"maximum":1e-10000000}}}`})
	path := filepath.Join(dir, "s.json")
	c := newCompiler(t)
	_, err := c.File(path)
	var se *SchemaError
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || se.Pointer != "/properties/n/maximum" ||
		err.Error() != "schema "+path+" at /properties/n/maximum: number 1e-10000000 at offset 30 has an exponent beyond seam's limit of ±1000" {
		t.Errorf("file: %v", err)
	}
	_, err = c.Inline("inline", map[string]any{"maximum": json.Number("1e-10000000")})
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || se.Pointer != "/maximum" {
		t.Errorf("inline: %v", err)
	}
}

func newCompiler(t *testing.T) *Compiler {
	t.Helper()
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nest is a schema whose items nest depth levels below it.
func nest(depth int) any {
	var v any = map[string]any{"type": "string"}
	for range depth {
		v = map[string]any{"items": v}
	}
	return v
}

// TestSchemaLimits: a schema nested past MaxSchemaDepth or holding more than MaxSubschemas
// (with the files it refers to) does not compile; one at the limits does.
func TestSchemaLimits(t *testing.T) {
	c := newCompiler(t)
	if _, err := c.Inline("at the depth limit", nest(MaxSchemaDepth)); err != nil {
		t.Errorf("depth %d: %v", MaxSchemaDepth, err)
	}
	_, err := c.Inline("too deep", nest(MaxSchemaDepth+1))
	var se *SchemaError
	ptr := strings.Repeat("/items", MaxSchemaDepth+1)
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || se.Pointer != ptr || se.Location != "too deep" ||
		err.Error() != "schema too deep at "+ptr+": beyond seam's limits: subschemas nest more than 64 levels deep" {
		t.Errorf("depth %d: %v", MaxSchemaDepth+1, err)
	}

	// Subschemas in every schema position count: properties, lists, single ones, booleans.
	wide := func(n int) map[string]any {
		props := make(map[string]any, n)
		for i := range n {
			props[fmt.Sprintf("p%05d", i)] = true
		}
		return map[string]any{"properties": props}
	}
	if _, err := c.Inline("at the size limit", wide(MaxSubschemas-1)); err != nil { // and the schema itself
		t.Errorf("size %d: %v", MaxSubschemas, err)
	}
	_, err = c.Inline("too large", wide(MaxSubschemas))
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || se.Pointer != fmt.Sprintf("/properties/p%05d", MaxSubschemas-1) ||
		!strings.HasSuffix(err.Error(), ": beyond seam's limits: more than 12000 subschemas (with the files it refers to)") {
		t.Errorf("size %d: %v", MaxSubschemas+1, err)
	}
	// A hostile schema, 200,000 subschemas, is refused by counting, before it is compiled.
	_, err = c.Inline("hostile", wide(200_000))
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || se.Location != "hostile" {
		t.Errorf("hostile: %v", err)
	}
	// Data is no schema: a large enum counts as one subschema.
	enum := make([]any, 2*MaxSubschemas)
	for i := range enum {
		enum[i] = map[string]any{"v": json.Number(fmt.Sprint(i))}
	}
	if _, err := c.Inline("large enum", map[string]any{"enum": enum, "not": map[string]any{"const": enum[0]}}); err != nil {
		t.Errorf("enum: %v", err)
	}

	// The files a schema refers to count with it; each file is counted once per compiler.
	b, err := json.Marshal(wide(MaxSubschemas / 2))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"a.json":    string(b),
		"b.json":    string(b),
		"both.json": `{"allOf":[{"$ref":"a.json"},{"$ref":"b.json"}]}`,
		"one.json":  `{"$ref":"a.json"}`,
	})
	_, err = c.File(filepath.Join(dir, "both.json"))
	if !errors.As(err, &se) || !errors.Is(err, ErrLimit) || !strings.HasSuffix(se.Location, "b.json") {
		t.Errorf("refs: %v", err)
	}
	if _, err := c.File(filepath.Join(dir, "one.json")); err != nil {
		t.Errorf("a.json, loaded before: %v", err)
	}
}

// TestLimitsJapanese: a number or a schema beyond the limits says so in a language; Error
// says the English.
func TestLimitsJapanese(t *testing.T) {
	tests := []struct {
		err    *NumberError
		en, ja string
	}{
		{&NumberError{Number: "1e2000", Offset: 5}, "number 1e2000 at offset 5 has an exponent beyond seam's limit of ±1000",
			"数値 1e2000（オフセット 5）の指数が seam の上限 ±1000 を超えています"},
		{&NumberError{Number: "1e2000", Offset: -1}, "number 1e2000 has an exponent beyond seam's limit of ±1000",
			"数値 1e2000 の指数が seam の上限 ±1000 を超えています"},
		{&NumberError{Number: "12…", Offset: 0, Digits: 1001}, "number 12… at offset 0 has 1001 digits, more than seam's limit of 1000",
			"数値 12…（オフセット 0）は 1001 桁あり、seam の上限 1000 桁を超えています"},
		{&NumberError{Number: "12…", Offset: -1, Digits: 1001}, "number 12… has 1001 digits, more than seam's limit of 1000",
			"数値 12… は 1001 桁あり、seam の上限 1000 桁を超えています"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.en {
			t.Errorf("Error() = %q, want %q", got, tt.en)
		}
		if got := tt.err.In(i18n.Japanese); got != tt.ja {
			t.Errorf("In(ja) = %q, want %q", got, tt.ja)
		}
	}
	_, err := newCompiler(t).Inline("too deep", nest(MaxSchemaDepth+1))
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("too deep: %v", err)
	}
	le, ok := se.Err.(interface{ In(i18n.Lang) string })
	if !ok || le.In(i18n.Japanese) != "サブスキーマの入れ子が 64 段を超えています" {
		t.Errorf("too deep: %v", err)
	}
}
