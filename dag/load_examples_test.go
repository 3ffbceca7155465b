package dag

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/schemas"
)

// dagSchema compiles schemas/dag.schema.json, the file format's schema for editors.
func dagSchema(t *testing.T) *contract.Schema {
	t.Helper()
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := contract.ParseJSON(schemas.DAG)
	if err != nil {
		t.Fatalf("dag.schema.json: %v", err)
	}
	s, err := c.Inline("dag.schema.json", v)
	if err != nil {
		t.Fatalf("dag.schema.json: %v", err)
	}
	return s
}

// yamlValue decodes a YAML file as the JSON value an editor checks against the schema.
func yamlValue(t *testing.T, src []byte) any {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatalf("YAML: %v", err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	v, err := toValue(doc.Content[0])
	if err != nil {
		t.Fatalf("YAML to JSON: %v", err)
	}
	return v
}

// allTypes is the registry the CLI offers: the built-ins, dag and n8n's types.
func allTypes() *nodes.Registry {
	reg := nodes.Builtin()
	reg.Add(loadOnlyDAGType{})
	for _, t := range n8n.Types(n8n.Options{}) {
		reg.Add(t)
	}
	return reg
}

// TestExamples checks that every example DAG passes the file format's schema and loads
// without diagnostics with every node type the CLI offers.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../dags/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in ../dags: %v", err)
	}
	schema := dagSchema(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(src), "# yaml-language-server: $schema=../schemas/dag.schema.json\n") {
				t.Error("the first line does not point editors at the schema")
			}
			if vs := schema.Validate(yamlValue(t, src), "en"); len(vs) > 0 {
				t.Errorf("schema violations: %+v", vs)
			}
			if _, err := Load(context.Background(), f, LoadOptions{Types: allTypes()}); err != nil {
				t.Errorf("load: %v", err)
			}
		})
	}
}

// TestInvalidFiles checks that files the loader rejects are rejected by the schema too, so
// editors flag them before seam does.
func TestInvalidFiles(t *testing.T) {
	tests := map[string]string{ // file → the code the loader reports
		"bad-id.yaml":            CodeBadID,
		"unknown-key.yaml":       CodeUnknownKey,
		"bad-duration.yaml":      CodeDuration,
		"version.yaml":           CodeVersion,
		"no-type.yaml":           CodeInvalid,
		"no-nodes.yaml":          CodeInvalid,
		"run-if.yaml":            CodeInvalid,
		"retry-on.yaml":          CodeInvalid,
		"foreach-options.yaml":   CodeInvalid,
		"remote-schema.yaml":     CodeRemoteRef,
		"params-not-object.yaml": CodeInvalid,
		"when-not-expr.yaml":     CodeInvalid,
	}
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Errorf("%d files in testdata/invalid, %d in the table", len(files), len(tests))
	}
	schema := dagSchema(t)
	for name, code := range tests {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join("testdata", "invalid", name)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if vs := schema.Validate(yamlValue(t, src), "en"); len(vs) == 0 {
				t.Error("the schema accepts it")
			}
			_, err = Load(context.Background(), f, LoadOptions{Types: nodes.Builtin()})
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("load: %v, want diagnostics", err)
			}
			for _, d := range ds {
				if d.Code == code {
					return
				}
			}
			t.Errorf("no %s among:\n%v", code, ds)
		})
	}
}

// loadOnlyDAGType is the `dag` node type as far as loading goes: the engine registers the one
// that runs, which dag's tests cannot import.
type loadOnlyDAGType struct{ SubDAGType }

func (loadOnlyDAGType) Run(context.Context, *nodes.Call) (*nodes.Result, error) {
	return nil, errors.New("dag's tests do not run DAGs")
}
