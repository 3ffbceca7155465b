package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// reference is what ParseJSON used to be and must keep matching: a json.Decoder with
// UseNumber and a check that nothing follows the value.
func reference(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// deepArray and deepObject nest n levels.
func deepArray(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func deepObject(n int) string { return strings.Repeat(`{"a":`, n) + "0" + strings.Repeat("}", n) }

func TestParseJSON(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	valid := []struct {
		in   string
		want any
	}{
		{`{"status":"pass","summary":"node 1"}`, map[string]any{"status": "pass", "summary": "node 1"}},
		{" \t\r\n[1, -2.5e+3 ,\"x\",true,false,null]\n ", []any{n("1"), n("-2.5e+3"), "x", true, false, nil}},
		{`0`, n("0")},
		{`-0`, n("-0")},
		{`1.0`, n("1.0")},
		{`12345678901234567890123`, n("12345678901234567890123")},
		{`1E400`, n("1E400")},
		{`0.5e-07`, n("0.5e-07")},
		{`[]`, []any{}},
		{`{ }`, map[string]any{}},
		{`[[],{}]`, []any{[]any{}, map[string]any{}}},
		{`{"a":1,"a":2}`, map[string]any{"a": n("2")}},
		{`""`, ""},
		{`"日本語 ok"`, "日本語 ok"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u00e9\u65e5"`, "é日"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\ufffd"},                     // lone high surrogate
		{`"\ude00x"`, "\ufffdx"},                   // lone low surrogate
		{`"\ud83dA"`, "\ufffdA"},                   // high surrogate, then no escape
		{`"\ud83d\u0041"`, "\ufffdA"},              // high surrogate, then a non-surrogate escape
		{"\"a\xffb\"", "a\ufffdb"},                 // invalid UTF-8: one U+FFFD per bad byte
		{"\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd"}, // a surrogate encoded in UTF-8
		{"\"\x7f\"", "\x7f"},                       // DEL is not a control character to JSON
		{`{"\u0061":"b"}`, map[string]any{"a": "b"}},
		{deepArray(maxDepth), nil},
		{deepObject(maxDepth), nil},
	}
	for _, tt := range valid {
		got, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Errorf("ParseJSON(%.40q): %v", tt.in, err)
			continue
		}
		if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseJSON(%.40q) = %#v, want %#v", tt.in, got, tt.want)
		}
		if ref, err := reference([]byte(tt.in)); err != nil || !reflect.DeepEqual(got, ref) {
			t.Errorf("ParseJSON(%.40q) = %#v, encoding/json: %#v, %v", tt.in, got, ref, err)
		}
	}

	invalid := []struct {
		in, err string
	}{
		{``, "unexpected end of JSON input at offset 0"},
		{" \n ", "unexpected end of JSON input at offset 3"},
		{`{"a":1} x`, "invalid character 'x' after top-level value at offset 8"},
		{`1 2`, "after top-level value at offset 2"},
		{`[1]]`, "invalid character ']' after top-level value at offset 3"},
		{`01`, "invalid character '1' after top-level value at offset 1"},
		{`[01]`, "invalid character '1' after array element at offset 2"},
		{`1.`, "unexpected end of JSON input at offset 2"},
		{`1.e5`, "invalid character 'e' after decimal point in numeric literal at offset 2"},
		{`-`, "unexpected end of JSON input at offset 1"},
		{`-a`, "invalid character 'a' in numeric literal at offset 1"},
		{`.5`, "invalid character '.' looking for beginning of value at offset 0"},
		{`+1`, "invalid character '+' looking for beginning of value"},
		{`1e`, "unexpected end of JSON input at offset 2"},
		{`1e+`, "unexpected end of JSON input at offset 3"},
		{`[1E-x]`, "invalid character 'x' in exponent of numeric literal at offset 4"},
		{`"abc`, "unexpected end of JSON input at offset 4"},
		{`{"a":"b}`, "unexpected end of JSON input at offset 8"},
		{`"a\`, "unexpected end of JSON input at offset 3"},
		{`"\x"`, "invalid character 'x' in string escape code at offset 2"},
		{`"\'"`, `invalid character '\'' in string escape code at offset 2`},
		{`"\u12"`, `invalid character '"' in \u hexadecimal character escape at offset 5`},
		{`"\u12g4"`, "invalid character 'g' in \\u hexadecimal character escape at offset 5"},
		{"\"a\tb\"", `invalid character '\t' in string literal at offset 2`},
		{"\"a\x00b\"", `invalid character '\x00' in string literal at offset 2`},
		{"\"a\nb\"", `invalid character '\n' in string literal at offset 2`},
		{`tru`, "unexpected end of JSON input at offset 3"},
		{`nul1`, "invalid character '1' in literal null at offset 3"},
		{`True`, "invalid character 'T' looking for beginning of value at offset 0"},
		{`[1,]`, "invalid character ']' looking for beginning of value at offset 3"},
		{`[1 2]`, "invalid character '2' after array element at offset 3"},
		{`{"a" 1}`, "invalid character '1' after object key at offset 5"},
		{`{"a":1,}`, "invalid character '}' looking for beginning of object key string at offset 7"},
		{`{a:1}`, "invalid character 'a' looking for beginning of object key string at offset 1"},
		{`{"a":1 "b":2}`, `invalid character '"' after object key:value pair at offset 7`},
		{`[`, "unexpected end of JSON input at offset 1"},
		{"\xef\xbb\xbf{}", `invalid character '\xef' looking for beginning of value at offset 0`},
		{"[\v]", `invalid character '\v' looking for beginning of value at offset 1`},
		{deepArray(maxDepth + 1), "exceeded max depth of 10000 at offset 10000"},
		{deepObject(maxDepth + 1), "exceeded max depth of 10000 at offset 50000"},
	}
	for _, tt := range invalid {
		v, err := ParseJSON([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseJSON(%.40q) = %#v, %v; want error %q", tt.in, v, err, tt.err)
		}
		if v != nil {
			t.Errorf("ParseJSON(%.40q) returned %#v with its error", tt.in, v)
		}
		if _, err := reference([]byte(tt.in)); err == nil {
			t.Errorf("encoding/json accepts %.40q", tt.in)
		}
	}
}

// FuzzParseJSON checks ParseJSON against encoding/json: the same inputs accepted, the same
// values decoded, except a number beyond seam's limits, which ParseJSON refuses where it is.
// Run with:
//
//	go test -run XXX -fuzz FuzzParseJSON -fuzztime 3m ./contract/
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`{"status":"pass","summary":"node 1"}`,
		`{"status":"fail","summary":"x","artifacts":["a.md"],"data":{"n":[1,2.5,-3e10,0]}}`,
		` [true, false, null, "", {}, []] `,
		`12345678901234567890123`,
		`-0.0E+00`,
		`01`,
		`1.`,
		`"\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"`,
		`"\ud83d\u0041\udc00"`,
		"\"\xff\xed\xa0\x80\xc3\xa9\"",
		"\"\x01\"",
		`{"a":1,"a":{"a":[1,{"b":null}]}}`,
		`[1,]`,
		`{"a" : 1 } x`,
		`[[[[[[[[[[]]]]]]]]]]`,
		``,
		`{"status":"pass","summary":"x","data":{"n":1e-10000000}}`,
		`[1e1000,-1E+1001]`,
		`{"a":[0,` + strings.Repeat("7", MaxNumberDigits+1) + `]}`,
		`[1e1001 x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseJSON(b)
		want, wantErr := reference(b)
		var ne *NumberError
		if errors.As(err, &ne) {
			// The number at the offset is beyond the limits, and where encoding/json reads
			// the document, it is the number at the pointer.
			n := numberAt(b, ne.Offset)
			if checkNumber(n) == nil || ne.Number != excerptText(n) {
				t.Fatalf("ParseJSON(%q): %v, but the number at %d is %q", b, err, ne.Offset, n)
			}
			if wantErr == nil && ValueAt(want, ne.Pointer) != json.Number(n) {
				t.Fatalf("ParseJSON(%q): %v, but encoding/json has %#v at %q", b, err, ValueAt(want, ne.Pointer), ne.Pointer)
			}
			return
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("ParseJSON(%q): err = %v, encoding/json: %v", b, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseJSON(%q) = %#v, encoding/json: %#v", b, got, want)
		}
	})
}

// numberAt is the number token at offset i of b.
func numberAt(b []byte, i int) string {
	if i < 0 || i > len(b) {
		return ""
	}
	j := i
	skip := func(set string) {
		for j < len(b) && strings.IndexByte(set, b[j]) >= 0 {
			j++
		}
	}
	skip("-")
	skip("0123456789")
	if j < len(b) && b[j] == '.' {
		j++
		skip("0123456789")
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		skip("0123456789")
	}
	return string(b[i:j])
}

// BenchmarkParseJSON compares ParseJSON with the json.Decoder it replaced on a standard output
// as small as most nodes emit and on the 1 KB and 100 KB documents of BenchmarkValidate. Run:
//
//	go test -run '^$' -bench ParseJSON -benchmem ./contract/
func BenchmarkParseJSON(b *testing.B) {
	docs := []struct {
		name string
		doc  []byte
	}{
		{"small", []byte(`{"status":"pass","summary":"node 12345"}`)},
		{"1KB", benchRaw(b, 5)},
		{"100KB", benchRaw(b, 578)},
	}
	parsers := []struct {
		name  string
		parse func([]byte) (any, error)
	}{
		{"jsonschema", reference},
		{"seam", ParseJSON},
	}
	for _, d := range docs {
		for _, p := range parsers {
			b.Run(d.name+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(d.doc)))
				for b.Loop() {
					if _, err := p.parse(d.doc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchRaw is benchDoc's document as JSON.
func benchRaw(b *testing.B, n int) []byte {
	v, size := benchDoc(b, n)
	raw, err := json.Marshal(v)
	if err != nil || len(raw) != size {
		b.Fatalf("marshal: %d bytes, want %d: %v", len(raw), size, err)
	}
	return raw
}
