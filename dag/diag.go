package dag

import (
	"fmt"
	"strings"
)

// Diagnostic is a problem found in a DAG file, at a position, with a stable code.
type Diagnostic struct {
	Pos     Pos
	Code    string // SEAM-Exxx; see docs/errors.md
	Message string
	Hint    string // how to fix it; may be empty
}

func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", d.Pos.File, d.Pos.Line, d.Pos.Col)
	}
	fmt.Fprintf(&b, "error %s %s", d.Code, d.Message)
	if d.Hint != "" {
		fmt.Fprintf(&b, "\n  fix: %s", d.Hint)
	}
	return b.String()
}

// Diagnostics is the error Load returns: every problem found, in file order.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, "\n")
}

// Load error codes. They are stable: tools and docs refer to them.
const (
	CodeYAML          = "SEAM-E100" // YAML syntax
	CodeUnknownKey    = "SEAM-E101" // a key the format does not have
	CodeDuplicateNode = "SEAM-E102"
	CodeBadID         = "SEAM-E103" // a node id that is not [a-z][a-z0-9_-]*
	CodeUnknownType   = "SEAM-E104"
	CodeUnknownNode   = "SEAM-E105" // a reference or needs entry naming no node
	CodeUnknownParam  = "SEAM-E106" // a reference to a params field the params schema lacks
	CodeCycle         = "SEAM-E107"
	CodeDuration      = "SEAM-E108"
	CodeExpr          = "SEAM-E109" // a ${{ }} expression that does not compile
	CodeSchema        = "SEAM-E110" // an invalid JSON Schema
	CodeSchemaMissing = "SEAM-E111" // a schema file that does not exist
	CodeRemoteRef     = "SEAM-E112" // a remote $ref, refused
	CodeInvalid       = "SEAM-E113" // a value of the wrong shape (wrong type, bad enum, missing key)
	CodeConfig        = "SEAM-E114" // a node's `with` breaks its type's config schema or check
	CodeVersion       = "SEAM-E115" // an unsupported `version`
	CodeDuplicateKey  = "SEAM-E116" // a mapping key written twice (other than a node id)
	CodeUndeclaredEnv = "SEAM-E117" // env.NAME where the DAG does not list NAME under env
	CodeSubDAG        = "SEAM-E118" // a dag node's file that cannot be read or does not load
	CodeLimit         = "SEAM-E120" // a schema or number beyond seam's limits (contract.ErrLimit)
)
