package nodes

import (
	"context"
	"encoding/json"
	"fmt"
)

// constType emits its configured value: fixtures, defaults and stubs in a DAG.
type constType struct{}

func (constType) Name() string { return "const" }
func (constType) Doc() string  { return "Emits its with.value as the node's output." }

func (constType) ConfigSchema() []byte { return schema("const.config.json") }

// OutputSchema is nil: the configured value is the output, so the type promises nothing
// beyond the standard contract (and the engine validates against that alone, which is faster).
func (constType) OutputSchema() []byte { return nil }

// constConfig is a const node's `with`.
type constConfig struct {
	Value any `config:"value,required"`
}

func (constType) Check(with map[string]any) error {
	return DecodeConfig(with, &constConfig{})
}

// Run hands the value on as JSON; whether it meets the contract is the engine's to say.
func (constType) Run(ctx context.Context, call *Call) (*Result, error) {
	var cfg constConfig
	if err := DecodeConfig(call.With, &cfg); err != nil {
		return nil, err
	}
	out, err := json.Marshal(cfg.Value)
	if err != nil {
		return nil, fmt.Errorf("const: encode value: %w", err)
	}
	return &Result{Output: out}, nil
}

// Pure marks the type: see nodes.Pure.
func (constType) Pure() {}
