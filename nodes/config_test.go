package nodes

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecodeConfig(t *testing.T) {
	type config struct {
		Name  string `config:"name,required"`
		Path  string `config:"a/b"`
		Value any    `config:"value"`
		note  string // no tag: not a key
	}
	tests := []struct {
		name     string
		with     map[string]any
		want     config
		wantPath string // "" for no error
		wantMsg  string
	}{
		{"every key", map[string]any{"name": "n", "a/b": "p", "value": []any{1.0}}, config{Name: "n", Path: "p", Value: []any{1.0}}, "", ""},
		{"a reference is a string", map[string]any{"name": "${{ params.n }}", "value": "${{ params.v }}"}, config{Name: "${{ params.n }}", Value: "${{ params.v }}"}, "", ""},
		{"null for any", map[string]any{"name": "n", "value": nil}, config{Name: "n"}, "", ""},
		{"required", map[string]any{"value": 1.0}, config{}, "/name", "required"},
		{"not a string", map[string]any{"name": "n", "a/b": 3.0}, config{}, "/a~1b", "must be a string, got number"},
		{"null for a string", map[string]any{"name": nil}, config{}, "/name", "must be a string, got null"},
		{"typo", map[string]any{"name": "n", "valeu": 1.0}, config{}, "/valeu", `unknown key "valeu" (did you mean "value"?)`},
		{"unknown", map[string]any{"name": "n", "note": "x"}, config{}, "/note", `unknown key "note" (known: name, a/b, value)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got config
			err := DecodeConfig(tt.with, &got)
			if tt.wantPath == "" {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("DecodeConfig = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Path != tt.wantPath || ce.Err.Error() != tt.wantMsg || ce.Offset != -1 {
				t.Errorf("err = %#v, want {%s -1 %s}", err, tt.wantPath, tt.wantMsg)
			}
		})
	}
}

// TestDecodeConfigFieldType: a field of a type DecodeConfig does not read is the caller's
// mistake, found by the first decode.
func TestDecodeConfigFieldType(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an int field")
		}
	}()
	var cfg struct {
		N int `config:"n"`
	}
	_ = DecodeConfig(map[string]any{"n": 1.0}, &cfg)
}
