// Package nodestest gives loader and lint tests node types with fixed schemas that load but
// never run.
package nodestest

import (
	"context"
	"errors"
	"strings"

	"github.com/seam-dag/seam/nodes"
)

// loadType is a node type with fixed schemas and an optional check.
type loadType struct {
	name, config, output string
	check                func(map[string]any) error
}

func (t loadType) Name() string { return t.name }
func (t loadType) Doc() string  { return "test type " + t.name }
func (t loadType) ConfigSchema() []byte {
	if t.config == "" {
		return nil
	}
	return []byte(t.config)
}
func (t loadType) OutputSchema() []byte {
	if t.output == "" {
		return nil
	}
	return []byte(t.output)
}
func (t loadType) Run(context.Context, *nodes.Call) (*nodes.Result, error) {
	return nil, errors.New("load-only test types do not run")
}

// checked is a loadType whose check runs at load time.
type checked struct{ loadType }

func (t checked) Check(with map[string]any) error { return t.check(with) }

// LoadTypes: const (with.value), echo (with.text, promises data.text), jq (checks its
// program: "BAD" in it is an error at that offset).
func LoadTypes() *nodes.Registry {
	return nodes.NewRegistry(
		loadType{name: "const",
			config: `{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{}}}`},
		loadType{name: "echo",
			config: `{"type":"object","additionalProperties":false,"properties":{"text":{"type":"string"},"count":{"type":"integer"}}}`,
			output: `{"type":"object","required":["data"],"properties":{"data":{"type":"object","required":["text"]}}}`},
		checked{loadType{name: "jq",
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
