package subset

import (
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

// Generate builds a value schema a accepts, from the counterexamples the subset checker
// builds (a value of a that a schema accepting nothing rejects): the checker proving
// a ⊆ false is the proof that a is empty. variant picks other choices where a value is built
// (alternatives, enum members, optional members), so that callers asking again get other
// values where the schema allows; 0 is the plainest. The value is verified with a's
// validator before it is given.
func Generate(a *contract.Schema, variant int) Generated {
	nothing := []node{{v: false, doc: &contract.Doc{Value: false}, key: "b#"}}
	c := &checker{assumed: make(map[string]int), annotated: [2]bool{a.FormatAnnotated(), a.FormatAnnotated()},
		deadline: time.Now().Add(maxSubsetTime), variant: variant}
	var first Result
	for try := 0; try < maxWitnessTries; try++ {
		r := c.sub(roots(a, "a"), nothing, 0)
		switch r.Verdict {
		case Compatible:
			if try == 0 {
				return Generated{Empty: true}
			}
		case Incompatible:
			if vs := a.Validate(r.Witness, "en"); len(vs) == 0 {
				return Generated{Value: r.Witness, Found: true}
			} else if first.Verdict == Unknown && first.Reason == "" {
				first = unknown(r.Rule, "a value was built but did not verify: %s", vs[0].Message)
			}
		default:
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
