package dag

// Scope is what references may name while a run evaluates a template or an expression.
// It is read by one goroutine at a time (the engine's scheduler).
type Scope struct {
	Params  map[string]any
	Outputs map[string]any // node id → its validated output (decoded JSON)
	Run     RunInfo
	// Item and Index are set inside a foreach iteration.
	Item    any
	Index   int
	HasItem bool
}

// RunInfo is what `run` names in expressions.
type RunInfo struct {
	ID   string
	Name string
}

// Template is a configuration or input value whose strings may hold ${{ }} references.
type Template struct {
	// TODO(loader): implementation.
}

// Eval resolves the template into a JSON value (map[string]any, []any, string, bool, nil,
// json.Number, float64 or int64 as CEL yields them). A string that is exactly one reference
// takes the referenced value with its type; a string mixing text and references is
// interpolation and takes scalars only.
func (t *Template) Eval(s *Scope) (any, error) { panic("TODO") }

// Expr is one compiled ${{ }} expression.
type Expr struct {
	Src string // the expression text between ${{ and }}
	Pos Pos
}

// Bool evaluates the expression as a condition (`when`).
func (e *Expr) Bool(s *Scope) (bool, error) { panic("TODO") }
