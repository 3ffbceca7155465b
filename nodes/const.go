package nodes

import (
	"github.com/seam-dag/seam/internal/i18n"

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

func (constType) Check(with map[string]any) error {
	if err := checkKeys(with, "value"); err != nil {
		return err
	}
	if _, ok := with["value"]; !ok {
		return configErr("/value", i18n.M("required"))
	}
	return nil
}

// Run hands the value on as JSON; whether it meets the contract is the engine's to say.
func (c constType) Run(ctx context.Context, call *Call) (*Result, error) {
	if err := c.Check(call.With); err != nil {
		return nil, err
	}
	out, err := json.Marshal(call.With["value"])
	if err != nil {
		return nil, fmt.Errorf("const: encode value: %w", err)
	}
	return &Result{Output: out}, nil
}

// Pure marks the type: see nodes.Pure.
func (constType) Pure() {}
