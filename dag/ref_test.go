package dag

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
)

// compileYAML compiles the YAML value src into a template, as the loader does.
func compileYAML(t *testing.T, src string) (*Template, Diagnostics) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	rc, err := newRefCompiler()
	if err != nil {
		t.Fatal(err)
	}
	rc.withSource([]byte(src))
	return rc.template("x.yaml", &doc)
}

func testScope() *Scope {
	return &Scope{
		Params: map[string]any{"name": "Ada", "n": json.Number("3"), "flag": true},
		Outputs: map[string]any{
			"a": map[string]any{
				"status": "pass", "summary": "ok",
				"data": map[string]any{
					"items": []any{map[string]any{"name": "first"}, map[string]any{"name": "second"}},
					"score": json.Number("0.5"),
					"big":   json.Number("12345678901234567890"),
				},
			},
			"my-node": map[string]any{"status": "warn", "summary": "careful"},
		},
		Run: RunInfo{ID: "r1", Name: "demo"},
	}
}

func TestTemplateEval(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want any
	}{
		{"literal string", `hello`, "hello"},
		{"literal number stays exact", `1.0`, json.Number("1.0")},
		{"literal object", `{a: 1, b: [true, null]}`, map[string]any{"a": json.Number("1"), "b": []any{true, nil}}},
		{"whole reference keeps type: number", `"${{ params.n }}"`, json.Number("3")},
		{"whole reference keeps type: bool", `"${{ params.flag }}"`, true},
		{"whole reference keeps type: object", `"${{ nodes.a.output.data.items[1] }}"`, map[string]any{"name": "second"}},
		{"whole reference keeps big numbers exact", `"${{ nodes.a.output.data.big }}"`, json.Number("12345678901234567890")},
		{"quoted id", `"${{ nodes['my-node'].output.status }}"`, "warn"},
		{"interpolation", `"hi ${{ params.name }}, n=${{params.n}}!"`, "hi Ada, n=3!"},
		{"interpolation of bool", `"flag: ${{ params.flag }}"`, "flag: true"},
		// Objects and arrays inside text read as compact JSON: keys sorted, numbers as written.
		{"interpolation of object", `"x ${{ nodes.a.output.data.items[0] }}"`, `x {"name":"first"}`},
		{"interpolation of nested object", `"d=${{ nodes.a.output.data }}"`,
			`d={"big":12345678901234567890,"items":[{"name":"first"},{"name":"second"}],"score":0.5}`},
		{"interpolation of array", `"names: ${{ nodes.a.output.data.items.map(i, i.name) }}."`, `names: ["first","second"].`},
		{"interpolation of CEL map without HTML escapes", `"m=${{ {'b': [1, 2.5, null], 'a': 'x<y&\"z\"'} }}"`, `m={"a":"x<y&\"z\"","b":[1,2.5,null]}`},
		{"CEL comparison", `"${{ nodes.a.output.status == 'pass' }}"`, true},
		{"CEL arithmetic", `"${{ params.n * 2 }}"`, json.Number("6")},
		{"CEL float", `"${{ nodes.a.output.data.score + 0.25 }}"`, json.Number("0.75")},
		{"CEL list", `"${{ nodes.a.output.data.items.map(i, i.name) }}"`, []any{"first", "second"}},
		{"CEL size", `"${{ size(nodes.a.output.data.items) }}"`, json.Number("2")},
		{"CEL run", `"${{ run.name + '-' + run.id }}"`, "demo-r1"},
		{"object with references", `{who: "${{ params.name }}", fixed: 2}`, map[string]any{"who": "Ada", "fixed": json.Number("2")}},
		{"array with references", `["${{ params.n }}", x]`, []any{json.Number("3"), "x"}},
		{"block scalar", "|\n  line ${{ params.name }}\n", "line Ada\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			got, err := tmpl.Eval(testScope())
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestTemplateUnresolved: a template gives back the value it was compiled from, its
// references written as ${{ }} strings, as a nodes.Checker reads `with`.
func TestTemplateUnresolved(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"literal", `{a: 1, b: [true, null]}`, map[string]any{"a": json.Number("1"), "b": []any{true, nil}}},
		{"one reference", `"${{params.n}}"`, "${{ params.n }}"},
		{"interpolation", `"hi ${{ params.name }}, n=${{params.n}}!"`, "hi ${{ params.name }}, n=${{ params.n }}!"},
		{"object and array holding references", `{dir: "${{ run.name }}", command: [./x.sh, "${{ params.n }}", 3]}`,
			map[string]any{"dir": "${{ run.name }}", "command": []any{"./x.sh", "${{ params.n }}", json.Number("3")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if got := tmpl.Unresolved(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestTemplateEvalErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"missing field", `"${{ nodes.a.output.data.nope }}"`, `${{ nodes.a.output.data.nope }}: no field "nope"`},
		{"index out of range", `"${{ nodes.a.output.data.items[5] }}"`, "index out of range (length 2)"},
		{"not an array", `"${{ nodes.a.output.status[0] }}"`, "a string is not an array"},
		{"node without output", `"${{ nodes.b.output }}"`, "node b has no output"},
		{"CEL runtime error", `"${{ nodes.a.output.nope == 1 }}"`, "no such key: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			_, err := tmpl.Eval(testScope())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestTemplateEvalErrorsJapanese: Eval says its own errors in the Scope's language.
func TestTemplateEvalErrorsJapanese(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"missing field", `"${{ nodes.a.output.data.nope }}"`, `${{ nodes.a.output.data.nope }}: フィールド "nope" がありません`},
		{"index out of range", `"${{ nodes.a.output.data.items[5] }}"`, "${{ nodes.a.output.data.items[5] }}: [5]：インデックスが範囲外です（長さ 2）"},
		{"env not read", `"${{ env.TOKEN }}"`, "${{ env.TOKEN }}: 環境変数 TOKEN はこの実行では読み取られていません"},
		{"not an array", `"${{ nodes.a.output.status[0] }}"`, "${{ nodes.a.output.status[0] }}: [0]：文字列は配列ではありません"},
		{"not an object", `"${{ nodes.a.output.status.x }}"`, "${{ nodes.a.output.status.x }}: x：文字列はオブジェクトではありません"},
		{"node without output", `"${{ nodes.b.output }}"`, "${{ nodes.b.output }}: ノード b には出力がありません"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, _ := compileYAML(t, tt.src) // env.TOKEN is not declared: Eval is what is tested
			s := testScope()
			s.Lang = i18n.Japanese
			_, err := tmpl.Eval(s)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant  %s", err, tt.want)
			}
		})
	}
}

// TestInterpTextErrors: a value no JSON text can hold, alone or inside an object or an
// array, fails interpolation with the reason in the scope's language. Values from outputs
// and params are JSON: only a bug would hand one over, which must not become text silently.
func TestInterpTextErrors(t *testing.T) {
	tests := []struct {
		name   string
		v      any
		en, ja string
	}{
		{"not a JSON value", int8(1), "is a int8, not a JSON value", "int8 であり、JSON の値ではありません"},
		{"NaN inside an object", map[string]any{"x": math.NaN()},
			"cannot be written as JSON: json: unsupported value: NaN", "JSON として書けません：json: unsupported value: NaN"},
		{"a channel inside an array", []any{make(chan int)},
			"cannot be written as JSON: json: unsupported type: chan int", "JSON として書けません：json: unsupported type: chan int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for lang, want := range map[i18n.Lang]string{i18n.English: tt.en, i18n.Japanese: tt.ja} {
				if _, err := interpText(tt.v, lang); err == nil || err.Error() != want {
					t.Errorf("%s: error %v, want %q", lang, err, want)
				}
			}
		})
	}
}

func TestExprBool(t *testing.T) {
	ja := testScope()
	ja.Lang = i18n.Japanese
	jaTmpl, _ := compileYAML(t, `"${{ params.name }}"`)
	if _, err := jaTmpl.expr.Bool(ja); err == nil || err.Error() != "${{ params.name }} は文字列であり、真偽値ではありません" {
		t.Errorf("Bool on a string, in Japanese: %v", err)
	}

	tmpl, _ := compileYAML(t, `"${{ params.name }}"`)
	if _, err := tmpl.expr.Bool(testScope()); err == nil || !strings.Contains(err.Error(), "is a string, not a boolean") {
		t.Fatalf("Bool on a string: %v", err)
	}
	tmpl, _ = compileYAML(t, `"${{ params.n > 2 }}"`)
	if ok, err := tmpl.expr.Bool(testScope()); err != nil || !ok {
		t.Fatalf("Bool = %v, %v; want true", ok, err)
	}
}

func TestTemplateRefs(t *testing.T) {
	src := `
a: "${{ nodes.first.output.data.items[0].name }}"
b: "x ${{ params.region }} y ${{ nodes['my-node'].output.summary }}"
c: ["${{ size(nodes.second.output.data.list) > 0 && params.on }}"]
d: "${{ nodes.third.output.data.list.filter(x, x.ok).map(x, x.id) }}"`
	tmpl, diags := compileYAML(t, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var got []string
	for _, r := range tmpl.Refs() {
		got = append(got, r.Root+":"+r.Node+":"+strings.Join(r.Path, ".")+"@"+posString(r.Pos))
	}
	want := []string{
		"nodes:first:data.items.0.name@2:9",
		"params::region@3:11",
		"nodes:my-node:summary@3:34",
		"nodes:second:data.list@4:15",
		"params::on@4:53",
		"nodes:third:data.list@5:9",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("refs\n got %q\nwant %q", got, want)
	}
}

func posString(p Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

func TestTemplateCompileErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
		line, col       int
	}{
		{"syntax error column", `k: "${{ params.a + }}"`, "Syntax error", 1, 19},
		{"undeclared variable", `k: "${{ foo.bar }}"`, "undeclared reference to 'foo'", 1, 9},
		{"hyphenated id hint", `k: "${{ nodes.my-node.output }}"`, "nodes['my-node']", 1, 0},
		{"empty expression", `k: "${{ }}"`, "empty expression", 1, 9},
		{"unterminated", `k: "a ${{ params.x"`, "unterminated", 1, 7},
		{"block scalar position", "k: |\n  first\n  second ${{ params.a + }}\n", "Syntax error", 3, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := compileYAML(t, tt.src)
			if len(diags) == 0 {
				t.Fatal("no diagnostics")
			}
			d := diags[0]
			if d.Code != CodeExpr || !strings.Contains(d.Message+" "+d.Hint, tt.want) {
				t.Fatalf("got %s, want code %s and %q", d, CodeExpr, tt.want)
			}
			if d.Pos.Line != tt.line || (tt.col != 0 && d.Pos.Col != tt.col) {
				t.Fatalf("position %d:%d, want %d:%d (%s)", d.Pos.Line, d.Pos.Col, tt.line, tt.col, d)
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		src  string
		ok   bool
		node string
		segs int
	}{
		{"params.name", true, "", 1},
		{"nodes.a.output", true, "a", 0},
		{"nodes.a.output.data.items[0].name", true, "a", 4},
		{"nodes['a-b'].output['x y']", true, "a-b", 1},
		{"item.name", true, "", 1},
		{"index", true, "", 0},
		{"nodes.a.output == 1", false, "", 0},
		{"nodes.a", false, "", 0},
		{"nodes.a.outputs", false, "", 0},
		{"params.x[-1]", false, "", 0},
		{"size(params)", false, "", 0},
	}
	for _, tt := range tests {
		p, ok := parsePath(tt.src)
		if ok != tt.ok {
			t.Errorf("parsePath(%q) ok = %v, want %v", tt.src, ok, tt.ok)
			continue
		}
		if ok && (p.node != tt.node || len(p.segs) != tt.segs) {
			t.Errorf("parsePath(%q) = node %q, %d segments; want %q, %d", tt.src, p.node, len(p.segs), tt.node, tt.segs)
		}
	}
}

// FuzzTemplate checks that compiling any string never panics, and that a plain path
// evaluates to what CEL computes for the same expression.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"${{ params.name }}", "a ${{ nodes.a.output.data.items[1].name }} b",
		"${{ nodes['my-node'].output.status }}", "${{", "${{ }}", "}} ${{ x }}",
		"${{ nodes.a.output.data.score }}", "${{ params.n + 1 }}",
	} {
		f.Add(s)
	}
	rc, err := newRefCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: 1, Column: 1}
		tmpl, diags := rc.template("f.yaml", n)
		if len(diags) > 0 {
			return
		}
		got, gotErr := tmpl.Eval(testScope())
		if tmpl.kind != TemplateExpr || tmpl.expr.path == nil {
			return
		}
		// Every plain path is also valid CEL, and CEL must compute the same value.
		e := *tmpl.expr
		checked, iss := rc.env.Compile(e.Src)
		if iss != nil && iss.Err() != nil {
			t.Fatalf("plain path %q is not valid CEL: %v", e.Src, iss.Err())
		}
		prg, err := rc.env.Program(checked)
		if err != nil {
			t.Fatal(err)
		}
		e.path, e.prg = nil, prg
		want, wantErr := e.Eval(testScope())
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: path error %v, CEL error %v", s, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: path gives %#v, CEL gives %#v", s, got, want)
		}
	})
}

func TestNodeReferenceShape(t *testing.T) {
	for _, src := range []string{
		`"${{ nodes[params.which].output }}"`,
		`"${{ nodes.a.summary == 'pass' }}"`, // nodes.a.status is a status reference
		`"${{ size(nodes) }}"`,
	} {
		_, diags := compileYAML(t, src)
		if len(diags) != 1 || diags[0].Code != CodeExpr || !strings.Contains(diags[0].Message, "nodes.<id>.output, with a constant id") {
			t.Errorf("%s: got %v, want one %s about nodes.<id>.output", src, diags, CodeExpr)
		}
	}
}
