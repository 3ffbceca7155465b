package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

func TestTransformRun(t *testing.T) {
	input := map[string]any{
		"items": []any{
			map[string]any{"name": "a", "size": 3.0},
			map[string]any{"name": "b", "size": 12.0},
		},
	}
	tests := []struct {
		name    string
		program string
		vars    map[string]any
		input   any
		want    string
	}{
		{"reshape", `{status: "pass", summary: "\(.items | length) items", data: {names: [.items[].name]}}`,
			nil, input, `{"data":{"names":["a","b"]},"status":"pass","summary":"2 items"}`},
		{"first result only", `.items[].name`, nil, input, `"a"`},
		{"vars", `[.items[] | select(.size > $min) | .name + $suffix]`,
			map[string]any{"min": 5, "$suffix": "!"}, input, `["b!"]`},
		{"json.Number stays exact", `.n`, nil, map[string]any{"n": json.Number("12345678901234567890")}, `12345678901234567890`},
		// Values not decoded by encoding/json (YAML's int64, typed maps) are accepted too.
		{"foreign types", `.a + .b.c`, nil, map[string]any{"a": int64(2), "b": map[string]int{"c": 3}}, `5`},
		{"null input", `.`, nil, nil, `null`},
		{"no env", `$ENV | length`, nil, nil, `0`},
	}
	typ := newTransformType()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			with := map[string]any{"program": tt.program}
			if tt.vars != nil {
				with["vars"] = tt.vars
			}
			res, err := typ.Run(t.Context(), &Call{With: with, Input: tt.input})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Output) != tt.want {
				t.Errorf("output = %s, want %s", res.Output, tt.want)
			}
		})
	}
}

func TestTransformErrors(t *testing.T) {
	tests := []struct {
		name    string
		with    map[string]any
		input   any
		limit   int64
		wantErr string
	}{
		{"runtime error", map[string]any{"program": `.a + 1`}, map[string]any{"a": "x"},
			0, `transform: cannot add: string ("x") and number (1)`},
		{"error()", map[string]any{"program": `error("boom")`}, nil, 0, "transform: error: boom"},
		{"no output", map[string]any{"program": `empty`}, nil, 0, "transform: program produced no output"},
		{"halt", map[string]any{"program": `halt`}, nil, 0, "transform: program produced no output"},
		{"halt_error", map[string]any{"program": `"stop\n" | halt_error`}, nil, 0, "transform: halt error: stop\n"},
		{"output limit", map[string]any{"program": `[range(100)]`}, nil, 100, "transform: output exceeds the 100 bytes limit"},
		{"undefined variable", map[string]any{"program": `$x`}, nil, 0, "with/program: variable not defined: $x"},
		{"parse error", map[string]any{"program": `.a |`}, nil, 0, "with/program: unexpected EOF"},
		{"vars not a map", map[string]any{"program": `.`, "vars": []any{1}}, nil, 0, "with/vars: must be a mapping of names to values, got array"},
	}
	typ := newTransformType()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := typ.Run(t.Context(), &Call{With: tt.with, Input: tt.input, OutputLimit: tt.limit})
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}

func TestTransformNoOutputJapanese(t *testing.T) {
	_, err := newTransformType().Run(t.Context(), &Call{With: map[string]any{"program": `empty`}, Lang: i18n.Japanese})
	if want := "transform：プログラムが何も出力しませんでした"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestTransformContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := newTransformType().Run(ctx, &Call{With: map[string]any{"program": `last(range(1e15))`}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestTransformCheck(t *testing.T) {
	tests := []struct {
		name       string
		with       map[string]any
		wantPath   string // "" for no error
		wantOffset int
		wantMsg    string
	}{
		{"ok", map[string]any{"program": `.a | {status: "pass", summary: .}`}, "", 0, ""},
		{"vars", map[string]any{"program": `$n`, "vars": map[string]any{"n": "${{ params.n }}"}}, "", 0, ""},
		{"program by reference", map[string]any{"program": "${{ params.program }}"}, "", 0, ""},
		// Names unknown, so $n cannot be checked, but the syntax can.
		{"vars by reference", map[string]any{"program": `$n`, "vars": "${{ params.vars }}"}, "", 0, ""},
		{"vars by reference, bad syntax", map[string]any{"program": `$n |`, "vars": "${{ params.vars }}"}, "/program", 4, "unexpected EOF"},
		{"unexpected token", map[string]any{"program": `.a ] `}, "/program", 3, `unexpected token "]"`},
		{"token on a later line", map[string]any{"program": ".items[]\n| select(.x == 1)\n| )"}, "/program", 29, `unexpected token ")"`},
		{"bad escape", map[string]any{"program": `.a | "\x"`}, "/program", 6, `invalid escape sequence "\x" in string literal`},
		{"eof", map[string]any{"program": `if . then 1`}, "/program", 11, "unexpected EOF"},
		{"unknown function", map[string]any{"program": `frobnicate`}, "/program", -1, "function not defined: frobnicate/0"},
		{"undefined variable", map[string]any{"program": `$limit`}, "/program", -1, "variable not defined: $limit"},
		{"missing", map[string]any{}, "/program", -1, "required"},
		{"not a string", map[string]any{"program": []any{"."}}, "/program", -1, "must be a string, got array"},
		{"bad var name", map[string]any{"program": `.`, "vars": map[string]any{"1x": 1}}, "/vars/1x", -1, `"1x" is not a jq variable name`},
		{"var twice", map[string]any{"program": `.`, "vars": map[string]any{"x": 1, "$x": 2}}, "/vars/", -1, "$x is given twice"},
		{"typo", map[string]any{"program": `.`, "var": map[string]any{}}, "/var", -1, `unknown key "var" (did you mean "vars"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := newTransformType().Check(tt.with)
			if tt.wantPath == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConfigError", err)
			}
			// Which of x and $x is reported second depends on map order.
			if !strings.HasPrefix(ce.Path, tt.wantPath) || ce.Offset != tt.wantOffset || ce.Err.Error() != tt.wantMsg {
				t.Errorf("err = {%s %d %v}, want {%s %d %s}", ce.Path, ce.Offset, ce.Err, tt.wantPath, tt.wantOffset, tt.wantMsg)
			}
		})
	}
}

// TestTransformCache: Check compiles once for every later Run, and concurrent Runs share
// the compiled program safely.
func TestTransformCache(t *testing.T) {
	typ := newTransformType()
	with := map[string]any{"program": `. * $k`, "vars": map[string]any{"k": 2}}
	if err := typ.Check(with); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Go(func() {
			res, err := typ.Run(t.Context(), &Call{With: with, Input: i})
			if err == nil && string(res.Output) != fmt.Sprint(2*i) {
				err = fmt.Errorf("%d * 2 = %s", i, res.Output)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	n := 0
	typ.codes.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d compiled programs cached, want 1", n)
	}
	// Other variables make another program.
	if _, err := typ.Run(t.Context(), &Call{With: map[string]any{"program": `. * $k`, "vars": map[string]any{"k": 2, "j": 1}}, Input: 1}); err != nil {
		t.Fatal(err)
	}
	n = 0
	typ.codes.Range(func(any, any) bool { n++; return true })
	if n != 2 {
		t.Errorf("%d compiled programs cached, want 2", n)
	}
}
