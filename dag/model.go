// Package dag loads DAG files (keeping every YAML position), models them, resolves their
// references, builds their graph, and defines the records of a run that engines make and
// stores keep.
package dag

import (
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/nodes"
)

// DAG is a loaded, checked DAG file.
type DAG struct {
	File        string // path as given to Load
	Hash        string // hex SHA-256 of the file's bytes
	Dir         string // directory relative paths resolve against
	Version     int
	Name        string
	NamePos     Pos // where the file gives Name: two files giving one name are warned about
	Description string
	Params      *contract.Schema // nil when the file declares no params
	// Formats is how the file's contracts read `format`: FormatsAssert (the default) or
	// FormatsAnnotate, for contracts written for tools that do not check it.
	Formats string
	// Catalog are the folders of vendored schemas that $refs by absolute URL resolve to
	// (`catalog:`), their paths absolute.
	Catalog []contract.CatalogEntry
	// Env are the environment variables the file opts in to with `env:`, and the literal
	// settings it gives there, in file order: the only ones `${{ env.NAME }}` may read; those
	// read from the environment are secrets (see LookupEnv).
	Env         []EnvVar
	Defaults    Defaults
	Concurrency int           // nodes running at once, ≥ 1
	Timeout     time.Duration // bounds the whole run; 0: none
	Nodes       []*Node       // in file order
	ByID        map[string]*Node
	Outputs     []Output // in file order
	// Order is a topological order of Nodes (producers before consumers), stable with
	// respect to file order.
	Order []*Node
	// Sources are the files the load read, by path as the loader read each: the DAG file,
	// its schema files and their $refs, its sub-DAG files and theirs, at any depth. What
	// checks whether a DAG changed (a lint cache, the contract gate) and what ships it (the
	// Temporal bundle) use them instead of reading the files again.
	Sources map[string]Source
	// SubDAGs are the DAGs its `dag` nodes run, by node id, as loaded with it (nil: none).
	SubDAGs map[string]*DAG
	// Triggers start runs by themselves (schedules and webhooks), in file order.
	Triggers []*Trigger
}

// Values of DAG.Formats.
const (
	FormatsAssert   = "assert"
	FormatsAnnotate = "annotate"
)

// Defaults apply to every node that does not say otherwise.
type Defaults struct {
	Timeout time.Duration // 0: none
	Retry   Retry
}

// Retry says how often and when a node is re-run after a failed attempt.
type Retry struct {
	Attempts   int // total attempts, ≥ 1
	Backoff    time.Duration
	Factor     float64
	MaxBackoff time.Duration
	On         []string // error, timeout, contract
}

// RunIf decides whether a node runs after an upstream failure.
type RunIf string

const (
	RunIfSuccess RunIf = "success" // only when every upstream node passed or warned (default)
	RunIfAlways  RunIf = "always"
	RunIfFailure RunIf = "failure" // only when some upstream node failed
)

// Node is one node of a DAG.
type Node struct {
	ID   string
	Pos  Pos // position of the node's key in the file
	Type nodes.Type
	// Config is the type's config schema, compiled; `with` is checked against it once resolved.
	Config *contract.Schema
	With   *Template // never nil; an empty object when absent
	// WithPos is where each top-level value of `with` is written, by key (for findings
	// inside one, such as a transform's program).
	WithPos map[string]Pos
	Input   *Template // nil: the node receives its upstream outputs keyed by id
	// InputPos is the position of the node's `input` key (zero when it has none).
	InputPos Pos
	Needs    []string
	When     *Expr // nil: always
	RunIf    RunIf
	// Foreach, when set, runs the node once per item of the list it evaluates to.
	Foreach            *Template
	ForeachConcurrency int
	MaxItems           int
	Retry              Retry
	Timeout            time.Duration
	Repair             int              // on_invalid.repair
	InputContract      *contract.Schema // nil: none declared
	OutputContract     *contract.Schema // declared contract.output; nil: none
	// Form is an approval node's form, compiled (the answer is validated against it); nil
	// for other types.
	Form *contract.Schema
	// Effective is what the node's output is validated against: the standard contract, the
	// type's output schema and the declared output contract, all at once.
	Effective *contract.Schema
	// Deps are the ids this node depends on (references and needs), in file order.
	Deps []string
	// Hash identifies the node's definition (its YAML, re-encoded): a resume reuses an
	// output only from a node defined the same way.
	Hash string
}

// WhenReadsStatus reports whether n's when reads nodes.<id>.status: then id's failure (or
// skip) does not skip n under run_if: success, and the when decides.
func (n *Node) WhenReadsStatus(id string) bool {
	if n.When == nil {
		return false
	}
	for _, r := range n.When.refs {
		if r.Root == "status" && r.Node == id {
			return true
		}
	}
	return false
}

// Output is one entry of the DAG's outputs.
type Output struct {
	Name  string
	Pos   Pos
	Value *Template
}

// Pos is a position in a DAG file.
type Pos struct {
	File string
	Line int // 1-based
	Col  int // 1-based
}
