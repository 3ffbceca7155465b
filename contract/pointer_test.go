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
