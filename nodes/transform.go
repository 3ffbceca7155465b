package nodes

import (
	"github.com/seam-dag/seam/internal/i18n"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/itchyny/gojq"
)

// transformType runs a jq program over the node's input: the "transformer between A and B"
// that reshapes one node's output into what the next accepts.
type transformType struct {
	// codes caches compiled programs by compileKey; a DAG runs the same few programs many
	// times (retries, foreach items, runs of a server).
	codes sync.Map
}

func newTransformType() *transformType { return &transformType{} }

func (*transformType) Name() string { return "transform" }
func (*transformType) Doc() string {
	return "Runs a jq program (gojq) over the input; its first result is the output."
}

func (*transformType) ConfigSchema() []byte { return schema("transform.config.json") }

// OutputSchema is nil: the program decides the output, so the type promises nothing beyond
// the standard contract.
func (*transformType) OutputSchema() []byte { return nil }

// Check compiles the program at load time, so that a syntax error is reported with its
// position before anything runs. A program or vars given by reference is checked at run.
func (t *transformType) Check(with map[string]any) error {
	cfg, err := transformConfigOf(with)
	if err != nil || isRef(cfg.Program) {
		return err
	}
	if isRef(cfg.Vars) {
		// The variables' names are unknown, so only the syntax can be checked.
		_, err := gojq.Parse(cfg.Program)
		return parseError(err)
	}
	names, _, err := varsOf(cfg.Vars)
	if err != nil {
		return err
	}
	_, err = t.compile(cfg.Program, names)
	return err
}

func (t *transformType) Run(ctx context.Context, call *Call) (*Result, error) {
	cfg, err := transformConfigOf(call.With)
	if err != nil {
		return nil, err
	}
	names, values, err := varsOf(cfg.Vars)
	if err != nil {
		return nil, err
	}
	code, err := t.compile(cfg.Program, names)
	if err != nil {
		return nil, err
	}
	input, err := jqValue(call.Input)
	if err != nil {
		return nil, fmt.Errorf("transform: input: %w", err)
	}
	for i, v := range values {
		if values[i], err = jqValue(v); err != nil {
			return nil, fmt.Errorf("transform: vars %s: %w", names[i], err)
		}
	}

	v, ok := code.RunWithContext(ctx, input, values...).Next()
	if err, isErr := v.(error); isErr {
		var halt *gojq.HaltError
		if !errors.As(err, &halt) || halt.Value() != nil {
			return nil, fmt.Errorf("transform: %w", err)
		}
		ok = false // a plain `halt` stops the program before it emits anything
	}
	if !ok {
		return nil, i18n.Errorf(call.Lang, "transform: program produced no output")
	}
	out, err := gojq.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("transform: encode result: %w", err)
	}
	if limit := call.outputLimit(); int64(len(out)) > limit {
		return nil, fmt.Errorf("transform: %w", &OutputLimitError{Limit: limit, Lang: call.Lang})
	}
	return &Result{Output: out}, nil
}

// transformConfig is a transform node's `with`.
type transformConfig struct {
	Program string `config:"program,required"`
	Vars    any    `config:"vars"` // read by varsOf
}

func transformConfigOf(with map[string]any) (transformConfig, error) {
	var cfg transformConfig
	if err := DecodeConfig(with, &cfg); err != nil {
		return cfg, err
	}
	if strings.TrimSpace(cfg.Program) == "" {
		return cfg, configErr("/program", i18n.M("must not be empty"))
	}
	return cfg, nil
}

// varsOf returns the variables' names ("$limit") sorted, and their values in that order.
func varsOf(v any) ([]string, []any, error) {
	if v == nil {
		return nil, nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, configErr("/vars", i18n.M("must be a mapping of names to values, got %s", jsonType(v)))
	}
	byName := make(map[string]any, len(m))
	for k, val := range m {
		name := "$" + strings.TrimPrefix(k, "$")
		if !isVarName(name[1:]) {
			return nil, nil, configErr("/vars/"+pointerEscape(k), i18n.M("%q is not a jq variable name", k))
		}
		if _, dup := byName[name]; dup {
			return nil, nil, configErr("/vars/"+pointerEscape(k), i18n.M("%s is given twice", name))
		}
		byName[name] = val
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	values := make([]any, len(names))
	for i, name := range names {
		values[i] = byName[name]
	}
	return names, values, nil
}

func isVarName(s string) bool {
	for i, r := range s {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// compile returns the program compiled for the variables names, from the cache if it can.
func (t *transformType) compile(program string, names []string) (*gojq.Code, error) {
	key := program + "\x00" + strings.Join(names, ",")
	if code, ok := t.codes.Load(key); ok {
		return code.(*gojq.Code), nil
	}
	query, err := gojq.Parse(program)
	if err != nil {
		return nil, parseError(err)
	}
	code, err := gojq.Compile(query, gojq.WithVariables(names))
	if err != nil {
		return nil, &ConfigError{Path: "/program", Offset: -1, Err: err}
	}
	t.codes.Store(key, code)
	return code, nil
}

// parseError turns a gojq parse error into a ConfigError pointing at the offending token.
func parseError(err error) error {
	if err == nil {
		return nil
	}
	offset := -1
	var pe *gojq.ParseError
	if errors.As(err, &pe) {
		// gojq reports the offset after the token; the token's start is what to show.
		offset = pe.Offset - len(pe.Token)
	}
	return &ConfigError{Path: "/program", Offset: offset, Err: err}
}

// jqValue returns v in the types gojq accepts, converting through JSON what a decoder other
// than encoding/json (YAML's int64, typed maps) produced.
func jqValue(v any) (any, error) {
	if jqReady(v) {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // gojq keeps json.Number exact
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func jqReady(v any) bool {
	switch v := v.(type) {
	case nil, bool, int, float64, *big.Int, json.Number, string:
		return true
	case []any:
		for _, e := range v {
			if !jqReady(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !jqReady(e) {
				return false
			}
		}
		return true
	}
	return false
}

// Pure marks the type: see nodes.Pure.
func (*transformType) Pure() {}
