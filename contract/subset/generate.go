package subset

import (
	"fmt"
	"time"

	"github.com/seam-dag/seam/contract"
)

// Generated is what Generate found of a schema: a value it accepts, or a proof that it
// accepts none, or neither.
type Generated struct {
	// Value is a value the schema accepts, verified by validating it (Found).
	Value any
	Found bool
	// Empty is set when the schema provably accepts no value at all (unsatisfiable).
	Empty bool
	// Why says, when neither, what stopped the search: the keyword the checker could not
	// build a value for, or the validator's objection to the one it built.
	Why Result
}

// Generate builds a value every schema of all accepts (their conjunction; they may come from
// different compilers), from the counterexamples the subset checker builds: a value of all
// that a schema accepting nothing rejects, so that the checker proving all ⊆ false is the
// proof that they accept nothing together. variant picks other choices where a value is
// built (alternatives, enum members, optional members), so that callers asking again get
// other values where the schemas allow; 0 is the plainest. The value is verified with each
// schema's validator before it is given. The format keyword is read as the first schema's
// compiler reads it.
func Generate(variant int, all ...*contract.Schema) Generated {
	if len(all) == 0 {
		return Generated{Value: nil, Found: true} // no constraint: null is a value
	}
	var as []node
	for i, a := range all {
		// Each its own side prefix, so that the documents of two schemas never alias.
		as = append(as, roots(a, fmt.Sprintf("a%d.", i))...)
	}
	nothing := []node{{v: false, doc: &contract.Doc{Value: false}, key: "b#"}}
	c := &checker{assumed: make(map[string]int), annotated: [2]bool{all[0].FormatAnnotated(), all[0].FormatAnnotated()},
		deadline: time.Now().Add(maxSubsetTime), variant: variant}
	// The plainest value first, as the search would build it, without the search's proof
	// that the conjunction is not empty: that proof flattens every required member down
	// the whole schema once more (a webhook's hundreds), and a value that verifies is a
	// better one. The search below runs only when this gives nothing.
	if s := c.flatten(as, true); !s.never && len(s.groups) == 0 {
		if w, ok := c.minimalOf(s, pickType(s), 0); ok && len(validateAll(all, w)) == 0 {
			return Generated{Value: w, Found: true}
		}
		clear(c.assumed)
	}
	var first Result
	for try := 0; try < maxWitnessTries; try++ {
		r := c.sub(as, nothing, 0)
		switch r.Verdict {
		case Compatible:
			if try == 0 {
				return Generated{Empty: true}
			}
		case Incompatible:
			vs := validateAll(all, r.Witness)
			if len(vs) == 0 {
				return Generated{Value: r.Witness, Found: true}
			}
			if first.Reason == "" {
				first = unknown(r.Rule, "a value was built but did not verify: %s", vs[0].Message)
			}
		default:
			if try == 0 && c.empty(c.flatten(as, true), 0) {
				return Generated{Empty: true}
			}
			if first.Reason == "" {
				first = r
			}
		}
		if c.work > maxSubsetWork {
			first = unknown("", "the search exceeded the checker's budget of %d units of work or %d ms", maxSubsetWork, maxSubsetTime.Milliseconds())
			break
		}
		c.variant++
		clear(c.assumed)
	}
	if first.Reason == "" {
		first = unknown("", "no value was found")
	}
	return Generated{Why: named(first, "contract", "false")}
}

// validateAll is what each of all says against v.
func validateAll(all []*contract.Schema, v any) []contract.Violation {
	for _, a := range all {
		if vs := a.Validate(v, "en"); len(vs) > 0 {
			return vs
		}
	}
	return nil
}
