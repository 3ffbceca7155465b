// Package schemas embeds seam's own JSON Schemas: the standard node output contract and the
// schema of the DAG file format.
package schemas

import _ "embed"

// NodeOutput is the standard output contract every node's output must satisfy.
//
//go:embed node-output.schema.json
var NodeOutput []byte

// DAG is the JSON Schema of the DAG file format, for editors and for tests.
//
//go:embed dag.schema.json
var DAG []byte
