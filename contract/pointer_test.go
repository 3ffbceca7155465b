package contract

import (
	"reflect"
	"testing"
)

func TestValueAt(t *testing.T) {
	doc := map[string]any{
		"a/b": map[string]any{"~x": []any{"zero", map[string]any{"k": true}}},
		"":    "empty key",
	}
	tests := []struct {
		ptr  string
		want any
	}{
		{"", doc},
		{"/", "empty key"},
		{"/a~1b/~0x/0", "zero"},
		{"/a~1b/~0x/1/k", true},
		{"/a~1b/~0x/2", nil},   // out of range
		{"/a~1b/~0x/-1", nil},  // not an index
		{"/a~1b/~0x/0/k", nil}, // into a string
		{"/missing", nil},
	}
	for _, tt := range tests {
		if got := ValueAt(doc, tt.ptr); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ValueAt(%q) = %#v, want %#v", tt.ptr, got, tt.want)
		}
	}
}

func TestPointerRoundTrip(t *testing.T) {
	for _, toks := range [][]string{nil, {""}, {"a/b", "~x", "0"}, {"~01", "/"}} {
		if got := PointerTokens(pointer(toks)); !reflect.DeepEqual(got, toks) {
			t.Errorf("PointerTokens(pointer(%q)) = %q", toks, got)
		}
	}
}

// TestLookup checks that a missing member and a null one differ.
func TestLookup(t *testing.T) {
	doc := map[string]any{"a": []any{nil, map[string]any{"b": "x"}}}
	tests := []struct {
		path []string
		want any
		ok   bool
	}{
		{nil, doc, true},
		{[]string{"a", "1", "b"}, "x", true},
		{[]string{"a", "0"}, nil, true},
		{[]string{"a", "2"}, nil, false},
		{[]string{"a", "x"}, nil, false},
		{[]string{"c"}, nil, false},
		{[]string{"a", "1", "b", "c"}, nil, false},
	}
	for _, tt := range tests {
		got, ok := Lookup(doc, tt.path)
		if ok != tt.ok || (tt.path != nil && got != tt.want) {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}
