package engine

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// RefKey is the key of an output's stub: a hosted run whose host cannot carry an output keeps
// it in the run store and carries {"status": …, "summary": …, "$seam_output": "<hash>"}
// instead, and Attempt puts the stored output back wherever with or input hold the stub.
const RefKey = "$seam_output"

// MaxStubSummary bounds, in bytes, the summary a stub carries: a longer one is cut.
const MaxStubSummary = 4 << 10

var refKeyJSON = []byte(`"` + RefKey + `"`)

// Fetch reads the output stored under hash (runs.Store.Output).
type Fetch func(ctx context.Context, hash string) ([]byte, error)

// RefStub is the stub of output stored under hash: the hash, with output's status and
// summary when it is an object that has them, so that a run's workflow still sees how the
// node judged itself.
func RefStub(output []byte, hash string) []byte {
	stub := map[string]json.RawMessage{}
	var top map[string]json.RawMessage
	if json.Unmarshal(output, &top) == nil {
		for _, k := range []string{"status", "summary"} {
			if v, ok := top[k]; ok {
				stub[k] = v
			}
		}
		var summary string
		if json.Unmarshal(stub["summary"], &summary) == nil && len(summary) > MaxStubSummary {
			// The stub must stay small: a long summary is cut, on a character's boundary.
			cut := MaxStubSummary
			for cut > 0 && !utf8.RuneStart(summary[cut]) {
				cut--
			}
			stub["summary"], _ = json.Marshal(summary[:cut] + "…")
		}
	}
	stub[RefKey], _ = json.Marshal(hash)
	b, _ := json.Marshal(stub) // raw values already valid JSON
	return b
}

// refHash returns the hash v names when v is an output's stub.
func refHash(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	h, ok := m[RefKey].(string)
	return h, ok
}

// holdsRef reports whether v holds an output's stub anywhere.
func holdsRef(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := refHash(v); ok {
			return true
		}
		for _, e := range v {
			if holdsRef(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsRef(e) {
				return true
			}
		}
	}
	return false
}

// refLimit bounds the bytes of the outputs one attempt reads by reference, together: a few
// of the largest outputs a run may hold, so a fan-in of large outputs fits while memory
// stays bounded (docs/limits.md).
func refLimit(outputLimit int64) int64 {
	if outputLimit <= 0 {
		outputLimit = nodes.DefaultOutputLimit
	}
	return 4 * outputLimit
}

// expander puts stored outputs in place of their stubs in an attempt's with and input.
type expander struct {
	ctx   context.Context
	fetch Fetch
	node  string
	lang  i18n.Lang
	limit int64 // refLimit
	got   int64 // bytes read so far
}

// expand returns v with every stub replaced by the output it names.
func (x *expander) expand(v any) (any, error) {
	switch e := v.(type) {
	case map[string]any:
		if h, ok := refHash(e); ok {
			return x.read(h)
		}
		for k, c := range e {
			n, err := x.expand(c)
			if err != nil {
				return nil, err
			}
			e[k] = n
		}
	case []any:
		for k, c := range e {
			n, err := x.expand(c)
			if err != nil {
				return nil, err
			}
			e[k] = n
		}
	}
	return v, nil
}

func (x *expander) read(hash string) (any, error) {
	if x.fetch == nil {
		return nil, i18n.Errorf(x.lang, "%s gets output %s by reference, and this worker has no run store to read it from", x.node, hash)
	}
	b, err := x.fetch(x.ctx, hash)
	if err != nil {
		return nil, i18n.Errorf(x.lang, "%s gets output %s by reference, which could not be read: %v", x.node, hash, err)
	}
	if x.got += int64(len(b)); x.got > x.limit {
		return nil, i18n.Errorf(x.lang, "%s gets outputs by reference over %d bytes in all (docs/limits.md)", x.node, x.limit)
	}
	v, err := contract.ParseJSON(b)
	if err != nil {
		return nil, i18n.Errorf(x.lang, "%s gets output %s by reference, which is not JSON: %v", x.node, hash, err)
	}
	return v, nil
}
