package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seam-dag/seam/schemas"
)

func TestBuiltinNames(t *testing.T) {
	got := Builtin().Names()
	if want := []string{"approval", "const", "exec", "http", "transform"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}

func TestClosest(t *testing.T) {
	r := Builtin()
	tests := []struct{ name, want string }{
		{"exe", "exec"},
		{"Exec", "exec"},
		{"trasnform", "transform"},
		{"cosnt", "const"},
		{"htpp", "http"},
		{"tcp", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		if got := r.Closest(tt.name); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1000, "1000 bytes"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{16 << 20, "16 MiB"},
		{3 << 30, "3 GiB"},
	}
	for _, tt := range tests {
		if got := formatSize(tt.n); got != tt.want {
			t.Errorf("formatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got, want := (&OutputLimitError{Limit: DefaultOutputLimit}).Error(), "output exceeds the 16 MiB limit"; got != want {
		t.Errorf("OutputLimitError = %q, want %q", got, want)
	}
}

// compileConfig compiles a config schema.
func compileConfig(t *testing.T, doc []byte) *jsonschema.Schema {
	t.Helper()
	return compileAll(t, doc)
}

// compileOutput compiles an output schema together with the standard contract, as the engine
// combines them.
func compileOutput(t *testing.T, doc []byte) *jsonschema.Schema {
	t.Helper()
	return compileAll(t, schemas.NodeOutput, doc)
}

// compileAll compiles a schema that all docs must accept.
func compileAll(t *testing.T, docs ...[]byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	var refs []any
	for i, doc := range docs {
		if doc == nil { // a type that promises nothing beyond the standard contract
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatalf("schema %d: %v", i, err)
		}
		url := fmt.Sprintf("mem:///%d.json", i)
		if err := c.AddResource(url, v); err != nil {
			t.Fatalf("schema %d: %v", i, err)
		}
		refs = append(refs, map[string]any{"$ref": url})
	}
	if err := c.AddResource("mem:///all.json", map[string]any{"allOf": refs}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///all.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func valid(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestSchemas checks what `seam types` and the linter rely on: every schema compiles, configs
// refuse unknown keys, and every config property is described.
func TestSchemas(t *testing.T) {
	r := Builtin()
	for _, name := range r.Names() {
		typ, _ := r.Lookup(name)
		t.Run(name, func(t *testing.T) {
			if typ.Doc() == "" || strings.Contains(typ.Doc(), "\n") {
				t.Errorf("Doc() = %q, want one line", typ.Doc())
			}
			if _, ok := typ.(Checker); !ok {
				t.Errorf("%s does not implement Checker", name)
			}
			var cfg struct {
				AdditionalProperties *bool                     `json:"additionalProperties"`
				Properties           map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(typ.ConfigSchema(), &cfg); err != nil {
				t.Fatal(err)
			}
			if cfg.AdditionalProperties == nil || *cfg.AdditionalProperties {
				t.Error("config schema allows unknown keys")
			}
			for prop, s := range cfg.Properties {
				if d, _ := s["description"].(string); d == "" {
					t.Errorf("config property %s has no description", prop)
				}
			}
			compileConfig(t, typ.ConfigSchema())
			compileOutput(t, typ.OutputSchema())
		})
	}
}

// TestConfigSchemaAgreesWithCheck runs the same configurations through the config schema and
// the type's Check: the two must accept and refuse the same ones.
func TestConfigSchemaAgreesWithCheck(t *testing.T) {
	r := Builtin()
	tests := []struct {
		typ   string
		with  string
		valid bool
	}{
		{"const", `{"value": {"status": "pass", "summary": "s"}}`, true},
		{"const", `{"value": null}`, true},
		{"const", `{}`, false},
		{"const", `{"value": 1, "values": 2}`, false},
		{"exec", `{"command": ["ls", "-l"]}`, true},
		{"exec", `{"command": "ls -l | wc -l", "shell": true}`, true},
		{"exec", `{"command": "ls -l"}`, false},
		{"exec", `{"command": ["ls"], "shell": true}`, false},
		{"exec", `{"command": []}`, false},
		{"exec", `{"command": [1]}`, false},
		{"exec", `{}`, false},
		{"exec", `{"command": ["ls"], "output": "wrap", "dir": "sub", "env": {"A": "1"}, "stderr_limit": 10}`, true},
		{"exec", `{"command": ["ls"], "output": "xml"}`, false},
		{"exec", `{"command": ["ls"], "dir": 3}`, false},
		{"exec", `{"command": ["ls"], "env": {"A": 1}}`, false},
		{"exec", `{"command": ["ls"], "stderr_limit": -1}`, false},
		{"exec", `{"command": ["ls"], "stderr_limit": 1.5}`, false},
		{"exec", `{"command": ["ls"], "shell": "yes"}`, false},
		{"exec", `{"command": ["ls"], "ouput": "text"}`, false},
		{"transform", `{"program": ".a"}`, true},
		{"transform", `{"program": "$n", "vars": {"n": 1}}`, true},
		{"transform", `{"program": "$n", "vars": {"$n": 1}}`, true},
		{"transform", `{"program": "."}`, true},
		{"transform", `{"program": ""}`, false},
		{"transform", `{"program": 3}`, false},
		{"transform", `{"program": ".", "vars": {"a-b": 1}}`, false},
		{"transform", `{"program": ".", "vars": []}`, false},
		{"transform", `{}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.typ+tt.with, func(t *testing.T) {
			typ, _ := r.Lookup(tt.typ)
			var with map[string]any
			if err := json.Unmarshal([]byte(tt.with), &with); err != nil {
				t.Fatal(err)
			}
			schemaErr := valid(compileConfig(t, typ.ConfigSchema()), []byte(tt.with))
			checkErr := typ.(Checker).Check(with)
			if (schemaErr == nil) != tt.valid {
				t.Errorf("schema: valid = %v, want %v (%v)", schemaErr == nil, tt.valid, schemaErr)
			}
			if (checkErr == nil) != tt.valid {
				t.Errorf("Check: valid = %v, want %v (%v)", checkErr == nil, tt.valid, checkErr)
			}
		})
	}
}

// TestOutputsMeetSchemas runs each type and validates what it produced against the standard
// contract and the schema the type promises.
func TestOutputsMeetSchemas(t *testing.T) {
	r := Builtin()
	tests := []struct {
		typ   string
		with  map[string]any
		input any
	}{
		{"const", map[string]any{"value": map[string]any{"status": "warn", "summary": "s"}}, nil},
		{"exec", map[string]any{"command": []any{"cat"}}, map[string]any{"status": "pass", "summary": "s"}},
		{"exec", map[string]any{"command": []any{"echo", `[1, 2]`}, "output": "wrap"}, nil},
		{"exec", map[string]any{"command": []any{"echo", `{"a": 1}`}, "output": "wrap"}, nil},
		{"exec", map[string]any{"command": []any{"echo", "hello\nworld"}, "output": "text"}, nil},
		{"exec", map[string]any{"command": []any{"true"}, "output": "text"}, nil},
		{"transform", map[string]any{"program": `{status: "pass", summary: .s}`}, map[string]any{"s": "x"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.typ, tt.with), func(t *testing.T) {
			typ, _ := r.Lookup(tt.typ)
			res, err := typ.Run(t.Context(), &Call{With: tt.with, Input: tt.input})
			if err != nil {
				t.Fatal(err)
			}
			promised := typ.OutputSchema()
			if co, ok := typ.(ConfiguredOutput); ok {
				promised = co.OutputSchemaFor(tt.with)
			}
			if err := valid(compileOutput(t, promised), res.Output); err != nil {
				t.Errorf("output %s: %v", res.Output, err)
			}
		})
	}
}

func TestOutputSchemaFor(t *testing.T) {
	exec := execType{}
	tests := []struct {
		output any
		title  string
	}{
		{nil, "exec node output"},
		{"json", "exec node output"},
		{"wrap", "exec node output (output: wrap)"},
		{"text", "exec node output (output: text)"},
		{"${{ params.mode }}", "exec node output"},
	}
	for _, tt := range tests {
		var s struct{ Title string }
		with := map[string]any{"command": []any{"x"}, "output": tt.output}
		if err := json.Unmarshal(exec.OutputSchemaFor(with), &s); err != nil {
			t.Fatal(err)
		}
		if s.Title != tt.title {
			t.Errorf("output %v: schema %q, want %q", tt.output, s.Title, tt.title)
		}
	}
}

func TestConst(t *testing.T) {
	tests := []struct {
		name    string
		with    map[string]any
		want    string
		wantErr string
	}{
		{"object", map[string]any{"value": map[string]any{"status": "pass", "summary": "ok", "data": map[string]any{"n": 1}}},
			`{"data":{"n":1},"status":"pass","summary":"ok"}`, ""},
		// Not the node's to judge: the engine validates the output.
		{"scalar", map[string]any{"value": 3}, `3`, ""},
		{"missing", map[string]any{}, "", "with/value: required"},
		{"typo", map[string]any{"vaule": 1}, "", `with/vaule: unknown key "vaule" (did you mean "value"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := constType{}.Run(context.Background(), &Call{With: tt.with})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Output) != tt.want {
				t.Errorf("output = %s, want %s", res.Output, tt.want)
			}
		})
	}
}
