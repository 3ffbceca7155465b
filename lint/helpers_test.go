package lint

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// The loader's test types and helpers, as the lint tests need them.

// loadTestType is a node type with fixed schemas and an optional check, for lint tests.
type loadTestType struct {
	name, config, output string
	check                func(map[string]any) error
}

func (t loadTestType) Name() string { return t.name }
func (t loadTestType) Doc() string  { return "test type " + t.name }
func (t loadTestType) ConfigSchema() []byte {
	if t.config == "" {
		return nil
	}
	return []byte(t.config)
}
func (t loadTestType) OutputSchema() []byte {
	if t.output == "" {
		return nil
	}
	return []byte(t.output)
}
func (t loadTestType) Run(context.Context, *nodes.Call) (*nodes.Result, error) {
	return nil, errors.New("lint tests do not run nodes")
}

// loadTestChecked is a loadTestType whose check runs at load time.
type loadTestChecked struct{ loadTestType }

func (t loadTestChecked) Check(with map[string]any) error { return t.check(with) }

// loadTestTypes: const (with.value), echo (with.text, promises data.text), jq (checks its
// program: "BAD" in it is an error at that offset).
func loadTestTypes() *nodes.Registry {
	return nodes.NewRegistry(
		loadTestType{name: "const",
			config: `{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{}}}`},
		loadTestType{name: "echo",
			config: `{"type":"object","additionalProperties":false,"properties":{"text":{"type":"string"},"count":{"type":"integer"}}}`,
			output: `{"type":"object","required":["data"],"properties":{"data":{"type":"object","required":["text"]}}}`},
		loadTestChecked{loadTestType{name: "jq",
			config: `{"type":"object","required":["program"],"properties":{"program":{"type":"string"}}}`,
			check: func(with map[string]any) error {
				p, _ := with["program"].(string)
				if i := strings.Index(p, "BAD"); i >= 0 {
					return &nodes.ConfigError{Path: "/program", Offset: i, Err: errors.New("syntax error: unexpected token BAD")}
				}
				return nil
			}}},
	)
}

func loadTest(t *testing.T, src string) (*dag.DAG, dag.Diagnostics) {
	t.Helper()
	d, err := dag.LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), dag.LoadOptions{Types: loadTestTypes()})
	if err == nil {
		return d, nil
	}
	var ds dag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("LoadBytes: %v (%T), want Diagnostics", err, err)
	}
	return nil, ds
}

// head is the start every test file shares: lines 1-3, nodes on line 4.
const head = "version: 1\nname: t\nnodes:\n"
