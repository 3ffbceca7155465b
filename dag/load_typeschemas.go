package dag

import (
	"sync"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/schemas"
)

// TypeSchemas keeps the node types' config schemas compiled across loads, which otherwise
// compile them again each: the gate loads every changed DAG twice (now and at the revision),
// and compiling them is a large share of a load. Share one only between loads whose
// LoadOptions.Types hold the same types; it is safe for concurrent use. The zero value is
// ready.
type TypeSchemas struct {
	mu sync.Mutex
	// comps are the compilers, by whether they read format as an annotation (a DAG's
	// formats: annotate), as the loader's own would be.
	comps   map[bool]*contract.Compiler
	configs map[typeSchemaKey]schemaResult
}

type typeSchemaKey struct {
	typ      string
	annotate bool
}

// config is t's config schema compiled as a loader whose compiler annotates formats or not
// would compile it.
func (ts *TypeSchemas) config(t nodes.Type, annotate bool) (*contract.Schema, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	key := typeSchemaKey{t.Name(), annotate}
	if r, ok := ts.configs[key]; ok {
		return r.s, r.err
	}
	comp, ok := ts.comps[annotate]
	if !ok {
		var err error
		if comp, err = contract.NewCompiler(contract.Options{Standard: schemas.NodeOutput, AnnotateFormat: annotate}); err != nil {
			return nil, err
		}
		if ts.comps == nil {
			ts.comps = map[bool]*contract.Compiler{}
			ts.configs = map[typeSchemaKey]schemaResult{}
		}
		ts.comps[annotate] = comp
	}
	s, err := builtinSchema(comp, t.ConfigSchema(), "node type "+t.Name()+" config")
	ts.configs[key] = schemaResult{s, err}
	return s, err
}
