package subset

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
)

// subsetCorpus is the benchmark's corpus of schemas, by keyword family: every ordered pair
// within a family is a Check call (15 families of 6 to 8 schemas: 861 pairs), both
// directions, compatible, incompatible and undecided ones alike.
var subsetCorpus = map[string][]string{
	"types": {
		`{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`, `{"type":["string","null"]}`,
		`{"type":"boolean"}`, `{}`, `true`, `{"type":["integer","string"]}`,
	},
	"numbers": {
		`{"type":"integer","minimum":0,"maximum":10}`, `{"type":"number","exclusiveMinimum":0}`,
		`{"type":"integer","multipleOf":2}`, `{"type":"number","maximum":100}`, `{"type":"integer","multipleOf":4,"minimum":0}`,
		`{"type":"number","minimum":0,"maximum":1}`, `{"type":"integer","minimum":-5,"exclusiveMaximum":5}`, `{"type":"number","multipleOf":0.5}`,
	},
	"strings": {
		`{"type":"string","minLength":1}`, `{"type":"string","maxLength":10}`, `{"type":"string","minLength":2,"maxLength":5}`,
		`{"type":"string","format":"date-time"}`, `{"type":"string","pattern":"^[a-z]+$"}`, `{"enum":["low","medium","high"]}`,
		`{"enum":["low","high"]}`, `{"const":"low"}`,
	},
	"objects": {
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`,
		`{"type":"object","required":["id","score"],"properties":{"id":{"type":"string"},"score":{"type":"integer"}}}`,
		`{"type":"object","properties":{"id":{"type":"string"},"score":{"type":"number"}},"additionalProperties":false}`,
		`{"type":"object","required":["score"],"properties":{"score":{"type":"integer","minimum":0,"maximum":10}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","required":["meta"],"properties":{"meta":{"type":"object","required":["source"],"properties":{"source":{"enum":["crm","web"]}}}}}`,
		`{"type":"object","required":["meta"],"properties":{"meta":{"type":"object","properties":{"source":{"type":"string"}}}}}`,
		`{"type":"object"}`,
	},
	"arrays": {
		`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"string"},"minItems":1}`,
		`{"type":"array","items":{"type":"string","maxLength":5},"maxItems":3}`, `{"type":"array","uniqueItems":true}`,
		`{"type":"array","items":{"type":"integer"}}`, `{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}`,
		`{"type":"array","minItems":2,"maxItems":2}`, `{"type":"array"}`,
	},
	"combinators": {
		`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"oneOf":[{"type":"string"},{"type":"null"}]}`,
		`{"allOf":[{"type":"integer"},{"minimum":0}]}`, `{"anyOf":[{"type":"integer","minimum":0},{"type":"string","minLength":1}]}`,
		`{"type":"integer","minimum":0}`, `{"type":["string","integer","null"]}`,
		`{"anyOf":[{"type":"object","required":["a"]},{"type":"object","required":["b"]}]}`, `{"type":"object","required":["a","b"]}`,
	},
	"refs": {
		`{"$defs":{"t":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`,
		`{"$defs":{"t":{"type":"object","required":["v"],"properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`,
		`{"$defs":{"t":{"type":"object","properties":{"v":{"type":"number"},"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`,
		`{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array"}}}`,
		`{"$defs":{"n":{"type":["object","null"],"properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		`{"type":["object","null"]}`,
	},
	// The hard edges (issue 19), a family each.
	"vendor": { // words of no vocabulary: annotations
		`{"type":"number","maximumForOptimizer":10}`, `{"type":"number","multipleOF":5}`,
		`{"type":"integer","x-unit":"ms","minimum":0}`, `{"type":"number","value":3}`,
		`{"type":"integer","minimum":0}`, `{"type":"number","minimum":0,"x-nullable":true}`,
	},
	"witness": { // producers whose plainest value is not theirs
		`{"type":"string","format":"date"}`, `{"type":"string","pattern":"^[0-9]{4}$"}`,
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^id-"}},"minProperties":2}`,
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`, `{"type":"string","maxLength":3}`,
		`{"anyOf":[{"type":"string","pattern":"^[A-Z]+$"},{"type":"integer","minimum":5}]}`,
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string","format":"uuid"}},"propertyNames":{"maxLength":4}}`,
	},
	"unions": { // consumer anyOf/oneOf, the producer split by type, value and range
		`{"type":["string","integer"]}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`,
		`{"oneOf":[{"type":"integer","maximum":9},{"type":"integer","minimum":10}]}`, `{"type":"integer","minimum":0,"maximum":100}`,
		`{"enum":["a",1,null]}`, `{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}`,
		`{"type":"object","required":["kind"],"properties":{"kind":{"enum":["a","b"]}}}`,
		`{"oneOf":[{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"}}},{"type":"object","required":["kind"],"properties":{"kind":{"const":"b"}}}]}`,
	},
	"nots": {
		`{"not":{"type":"string","maxLength":0}}`, `{"type":"string","minLength":1}`,
		`{"type":"integer","not":{"minimum":0,"maximum":9}}`, `{"type":"integer","minimum":10}`,
		`{"not":{"anyOf":[{"type":"null"},{"type":"boolean"}]}}`, `{"type":["string","integer"]}`,
		`{"not":{"not":{"type":"integer"}}}`, `{"type":"object","not":{"required":["x"]}}`,
	},
	"patterns": { // strings as regular languages
		`{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-z0-9]*$","maxLength":8}`,
		`{"type":"string","pattern":"^(low|high)$"}`, `{"enum":["low","high"]}`,
		`{"type":"string","pattern":"^[a-c]{2,4}$"}`, `{"type":"string","pattern":"^[A-Za-z]"}`,
		`{"type":"string","pattern":"^\\d{3}-\\d{4}$"}`, `{"type":"string","minLength":8,"maxLength":8}`,
	},
	"counts": { // minProperties, maxProperties, maxItems
		`{"type":"object","minProperties":1}`, `{"type":"object","required":["a","b"]}`,
		`{"type":"object","maxProperties":2}`, `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}`,
		`{"type":"object","required":["a"],"maxProperties":1}`, `{"type":"array","maxItems":2,"items":{"type":"object","minProperties":1}}`,
		`{"type":"array","items":{"type":"object","required":["a"]}}`, `{"type":"object","minProperties":3}`,
	},
	"multiples": { // numbers: multipleOf, small integer ranges
		`{"type":"integer","multipleOf":6}`, `{"type":"integer","multipleOf":2,"allOf":[{"multipleOf":3}]}`,
		`{"type":"integer","multipleOf":3}`, `{"type":"integer","minimum":1,"maximum":3}`,
		`{"type":"number","multipleOf":0.25,"minimum":0,"maximum":1}`, `{"enum":[0,0.25,0.5,0.75,1]}`,
		`{"type":"integer","minimum":2,"maximum":2}`, `{"anyOf":[{"const":1},{"const":2},{"const":3}]}`,
	},
	"outputs": { // effective node outputs as seam checks them: the standard contract's shape ∧ data
		`{"type":"object","required":["status","summary","data"],"properties":{"status":{"enum":["pass","warn","fail"]},"summary":{"type":"string","minLength":1},"data":{"type":"object","required":["items"],"properties":{"items":{"type":"array","items":{"type":"string"}}}}}}`,
		`{"type":"object","required":["status","data"],"properties":{"status":{"type":"string"},"data":{"type":"object","required":["items"],"properties":{"items":{"type":"array"}}}}}`,
		`{"type":"object","required":["status","summary"],"properties":{"status":{"enum":["pass","warn"]},"summary":{"type":"string"}}}`,
		`{"type":"object","required":["data"],"properties":{"data":{"type":"object","required":["items","total"],"properties":{"items":{"type":"array"},"total":{"type":"integer"}}}}}`,
		`{"type":"object","required":["status","summary","data"],"properties":{"status":{"const":"pass"},"summary":{"type":"string","minLength":1},"data":{"type":"object","required":["items","total"],"properties":{"items":{"type":"array","items":{"type":"string"},"maxItems":5},"total":{"type":"integer","minimum":0}}}}}`,
		`{"type":"object","properties":{"data":{"type":"object","additionalProperties":false,"properties":{"items":{"type":"array"},"total":{"type":"number"}}}}}`,
	},
}

type subsetPair struct {
	name string
	a, b *contract.Schema
}

func subsetPairs(tb testing.TB) []subsetPair {
	tb.Helper()
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var pairs []subsetPair
	families := make([]string, 0, len(subsetCorpus))
	for f := range subsetCorpus {
		families = append(families, f)
	}
	slices.Sort(families)
	for _, f := range families {
		var ss []*contract.Schema
		for i, src := range subsetCorpus[f] {
			v, err := contract.ParseJSON([]byte(src))
			if err != nil {
				tb.Fatalf("%s/%d: %v", f, i, err)
			}
			s, err := c.Inline(fmt.Sprintf("%s/%d", f, i), v)
			if err != nil {
				tb.Fatalf("%s/%d: %v", f, i, err)
			}
			ss = append(ss, s)
		}
		for i, a := range ss {
			for j, b := range ss {
				pairs = append(pairs, subsetPair{fmt.Sprintf("%s/%d⊆%d", f, i, j), a, b})
			}
		}
	}
	return pairs
}

// TestSubsetCorpus checks every answer on the benchmark's corpus: a witness passes a and
// fails b; a compatible pair's schemas are checked on the other answers' witnesses.
func TestSubsetCorpus(t *testing.T) {
	pairs := subsetPairs(t)
	if len(pairs) < 200 {
		t.Fatalf("%d pairs, want at least 200", len(pairs))
	}
	var witnesses []any
	results := make([]Result, len(pairs))
	for i, p := range pairs {
		results[i] = Check(p.a, p.b)
		if results[i].Verdict == Incompatible {
			witnesses = append(witnesses, results[i].Witness)
			if len(p.a.Validate(results[i].Witness, "en")) > 0 || len(p.b.Validate(results[i].Witness, "en")) == 0 {
				t.Errorf("%s: witness %v does not separate a from b", p.name, results[i].Witness)
			}
		}
	}
	decided := 0
	for i, p := range pairs {
		if results[i].Verdict != Unknown {
			decided++
		} else {
			t.Logf("%s: unknown: %s", p.name, results[i].Reason)
		}
	}
	t.Logf("decided %d of %d pairs", decided, len(pairs))
	for i, p := range pairs {
		if results[i].Verdict != Compatible {
			continue
		}
		for _, w := range witnesses {
			if len(p.a.Validate(w, "en")) == 0 && len(p.b.Validate(w, "en")) > 0 {
				t.Errorf("%s: judged compatible, but %v passes a and fails b", p.name, w)
			}
		}
	}
}

// BenchmarkSubsetCorpus times every Check call of the corpus and reports the median time per
// call and the fraction decided (compatible or incompatible). Reproduce with
//
//	go test -run '^$' -bench SubsetCorpus -benchtime 20x -count 5 -cpu 1 ./contract/subset/
func BenchmarkSubsetCorpus(b *testing.B) {
	pairs := subsetPairs(b)
	as, bs := make([]*contract.Schema, len(pairs)), make([]*contract.Schema, len(pairs))
	for i, p := range pairs {
		as[i], bs[i] = p.a, p.b
	}
	benchPairs(b, as, bs)
}

// benchPairs times Check(as[i], bs[i]) for every i, keeping each pair's fastest call, and
// reports their median, 90th percentile and maximum, and the fraction decided.
func benchPairs(b *testing.B, as, bs []*contract.Schema) {
	best := make([]time.Duration, len(as))
	decided := 0
	for i := range as {
		if r := Check(as[i], bs[i]); r.Verdict != Unknown {
			decided++
		}
		best[i] = time.Duration(1<<63 - 1)
	}
	for b.Loop() {
		for i := range as {
			t0 := time.Now()
			Check(as[i], bs[i])
			best[i] = min(best[i], time.Since(t0))
		}
	}
	slices.Sort(best)
	b.ReportMetric(float64(best[len(best)/2].Nanoseconds()), "median-ns/call")
	b.ReportMetric(float64(best[len(best)*9/10].Nanoseconds()), "p90-ns/call")
	b.ReportMetric(float64(best[len(best)-1].Nanoseconds()), "max-ns/call")
	b.ReportMetric(float64(len(as)), "pairs")
	b.ReportMetric(100*float64(decided)/float64(len(as)), "decided-%")
}
