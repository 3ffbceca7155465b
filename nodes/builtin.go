package nodes

import (
	"github.com/seam-dag/seam/internal/i18n"

	"embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/seam-dag/seam/internal/suggest"
	"github.com/seam-dag/seam/nodes/internal/proc"
)

// Builtin returns a registry of the generic built-in types: approval, const, exec, http and
// transform.
// Other packages add theirs (n8n.*) with Registry.Add.
func Builtin() *Registry {
	return NewRegistry(approvalType{}, constType{}, execType{guard: &proc.Watchdog{}}, httpType{}, newTransformType())
}

// outputLimit is the call's output limit in bytes, DefaultOutputLimit unless set.
func (c *Call) outputLimit() int64 {
	if c.OutputLimit > 0 {
		return c.OutputLimit
	}
	return DefaultOutputLimit
}

//go:embed schemas/*.json
var schemaFiles embed.FS

// schema returns a fresh copy of an embedded schema, so callers may keep or change it.
func schema(name string) []byte {
	b, err := schemaFiles.ReadFile("schemas/" + name)
	if err != nil {
		panic(fmt.Sprintf("nodes: embedded schema %s: %v", name, err))
	}
	return b
}

// isRef reports whether a configuration value is still an unresolved reference, which a
// Checker must treat as unknown.
func isRef(v any) bool {
	s, ok := v.(string)
	return ok && strings.Contains(s, "${{")
}

// configErr is a ConfigError whose message is said in the language of whoever prints it.
func configErr(path string, msg i18n.Message) *ConfigError {
	return &ConfigError{Path: path, Offset: -1, Err: msg}
}

// checkKeys rejects keys outside known, naming the nearest known key: the config schemas
// say the same, but a Checker catches the typo at load time.
func checkKeys(with map[string]any, known ...string) error {
	keys := make([]string, 0, len(with))
	for k := range with {
		keys = append(keys, k)
	}
	slices.Sort(keys) // report the same key every time
	for _, k := range keys {
		if slices.Contains(known, k) {
			continue
		}
		if hint := suggest.Closest(k, known); hint != "" {
			return configErr("/"+k, i18n.M("unknown key %q (did you mean %q?)", k, hint))
		}
		return configErr("/"+k, i18n.M("unknown key %q (known: %s)", k, strings.Join(known, ", ")))
	}
	return nil
}

// intValue reads an integer however the decoder that produced v represents numbers.
func intValue(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<53
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}
