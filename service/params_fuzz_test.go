package service

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dag/seam/contract"
)

// FuzzParams feeds -p arguments and params files to the parser: it never panics, and
// key=value parses as `seam run --help` documents it (the key is what precedes the first
// '=', the value the JSON it parses as, else the text itself) and round-trips: the value
// written back as JSON parses as itself.
func FuzzParams(f *testing.F) {
	for _, seed := range []struct {
		kv, file string
	}{
		{"who=ada", `{"who": "ada", "times": 3}`},
		{"times=3", "who: ada\ntimes: 3\n"},
		{`tags=["a","b"]`, `[1, 2]`},
		{"n=1e-10000000", `{"n": 1e999999}`},
		{"eq=a=b", "a: &x [1, 2]\nb: *x\n"},
		{"novalue", "{"},
		{"=x", "\x00"},
		{`o={"a":{"b":[null,true,1.0]}}`, "- [[[[[[[[[[]]]]]]]]]]"},
	} {
		f.Add(seed.kv, seed.file)
	}
	f.Fuzz(func(t *testing.T, kv, file string) {
		k, v, err := ParseParam("en", kv)
		key, text, hasEq := strings.Cut(kv, "=")
		switch {
		case !hasEq || key == "":
			if err == nil {
				t.Fatalf("ParseParam(%q) = %q, %v; want an error", kv, k, v)
			}
		case err != nil:
			t.Fatalf("ParseParam(%q): %v", kv, err)
		case k != key:
			t.Fatalf("ParseParam(%q) key %q, want %q", kv, k, key)
		default:
			want := any(text)
			if j, jerr := contract.ParseJSON([]byte(text)); jerr == nil {
				want = j
			}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("ParseParam(%q) value %#v, want %#v", kv, v, want)
			}
			// Written back as JSON, the value parses as itself: -p k=<its JSON> says the same.
			if b, merr := json.Marshal(v); merr == nil && utf8.Valid(b) && utf8.ValidString(text) {
				if _, again, err := ParseParam("en", k+"="+string(b)); err != nil || !reflect.DeepEqual(again, v) {
					t.Fatalf("ParseParam(%q) = %#v; written back as %s it is %#v, %v", kv, v, b, again, err)
				}
			}
		}
		for _, name := range []string{"p.json", "p.yaml"} {
			m, err := ParseParamsFile("en", name, []byte(file))
			if err == nil && m == nil {
				t.Fatalf("ParseParamsFile(%s, %q): nil map without an error", name, file)
			}
		}
	})
}
