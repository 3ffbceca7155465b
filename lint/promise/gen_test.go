package promise_test

import (
	"fmt"
	"slices"
	"strings"

	"pgregory.net/rapid"
)

// A schema of the generator's small language: every keyword here is one lint models.
type schema struct {
	kind     string // object, array, integer, number, string, boolean, anyOf, ref
	props    []prop // object
	nullable bool   // object: type [object, null]
	closed   bool   // object: additionalProperties false
	items    *schema
	minItems int
	min, max *int     // integer
	enum     []string // string
	minLen   int      // string
	branches []*schema
	ref      string // ref: "#/$defs/D1" or "shared.json#/$defs/F1"
	file     bool   // ref: into the file beside the DAG
	target   *schema
}

type prop struct {
	name     string
	required bool
	s        *schema
}

// defs collects the $defs a producer's contract and the shared file hold.
type defs struct {
	prefix      string // the producer's id: names in the shared file are unique across producers
	inFile      bool   // drawing a schema that lives in the shared file
	local, file []named
}

type named struct {
	name string
	s    *schema
}

var memberNames = []string{"a", "b", "c", "d"}

// genSchema draws a schema of at most depth levels of nesting.
func genSchema(t *rapid.T, ds *defs, depth int, label string) *schema {
	kinds := []string{"integer", "string", "boolean", "number"}
	if depth > 0 {
		kinds = append(kinds, "object", "object", "array", "array", "anyOf", "ref")
	}
	return genKind(t, ds, depth, label, rapid.SampledFrom(kinds).Draw(t, label+".kind"))
}

// genKind draws a schema of kind k.
func genKind(t *rapid.T, ds *defs, depth int, label, k string) *schema {
	s := &schema{kind: k}
	switch k {
	case "integer":
		if rapid.Bool().Draw(t, label+".bounded") {
			lo := rapid.IntRange(-2, 2).Draw(t, label+".min")
			hi := lo + rapid.IntRange(0, 4).Draw(t, label+".span")
			s.min, s.max = &lo, &hi
		}
	case "string":
		if rapid.IntRange(0, 2).Draw(t, label+".enum") == 0 {
			s.enum = []string{"a", "b"}
		} else {
			s.minLen = rapid.IntRange(0, 2).Draw(t, label+".minLength")
		}
	case "object":
		n := rapid.IntRange(1, 3).Draw(t, label+".members")
		for i := range n {
			s.props = append(s.props, prop{
				name:     memberNames[i],
				required: rapid.Bool().Draw(t, fmt.Sprintf("%s.%s.required", label, memberNames[i])),
				s:        genSchema(t, ds, depth-1, label+"."+memberNames[i]),
			})
		}
		s.nullable = rapid.IntRange(0, 4).Draw(t, label+".nullable") == 0
		s.closed = rapid.IntRange(0, 2).Draw(t, label+".closed") == 0
	case "array":
		s.items = genSchema(t, ds, depth-1, label+"[]")
		s.minItems = rapid.IntRange(0, 2).Draw(t, label+".minItems")
	case "anyOf":
		s.branches = []*schema{genSchema(t, ds, depth-1, label+"|0"), genSchema(t, ds, depth-1, label+"|1")}
	case "ref":
		// Inside the shared file, a $ref can only be to the file's own $defs.
		s.file = ds.inFile || rapid.Bool().Draw(t, label+".file")
		outer := ds.inFile
		ds.inFile = s.file
		s.target = genSchema(t, ds, depth-1, label+"$")
		ds.inFile = outer
		if s.file {
			name := fmt.Sprintf("%sF%d", ds.prefix, len(ds.file)+1)
			ds.file = append(ds.file, named{name, s.target})
			s.ref = "shared.json#/$defs/" + name
			if outer {
				s.ref = "#/$defs/" + name
			}
		} else {
			name := fmt.Sprintf("D%d", len(ds.local)+1)
			ds.local = append(ds.local, named{name, s.target})
			s.ref = "#/$defs/" + name
		}
	}
	return s
}

// render is s as JSON Schema; inline replaces each $ref by its target (for a consumer's
// contract, which lives in another document).
func (s *schema) render(inline bool) map[string]any {
	m := map[string]any{}
	switch s.kind {
	case "object":
		m["type"] = "object"
		if s.nullable {
			m["type"] = []any{"object", "null"}
		}
		props := map[string]any{}
		var req []any
		for _, p := range s.props {
			props[p.name] = p.s.render(inline)
			if p.required {
				req = append(req, p.name)
			}
		}
		m["properties"] = props
		if req != nil {
			m["required"] = req
		}
		if s.closed {
			m["additionalProperties"] = false
		}
	case "array":
		m["type"] = "array"
		m["items"] = s.items.render(inline)
		if s.minItems > 0 {
			m["minItems"] = s.minItems
		}
	case "integer":
		m["type"] = "integer"
		if s.min != nil {
			m["minimum"], m["maximum"] = *s.min, *s.max
		}
	case "string":
		m["type"] = "string"
		if s.enum != nil {
			m["enum"] = []any{s.enum[0], s.enum[1]}
		} else if s.minLen > 0 {
			m["minLength"] = s.minLen
		}
	case "number", "boolean":
		m["type"] = s.kind
	case "anyOf":
		m["anyOf"] = []any{s.branches[0].render(inline), s.branches[1].render(inline)}
	case "ref":
		if inline {
			return s.target.render(true)
		}
		m["$ref"] = s.ref
	}
	return m
}

// genValue draws a value s accepts (the test validates it with seam's validator anyway).
func genValue(t *rapid.T, s *schema, label string) any {
	switch s.kind {
	case "object":
		if s.nullable && rapid.IntRange(0, 3).Draw(t, label+".null") == 0 {
			return nil
		}
		m := map[string]any{}
		for _, p := range s.props {
			if p.required || rapid.Bool().Draw(t, label+"."+p.name+".present") {
				m[p.name] = genValue(t, p.s, label+"."+p.name)
			}
		}
		return m
	case "array":
		n := s.minItems + rapid.IntRange(0, 2).Draw(t, label+".len")
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(t, s.items, fmt.Sprintf("%s[%d]", label, i))
		}
		return a
	case "integer":
		lo, hi := -3, 5
		if s.min != nil {
			lo, hi = *s.min, *s.max
		}
		return rapid.IntRange(lo, hi).Draw(t, label)
	case "number":
		return float64(rapid.IntRange(-4, 8).Draw(t, label)) / 2
	case "string":
		if s.enum != nil {
			return rapid.SampledFrom(s.enum).Draw(t, label)
		}
		return rapid.SampledFrom([]string{"a", "bb", "zzz"}[s.minLen:]).Draw(t, label)
	case "boolean":
		return rapid.Bool().Draw(t, label)
	case "anyOf":
		return genValue(t, s.branches[rapid.IntRange(0, 1).Draw(t, label+".branch")], label)
	case "ref":
		return genValue(t, s.target, label)
	}
	panic("unknown schema kind " + s.kind)
}

// The risks a path step takes: what may make it absent in a valid value. Their order is the
// order in which a break is attributed to them (the most particular first).
const (
	riskNullable   = "nullable"
	riskAnyOf      = "anyof"
	riskIndex      = "index"
	riskOptional   = "optional"
	riskUndeclared = "undeclared"
)

var riskOrder = []string{riskUndeclared, riskNullable, riskAnyOf, riskIndex, riskOptional}

type step struct {
	name  string
	index int // when name == ""
	risks []string
}

// path is a plain reference into a producer's output: nodes.<producer>.output<steps>.
type path struct {
	producer string
	steps    []step
	end      *schema // the schema where it ends; nil past an undeclared member
}

func (p path) String() string {
	var b strings.Builder
	b.WriteString("nodes." + p.producer + ".output")
	for _, s := range p.steps {
		if s.name != "" {
			b.WriteString("." + s.name)
		} else {
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	return b.String()
}

// lastIsMember reports whether has() may take the path.
func (p path) lastIsMember() bool { return len(p.steps) > 0 && p.steps[len(p.steps)-1].name != "" }

// genPath draws a plain reference into producer's output, whose data is data.
func genPath(t *rapid.T, producer string, data *schema, label string) path {
	p := path{producer: producer}
	switch rapid.IntRange(0, 9).Draw(t, label+".root") {
	case 0:
		p.steps = []step{{name: "summary"}}
		p.end = &schema{kind: "string", minLen: 1}
		return p
	case 1:
		return p // the whole output: an object
	}
	p.steps = []step{{name: "data"}}
	s := data
	var pending []string // risks the next step takes: an anyOf branch chosen, a file entered
	for depth := 0; ; depth++ {
		for s.kind == "ref" || s.kind == "anyOf" {
			if s.kind == "ref" {
				s = s.target
				continue
			}
			if depth > 0 && rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("%s.%d.stopAtAnyOf", label, depth)) == 0 {
				p.end = s
				return p
			}
			s = s.branches[rapid.IntRange(0, 1).Draw(t, fmt.Sprintf("%s.%d.branch", label, depth))]
			pending = append(pending, riskAnyOf)
		}
		if s.kind != "object" && s.kind != "array" ||
			depth > 0 && rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("%s.%d.stop", label, depth)) == 0 {
			p.end = s
			return p
		}
		risks := slices.Clone(pending)
		pending = nil
		if s.kind == "array" {
			i := rapid.IntRange(0, s.minItems+1).Draw(t, fmt.Sprintf("%s.%d.index", label, depth))
			if i >= s.minItems {
				risks = append(risks, riskIndex)
			}
			p.steps = append(p.steps, step{index: i, risks: risks})
			s = s.items
			continue
		}
		if s.nullable {
			risks = append(risks, riskNullable)
		}
		if rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("%s.%d.undeclared", label, depth)) == 0 {
			p.steps = append(p.steps, step{name: "zz", risks: append(risks, riskUndeclared)})
			return p
		}
		m := s.props[rapid.IntRange(0, len(s.props)-1).Draw(t, fmt.Sprintf("%s.%d.member", label, depth))]
		if !m.required {
			risks = append(risks, riskOptional)
		}
		p.steps = append(p.steps, step{name: m.name, risks: risks})
		s = m.s
	}
}

// resolve walks v along steps as the run does; when a step finds nothing it returns the
// risk that step took, the most particular first ("" when it took none).
func resolve(v any, steps []step) (any, bool, string) {
	for _, st := range steps {
		var ok bool
		if st.name != "" {
			m, isMap := v.(map[string]any)
			v, ok = m[st.name]
			ok = ok && isMap
		} else {
			a, isList := v.([]any)
			ok = isList && st.index < len(a)
			if ok {
				v = a[st.index]
			}
		}
		if !ok {
			for _, r := range riskOrder {
				if slices.Contains(st.risks, r) {
					return nil, false, r
				}
			}
			return nil, false, ""
		}
	}
	return v, true, ""
}
