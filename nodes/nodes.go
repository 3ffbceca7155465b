// Package nodes holds the node-type registry and seam's generic built-in node types (const,
// exec, http, transform), with what they share: reading configuration and its errors, output
// limits and the masking of secrets. nodes/internal/proc supervises the processes exec runs.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// Type is a node type: what a node's `type:` names.
type Type interface {
	Name() string
	// Doc is one line describing the type, for `seam types`.
	Doc() string
	// ConfigSchema is the JSON Schema of the node's `with`.
	ConfigSchema() []byte
	// OutputSchema is the JSON Schema the type's output always satisfies, narrower than the
	// standard output contract; nil when the type promises nothing beyond it.
	OutputSchema() []byte
	// Run executes one attempt. Output is the node's output as JSON text; the engine parses
	// and validates it, so a type never needs to. An error means the attempt failed to run.
	Run(ctx context.Context, call *Call) (*Result, error)
}

// Checker is implemented by types that check a node's configuration at load time, before
// references are resolved (transform compiles its program). Values that hold references are
// strings containing "${{".
type Checker interface {
	Check(with map[string]any) error
}

// Call is what one attempt of a node receives.
type Call struct {
	Node  string         // node id
	With  map[string]any // configuration with references resolved
	Input any            // the node's input, a decoded JSON value
	Dir   string         // directory of the DAG file; relative paths resolve against it
	Env   []string       // extra environment (KEY=VALUE) for processes the node starts
	// OutputLimit bounds the output size in bytes; 0 means DefaultOutputLimit.
	OutputLimit int64
	// Attempt counts the node's tries from 1. Violations, on a repair attempt, say how the
	// previous output broke the node's contract, so the node can fix it.
	Attempt    int
	Violations []contract.Violation
	// Answer is an approval's answer (the form's fields, decision, comment); nil while
	// there is none.
	Answer map[string]any
	// Secrets are values (the DAG's env values) the type must never echo into its output,
	// log or errors: it masks each occurrence with MaskString or MaskValue.
	Secrets []string
	// Lang is the run's language ("en" or "ja"): the type says its own errors in it.
	Lang i18n.Lang
	// Live, when set, is where a type that may run for a while writes what it prints as it
	// prints it (exec: stderr), for a watcher of the run; nil when no one watches. Unmasked:
	// whoever reads it masks it (engine).
	Live *LiveLog
}

// DefaultOutputLimit bounds a node's output unless configured otherwise.
const DefaultOutputLimit = 16 << 20

// Result is the outcome of an attempt that ran.
type Result struct {
	Output []byte // JSON text
	Log    string // diagnostic text kept with the attempt (exec: stderr, truncated)
	// NotJSONHint, when Output does not parse as JSON, says how to fix that; the engine adds
	// it to the violation (exec: a script printing logs on stdout).
	NotJSONHint string
}

// Registry maps type names to types.
type Registry struct {
	types map[string]Type
}

// NewRegistry returns a registry holding types.
func NewRegistry(types ...Type) *Registry {
	r := &Registry{types: make(map[string]Type, len(types))}
	for _, t := range types {
		r.Add(t)
	}
	return r
}

// Add registers t; a second type of the same name is a programming error.
func (r *Registry) Add(t Type) {
	if _, dup := r.types[t.Name()]; dup {
		panic(fmt.Sprintf("nodes: type %q registered twice", t.Name()))
	}
	r.types[t.Name()] = t
}

// Lookup returns the type called name.
func (r *Registry) Lookup(name string) (Type, bool) {
	t, ok := r.types[name]
	return t, ok
}

// Names returns the registered type names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.types))
	for n := range r.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Pure is implemented by types whose output is a function of their `with` and input alone
// (const, transform). The engine hands a pure node's output on before the run store has
// committed it: after a crash a resume computes it again, so nothing handed on is lost, and a
// chain of pure nodes does not wait for a disk commit at every edge.
type Pure interface {
	Pure()
}

// ConfigError is a problem with one value of a node's configuration, found by a Checker or
// by Run. The loader turns Path and Offset into a file position.
type ConfigError struct {
	Path   string // JSON Pointer into `with`, e.g. "/program"
	Offset int    // byte offset within that string value; -1 when unknown
	Err    error
}

func (e *ConfigError) Error() string { return e.Text("en") }

// Text is the error in lang: Err's message is Japanese for "ja" when it is an i18n.Message
// (the node types' own sentences); others (a jq parse error) are said as they are.
func (e *ConfigError) Text(lang i18n.Lang) string {
	var m i18n.Message
	if errors.As(e.Err, &m) {
		return fmt.Sprintf("with%s: %s", e.Path, m.In(lang))
	}
	return fmt.Sprintf("with%s: %v", e.Path, e.Err)
}
func (e *ConfigError) Unwrap() error { return e.Err }

// ConfiguredOutput is implemented by types whose output schema depends on their
// configuration, as exec's does on `output`. with is unresolved, as a Checker sees it; when
// the deciding value is a reference the result is OutputSchema's.
type ConfiguredOutput interface {
	OutputSchemaFor(with map[string]any) []byte
}

// LocalFiles is implemented by types whose nodes run, or run among, local files that their
// configuration names by paths relative to the DAG file's folder (exec's command and dir): a
// run on another machine (a Temporal worker) must take those files along. with is
// unresolved, as a Checker sees it. A value a reference computes is not named, nor is an
// absolute path, nor a word of a shell script: those must make sense wherever the node runs.
type LocalFiles interface {
	LocalFiles(with map[string]any) []LocalFile
}

// LocalFile is one path a node's configuration names.
type LocalFile struct {
	Path    string // relative to the DAG file's folder, cleaned; it may lead out of it
	Written string // as the configuration writes it, for messages
	// Dir marks a folder the node runs in, any file of which it may read. Otherwise Path
	// may name a file the node runs or reads, or be a word that is not one (an argument):
	// only a regular file is used.
	Dir bool
}

// Closest returns the registered name nearest to name, for "did you mean" hints; "" when
// none is near enough to be a plausible typo.
func (r *Registry) Closest(name string) string { return suggest.Closest(name, r.Names()) }

// OutputLimitError reports a node output larger than its limit (Call.OutputLimit).
type OutputLimitError struct {
	Limit int64
	Lang  i18n.Lang // the language Error says it in
}

func (e *OutputLimitError) Error() string {
	return i18n.Sprintf(e.Lang, "output exceeds the %s limit", formatSize(e.Limit))
}

// formatSize renders a byte count the way people read limits: "16 MiB", "1.5 KiB", "300 bytes".
func formatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n)/1024, units[0]
	for _, u := range units[1:] {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
