package contract

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestSpecTable checks the specification's table (reference/contracts) against the standard
// output contract and a declared contract, message for message.
func TestSpecTable(t *testing.T) {
	c, err := NewCompiler(Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	declared := inline(t, c, `{"properties": {
		"score": {"type": "number", "maximum": 1.0},
		"items": {"type": "array", "minItems": 1},
		"metadata": {"type": "object", "required": ["cost"]}}}`)
	eff, err := c.Effective(c.Standard(), declared)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		value  string
		en, ja string
	}{
		{`{"summary": "s"}`, "missing required field: status", "必須フィールドがありません：status"},
		{`{"status": 42, "summary": "s"}`, "field 'status' must be a string, got number", "フィールド 'status' は文字列が必要ですが、数値が指定されています"},
		{`{"status": "maybe", "summary": "s"}`, "field 'status' must be one of: pass, warn, fail", "フィールド 'status' は次のいずれかである必要があります：pass、warn、fail"},
		{`{"status": "pass", "summary": ""}`, "field 'summary' must have minLength 1", "フィールド 'summary' は minLength 1 以上である必要があります"},
		{`{"status": "pass", "summary": "s", "score": 1.5}`, "field 'score' must be ≤ 1.0", "フィールド 'score' は ≤ 1.0 である必要があります"},
		{`{"status": "pass", "summary": "s", "items": []}`, "field 'items' needs at least 1 item", "フィールド 'items' には少なくとも 1 つの項目が必要です"},
		{`{"status": "pass", "summary": "s", "metadata": {}}`, "field 'metadata.cost' is required", "フィールド 'metadata.cost' は必須です"},
	}
	for _, tt := range tests {
		v := parse(t, tt.value)
		for lang, want := range map[string]string{"en": tt.en, "ja": tt.ja} {
			got := eff.Validate(v, i18n.Lang(lang))
			if len(got) != 1 || got[0].Message != want {
				t.Errorf("%s %s: got %+v, want one violation %q", lang, tt.value, got, want)
			}
		}
	}
	for lang, want := range map[string]string{"en": "output is not valid JSON", "ja": "出力は有効な JSON ではありません"} {
		if got := NotJSON(i18n.Lang(lang)); got != (Violation{Message: want}) {
			t.Errorf("NotJSON(%s) = %+v, want message %q", lang, got, want)
		}
	}
}

// TestOrder: required, then types, then constraints of the root's fields; then the same one
// level down, and so on.
func TestOrder(t *testing.T) {
	c, err := NewCompiler(Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	declared := inline(t, c, `{"required": ["data"], "properties": {
		"data": {"type": "object", "required": ["items", "total"], "properties": {
			"total": {"type": "integer"},
			"note": {"maxLength": 2},
			"items": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"qty": {"minimum": 1}}}}
		}},
		"risks": {"maxItems": 1}}}`)
	eff, err := c.Effective(c.Standard(), declared)
	if err != nil {
		t.Fatal(err)
	}
	v := parse(t, `{"status": "maybe", "risks": ["a", "b"], "summary": 7,
		"data": {"total": "x", "note": "long", "items": [{"qty": 0}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {"qty": 0, "name": "n"}]}}`)
	want := []string{
		"/summary: field 'summary' must be a string, got number",
		"/risks: field 'risks' allows at most 1 item",
		"/status: field 'status' must be one of: pass, warn, fail",
		"/data/total: field 'data.total' must be an integer, got string",
		"/data/note: field 'data.note' must have maxLength 2",
		"/data/items/0/name: field 'data.items[0].name' is required",
		"/data/items/1/name: field 'data.items[1].name' is required",
		"/data/items/2/name: field 'data.items[2].name' is required",
		"/data/items/3/name: field 'data.items[3].name' is required",
		"/data/items/4/name: field 'data.items[4].name' is required",
		"/data/items/5/name: field 'data.items[5].name' is required",
		"/data/items/6/name: field 'data.items[6].name' is required",
		"/data/items/7/name: field 'data.items[7].name' is required",
		"/data/items/8/name: field 'data.items[8].name' is required",
		"/data/items/9/name: field 'data.items[9].name' is required",
		"/data/items/0/qty: field 'data.items[0].qty' must be ≥ 1",
		"/data/items/10/qty: field 'data.items[10].qty' must be ≥ 1",
	}
	// Objects are walked in map order: the result must not depend on it.
	for range 20 {
		var got []string
		for _, x := range eff.Validate(v, "en") {
			got = append(got, x.Pointer+": "+x.Message)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestValueExcerpt(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"properties": {"text": {"maxLength": 3}, "html": {"maxLength": 3}, "list": {"maxItems": 1}}}`)
	long := strings.Repeat("あ", 100) // 300 bytes
	got := s.Validate(map[string]any{"text": long, "html": "<b>&</b>", "list": []any{"a/b", "c~d"}}, "en")
	if len(got) != 3 {
		t.Fatalf("got %+v, want 3 violations", got)
	}
	byPointer := map[string]string{}
	for _, v := range got {
		byPointer[v.Pointer] = v.Value
	}
	text := byPointer["/text"]
	if !strings.HasSuffix(text, "…") || len(text) > maxValue+len("…") || !strings.HasPrefix(text, `"あああ`) {
		t.Errorf("long value excerpt = %q (%d bytes), want at most %d bytes of it and …", text, len(text), maxValue)
	}
	if h := byPointer["/html"]; h != `"<b>&</b>"` {
		t.Errorf("html value = %s, want it unescaped", h)
	}
	if l := byPointer["/list"]; l != `["a/b","c~d"]` {
		t.Errorf("list value = %s", l)
	}
}

func TestPointerEscaping(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"properties": {"a/b": {"properties": {"m~n": {"type": "string"}}}, "sp ace": {"type": "string"}}}`)
	got := s.Validate(parse(t, `{"a/b": {"m~n": 1}, "sp ace": 2}`), "en")
	want := []Violation{
		{Pointer: "/sp ace", Keyword: "/properties/sp ace/type", Value: "2", Message: "field 'sp ace' must be a string, got number"},
		{Pointer: "/a~1b/m~0n", Keyword: "/properties/a~1b/properties/m~0n/type", Value: "1", Message: "field 'a/b.m~n' must be a string, got number"},
	}
	if !equal(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestInvalidGoValue(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"properties": {"a": {"type": "string"}}}`)
	for lang, want := range map[string]string{
		"en": "field 'a' holds a struct {}, which is not a JSON value",
		"ja": "フィールド 'a' の値 (struct {}) は JSON の値ではありません",
	} {
		got := s.Validate(map[string]any{"a": struct{}{}}, i18n.Lang(lang))
		if len(got) != 1 || got[0].Message != want || got[0].Pointer != "/a" {
			t.Errorf("%s: got %+v, want %q at /a", lang, got, want)
		}
	}
}

// TestValidateInput: violations of a node's input speak of the input where they speak of the
// value as a whole; fields and required members read as for an output.
func TestValidateInput(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := inline(t, c, `{"type":"object","required":["a"],"properties":{"a":{"type":"string"}},"not":{"required":["b"]}}`)
	cases := []struct {
		lang string
		v    any
		want []string
	}{
		{"en", []any{}, []string{"the input must be an object, got array"}},
		{"ja", []any{}, []string{"入力はオブジェクトが必要ですが、配列が指定されています"}},
		{"en", map[string]any{"a": json.Number("1"), "b": nil}, []string{
			"the input must not match the schema in 'not'", "field 'a' must be a string, got number"}},
		{"ja", map[string]any{"a": json.Number("1"), "b": nil}, []string{
			"入力は 'not' のスキーマに一致してはいけません", "フィールド 'a' は文字列が必要ですが、数値が指定されています"}},
		{"en", map[string]any{}, []string{"missing required field: a"}},
	}
	for _, tc := range cases {
		var got []string
		for _, v := range s.ValidateInput(tc.v, i18n.Lang(tc.lang)) {
			got = append(got, v.Message)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: got %q, want %q", tc.lang, tc.v, got, tc.want)
		}
	}
	// Validate still speaks of the output, ValidateParams of the params.
	for _, tc := range []struct {
		validate func(any, i18n.Lang) []Violation
		lang     string
		want     string
	}{
		{s.Validate, "en", "the output must be an object, got array"},
		{s.ValidateParams, "en", "the params object must be an object, got array"},
		{s.ValidateParams, "ja", "パラメーターはオブジェクトが必要ですが、配列が指定されています"},
	} {
		if got := tc.validate([]any{}, i18n.Lang(tc.lang)); len(got) != 1 || got[0].Message != tc.want {
			t.Errorf("%s: got %+v, want %q", tc.lang, got, tc.want)
		}
	}
}
