package subset

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
)

// subsetCase is one pair of schemas and the checker's expected answer; rule "" is not checked.
type subsetCase struct {
	name    string
	a, b    string
	verdict Verdict
	rule    string
}

var (
	cOK = Compatible
	cNo = Incompatible
	cUn = Unknown
)

// subsetCases returns the table (a function, so tests share no mutable state).
func subsetCases() []subsetCase {
	const (
		tree    = `{"$defs":{"n":{"type":"object","required":["v"],"properties":{"v":{"type":"%s"},"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"}`
		tagged  = `{"oneOf":[{"type":"object","required":["kind","r"],"properties":{"kind":{"const":"a"},"r":{"type":"number"}}},{"type":"object","required":["kind"],"properties":{"kind":{"const":"b"}}}]}`
		tagsOut = `{"oneOf":[{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"}}},{"type":"object","required":["kind"],"properties":{"kind":{"const":"b"}}}]}`
	)
	return []subsetCase{
		// Boolean schemas and types.
		{"same type", `{"type":"string"}`, `{"type":"string"}`, cOK, ""},
		{"integer in number", `{"type":"integer"}`, `{"type":"number"}`, cOK, ""},
		{"number not integer", `{"type":"number"}`, `{"type":"integer"}`, cNo, RuleType},
		{"string not number", `{"type":"string"}`, `{"type":"number"}`, cNo, RuleType},
		{"nullable into non-null", `{"type":["string","null"]}`, `{"type":"string"}`, cNo, RuleType},
		{"into nullable", `{"type":"string"}`, `{"type":["string","null"]}`, cOK, ""},
		{"anything into object", `{}`, `{"type":"object"}`, cNo, RuleType},
		{"object into anything", `{"type":"object"}`, `{}`, cOK, ""},
		{"true into string", `true`, `{"type":"string"}`, cNo, RuleType},
		{"false into string", `false`, `{"type":"string"}`, cOK, ""},
		{"string into false", `{"type":"string"}`, `false`, cNo, RuleConstraint},
		{"string into true", `{"type":"string"}`, `true`, cOK, ""},
		{"true into false", `true`, `false`, cNo, RuleConstraint},
		{"integral number", `{"type":"number","multipleOf":1}`, `{"type":"integer"}`, cOK, ""},
		{"1.0 is an integer", `{"const":1.0}`, `{"type":"integer"}`, cOK, ""},
		{"1.5 is not", `{"const":1.5}`, `{"type":"integer"}`, cNo, RuleType},
		{"empty type intersection", `{"allOf":[{"type":"string"},{"type":"number"}]}`, `false`, cOK, ""},
		// Producers that accept nothing (issue 35), and one that only seems to.
		{"not of everything", `{"not":{}}`, `{"type":"string","minLength":3}`, cOK, ""},
		{"required member of nothing", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":3,"maximum":2}}}`, `false`, cOK, ""},
		{"enum its not empties", `{"enum":["x","y"],"not":{"enum":["x","y"]}}`, `{"type":"integer"}`, cOK, ""},
		{"not of enum and const excludes their intersection", `{"type":"string","not":{"enum":["","a"],"const":"a"}}`, `{"type":"string","minLength":1}`, cNo, RuleConstraint},
		{"not of enum excludes its strings", `{"type":"string","not":{"enum":["",1]}}`, `{"type":"string","minLength":1}`, cOK, ""},
		// enum and const.
		{"enum subset", `{"enum":["a","b"]}`, `{"enum":["a","b","c"]}`, cOK, ""},
		{"enum superset", `{"enum":["a","b","c"]}`, `{"enum":["a","b"]}`, cNo, RuleConstraint},
		{"const in enum", `{"const":"pass"}`, `{"enum":["pass","warn","fail"]}`, cOK, ""},
		{"string into enum", `{"type":"string"}`, `{"enum":["a"]}`, cNo, RuleConstraint},
		{"fractions outside an enum of numbers", `{"type":"number","minimum":0,"maximum":1}`, `{"enum":[0,0.25,0.5,0.75,1]}`, cNo, RuleConstraint},
		{"enum into bounds", `{"enum":[1,2]}`, `{"type":"integer","minimum":1}`, cOK, ""},
		{"enum numbers by value", `{"enum":[1,2.0]}`, `{"enum":[1.0,2]}`, cOK, ""},
		{"boolean into both", `{"type":"boolean"}`, `{"enum":[true,false]}`, cOK, ""},
		{"boolean into true", `{"type":"boolean"}`, `{"enum":[true]}`, cNo, RuleConstraint},
		{"mixed enum into string", `{"enum":["a",1]}`, `{"type":"string"}`, cNo, RuleType},
		{"object const", `{"const":{"a":1}}`, `{"type":"object","required":["a"]}`, cOK, ""},
		{"object const missing", `{"const":{"b":1}}`, `{"type":"object","required":["a"]}`, cNo, RuleConstraint},
		{"enum of a filters", `{"type":"string","enum":["a",1]}`, `{"type":"string"}`, cOK, ""},
		// Numbers.
		{"same bounds", `{"type":"number","minimum":0,"maximum":1}`, `{"type":"number","minimum":0,"maximum":1}`, cOK, ""},
		{"max too high", `{"type":"number","minimum":0,"maximum":2}`, `{"type":"number","maximum":1}`, cNo, RuleConstraint},
		{"no minimum", `{"type":"number"}`, `{"type":"number","minimum":0}`, cNo, RuleConstraint},
		{"exclusive within inclusive", `{"type":"number","exclusiveMinimum":0}`, `{"type":"number","minimum":0}`, cOK, ""},
		{"inclusive not within exclusive", `{"type":"number","minimum":0}`, `{"type":"number","exclusiveMinimum":0}`, cNo, RuleConstraint},
		{"integer exclusive bound", `{"type":"integer","exclusiveMinimum":0}`, `{"type":"integer","minimum":1}`, cOK, ""},
		{"integer max bound", `{"type":"integer","maximum":9.5}`, `{"type":"integer","exclusiveMaximum":10}`, cOK, ""},
		{"multiple of 4 is of 2", `{"type":"integer","multipleOf":4}`, `{"type":"integer","multipleOf":2}`, cOK, ""},
		{"multiple of 2 not of 4", `{"type":"integer","multipleOf":2}`, `{"type":"integer","multipleOf":4}`, cNo, RuleConstraint},
		{"decimal multiples", `{"type":"number","multipleOf":0.5}`, `{"type":"number","multipleOf":0.25}`, cOK, ""},
		{"integers are halves", `{"type":"integer"}`, `{"type":"number","multipleOf":0.5}`, cOK, ""},
		{"decimal exclusive max", `{"type":"number","minimum":0.1,"maximum":0.3}`, `{"type":"number","minimum":0,"exclusiveMaximum":0.3}`, cNo, RuleConstraint},
		{"score 0..1", `{"type":"number","minimum":0,"maximum":1}`, `{"type":"number","maximum":1.0}`, cOK, ""},
		{"numbers ignore string keywords", `{"type":"number"}`, `{"type":"number","minLength":3}`, cOK, ""},
		// Strings.
		{"lengths within", `{"type":"string","minLength":2,"maxLength":5}`, `{"type":"string","minLength":1,"maxLength":10}`, cOK, ""},
		{"empty string", `{"type":"string"}`, `{"type":"string","minLength":1}`, cNo, RuleConstraint},
		{"too long", `{"type":"string","maxLength":20}`, `{"type":"string","maxLength":10}`, cNo, RuleConstraint},
		{"same pattern", `{"type":"string","pattern":"^a+$"}`, `{"type":"string","pattern":"^a+$"}`, cOK, ""},
		{"other pattern", `{"type":"string","pattern":"^a+$"}`, `{"type":"string","pattern":"^[ab]+$"}`, cOK, ""},
		{"no pattern", `{"type":"string"}`, `{"type":"string","pattern":"^x"}`, cNo, RuleConstraint},
		{"same format", `{"type":"string","format":"email"}`, `{"type":"string","format":"email"}`, cOK, ""},
		{"missing format", `{"type":"string"}`, `{"type":"string","format":"date-time"}`, cNo, RuleConstraint},
		{"missing format bounded", `{"type":"string","maxLength":5}`, `{"type":"string","format":"date"}`, cNo, RuleConstraint},
		{"other format", `{"type":"string","format":"date"}`, `{"type":"string","format":"date-time"}`, cNo, RuleConstraint},
		{"ipv4 outside an enum of one of its samples", `{"type":"string","format":"ipv4"}`, `{"enum":["192.0.2.1","a@b.co"]}`, cNo, RuleConstraint},
		{"date within its length", `{"type":"string","format":"date"}`, `{"type":"string","minLength":10,"maxLength":10}`, cOK, ""},
		{"date within its pattern", `{"type":"string","format":"date"}`, `{"type":"string","pattern":"^\\d{4}-\\d\\d-\\d\\d$"}`, cOK, ""},
		{"uuid within its length", `{"type":"string","format":"uuid"}`, `{"type":"string","maxLength":36}`, cOK, ""},
		{"enum into format", `{"enum":["2024-01-01"]}`, `{"type":"string","format":"date"}`, cOK, ""},
		// Objects.
		{"required missing", `{"type":"object","required":["status"],"properties":{"status":{"type":"string"}}}`,
			`{"type":"object","required":["status","priority"],"properties":{"status":{"type":"string"},"priority":{"type":"number"}}}`, cNo, RuleRequired},
		{"required only optional", `{"type":"object","required":["status"],"properties":{"status":{"type":"string"},"priority":{"type":"number"}}}`,
			`{"type":"object","required":["status","priority"]}`, cNo, RuleOptional},
		{"more required", `{"type":"object","required":["a","b"]}`, `{"type":"object","required":["a"]}`, cOK, ""},
		{"member narrower", `{"type":"object","properties":{"x":{"type":"integer"}}}`, `{"type":"object","properties":{"x":{"type":"number"}}}`, cOK, ""},
		{"member wider", `{"type":"object","properties":{"x":{"type":"number"}}}`, `{"type":"object","properties":{"x":{"type":"integer"}}}`, cNo, RuleType},
		{"closed into open", `{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`, `{"type":"object","properties":{"x":{"type":"string"}}}`, cOK, ""},
		{"open into closed", `{"type":"object"}`, `{"type":"object","additionalProperties":false}`, cNo, RuleConstraint},
		{"additional narrower", `{"type":"object","additionalProperties":{"type":"integer"}}`, `{"type":"object","additionalProperties":{"type":"number"}}`, cOK, ""},
		{"additional wider", `{"type":"object","additionalProperties":{"type":"number"}}`, `{"type":"object","additionalProperties":{"type":"integer"}}`, cNo, RuleType},
		{"closed into typed additional", `{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`, `{"type":"object","additionalProperties":{"type":"string"}}`, cOK, ""},
		{"named into typed additional", `{"type":"object","properties":{"x":{"type":"integer"}}}`, `{"type":"object","properties":{"y":{}},"additionalProperties":{"type":"string"}}`, cNo, RuleType},
		{"nested required", `{"type":"object","required":["m"],"properties":{"m":{"type":"object","properties":{"cost":{"type":"number"}}}}}`,
			`{"type":"object","properties":{"m":{"type":"object","required":["cost"]}}}`, cNo, RuleOptional},
		{"member bound", `{"type":"object","properties":{"p":{"type":"integer"}},"required":["p"]}`, `{"type":"object","properties":{"p":{"type":"integer","minimum":1}}}`, cNo, RuleConstraint},
		{"false member never emitted", `{"type":"object","properties":{"p":false}}`, `{"type":"object","properties":{"p":{"type":"string"}}}`, cOK, ""},
		{"escaped member name", `{"type":"object","properties":{"a/b":{"type":"number"}}}`, `{"type":"object","properties":{"a/b":{"type":"string"}}}`, cNo, RuleType},
		// Arrays.
		{"same items", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"string"}}`, cOK, ""},
		{"items wrong type", `{"type":"array","items":{"type":"integer"}}`, `{"type":"array","items":{"type":"string"}}`, cNo, RuleType},
		{"too few items", `{"type":"array","minItems":1}`, `{"type":"array","minItems":2}`, cNo, RuleConstraint},
		{"item counts within", `{"type":"array","minItems":2,"maxItems":3}`, `{"type":"array","minItems":1,"maxItems":5}`, cOK, ""},
		{"too many items", `{"type":"array"}`, `{"type":"array","maxItems":3}`, cNo, RuleConstraint},
		{"unique into any", `{"type":"array","uniqueItems":true}`, `{"type":"array"}`, cOK, ""},
		{"any into unique", `{"type":"array"}`, `{"type":"array","uniqueItems":true}`, cNo, RuleConstraint},
		{"single item is unique", `{"type":"array","maxItems":1}`, `{"type":"array","uniqueItems":true}`, cOK, ""},
		{"item length", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"string","minLength":1}}`, cNo, RuleConstraint},
		{"empty array only", `{"type":"array","maxItems":0}`, `{"type":"array","items":{"type":"string"}}`, cOK, ""},
		// prefixItems.
		{"tuple into tuple", `{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`,
			`{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":"string"}}`, cOK, ""},
		{"tuple into items", `{"type":"array","prefixItems":[{"const":"a"},{"const":"b"}],"items":{"type":"string"}}`, `{"type":"array","items":{"type":"string"}}`, cOK, ""},
		{"closed tuple into maxItems", `{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}],"items":false}`, `{"type":"array","maxItems":2}`, cOK, ""},
		{"tuple member wider", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2}`,
			`{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}]}`, cNo, RuleType},
		{"open tuple into typed rest", `{"type":"array","prefixItems":[{"type":"string"}]}`, `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"string"}}`, cNo, RuleType},
		{"tuple member unmodelled", `{"type":"array","prefixItems":[{"type":"object"}]}`, `{"type":"array","prefixItems":[{"type":"object","minProperties":1}]}`, cNo, RuleConstraint},
		// patternProperties.
		{"pattern into pattern", `{"type":"object","patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^x-":{"type":"number"}}}`, cOK, ""},
		{"named into pattern", `{"type":"object","properties":{"x-a":{"type":"string"},"id":{"type":"integer"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`, cOK, ""},
		{"pattern into additional", `{"type":"object","patternProperties":{"^s_":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","additionalProperties":{"type":"string"}}`, cOK, ""},
		{"pattern within pattern", `{"type":"object","patternProperties":{"^[a-z]+$":{"type":"integer"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^[a-c]+$":{"type":"number"}}}`, cOK, ""},
		{"patterns of disjoint languages", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^x-":{"type":"string"},"^[a-z]+$":{"type":"integer"}},"additionalProperties":false}`, cOK, ""},
		{"pattern within another's language", `{"type":"object","patternProperties":{"^x-[0-9]+$":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^x":{"type":["string","null"]}},"additionalProperties":{"type":"integer"}}`, cOK, ""},
		{"producer pattern closes", `{"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","properties":{"y":{"type":"number"}}}`, cOK, ""},
		{"named against pattern", `{"type":"object","properties":{"x-id":{"type":"integer"}}}`, `{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`, cNo, RuleType},
		{"open into pattern", `{"type":"object"}`, `{"type":"object","patternProperties":{"^x":{"type":"string"}}}`, cNo, RuleType},
		{"additional against pattern", `{"type":"object","additionalProperties":{"type":"string"}}`,
			`{"type":"object","patternProperties":{"^n_":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, cNo, RuleType},
		{"pattern outside closed", `{"type":"object","patternProperties":{"^a":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^ab":{"type":"string"}},"additionalProperties":false}`, cNo, RuleConstraint},
		{"unanchored pattern", `{"type":"object","patternProperties":{"^a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
			`{"type":"object","patternProperties":{"a":{"type":"string"}}}`, cNo, RuleType},
		{"pattern member unmodelled", `{"type":"object","patternProperties":{"^x":{"type":"object"}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^x":{"type":"object","minProperties":1}}}`, cNo, RuleConstraint},
		// contains.
		{"items give contains", `{"type":"array","items":{"type":"string"},"minItems":1}`, `{"type":"array","contains":{"type":"string"}}`, cOK, ""},
		{"contains within contains", `{"type":"array","contains":{"const":"x"},"minContains":2}`, `{"type":"array","contains":{"type":"string"},"minContains":2}`, cOK, ""},
		{"contains gives minItems", `{"type":"array","contains":{"type":"string"}}`, `{"type":"array","minItems":1}`, cOK, ""},
		{"empty array lacks contains", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","contains":{"type":"string"}}`, cNo, RuleConstraint},
		{"maxContains exceeded", `{"type":"array","items":{"type":"integer"}}`, `{"type":"array","contains":{"type":"integer"},"minContains":0,"maxContains":1}`, cNo, RuleConstraint},
		{"contains producer against items", `{"type":"array","contains":{"type":"string"}}`, `{"type":"array","items":{"type":"string"}}`, cNo, RuleType},
		{"repeated items against uniqueItems", `{"type":"array","prefixItems":[{"const":"urgent"}],"items":{"enum":["low","high"]},"minItems":1}`,
			`{"type":"array","items":{"enum":["urgent","low","high"]},"uniqueItems":true}`, cNo, RuleConstraint},
		{"contains from prefix items", `{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}],"minItems":2}`, `{"type":"array","contains":{"type":"string"},"minContains":2}`, cOK, ""},
		{"maxContains exceeded by distinct items", `{"type":"array","contains":{"const":"a"},"maxContains":1,"items":{"enum":["a","b"]}}`,
			`{"type":"array","contains":{"type":"string"},"maxContains":1}`, cNo, RuleConstraint},
		{"contains not shown", `{"type":"array","items":{"type":"integer"},"minItems":1}`, `{"type":"array","contains":{"type":"integer","minimum":0}}`, cNo, RuleConstraint},
		// not.
		{"enum avoids not const", `{"enum":["low","high"]}`, `{"not":{"const":"medium"}}`, cOK, ""},
		{"type avoids not type", `{"type":"string"}`, `{"not":{"type":"null"}}`, cOK, ""},
		{"forbidden member avoids not required", `{"type":"object","properties":{"secret":false}}`, `{"type":"object","not":{"required":["secret"]}}`, cOK, ""},
		{"bounds avoid not const", `{"type":"string","minLength":2}`, `{"not":{"const":"a"}}`, cOK, ""},
		{"not within not", `{"type":"object","not":{"required":["secret"]}}`, `{"not":{"required":["secret"]}}`, cOK, ""},
		{"not enum", `{"type":"string"}`, `{"type":"string","not":{"enum":["","n/a"]}}`, cNo, RuleConstraint},
		{"not required", `{"type":"object","properties":{"secret":{"type":"string"}}}`, `{"not":{"required":["secret"]}}`, cNo, RuleConstraint},
		{"not null", `{"type":["string","null"]}`, `{"not":{"type":"null"}}`, cNo, RuleType},
		// allOf.
		{"allOf producer", `{"allOf":[{"type":"number"},{"minimum":0}]}`, `{"type":"number","minimum":0}`, cOK, ""},
		{"allOf consumer", `{"type":"number","minimum":0}`, `{"allOf":[{"type":"number"},{"minimum":1}]}`, cNo, RuleConstraint},
		{"allOf objects", `{"allOf":[{"properties":{"x":{"type":"string"}},"required":["x"]},{"required":["y"]}]}`,
			`{"required":["x","y"],"properties":{"x":{"type":"string"}}}`, cOK, ""},
		{"allOf additional per part", `{"allOf":[{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false},{"properties":{"y":{"type":"string"}}}]}`,
			`{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`, cOK, ""},
		// anyOf and oneOf.
		{"anyOf producer", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"type":["string","number"]}`, cOK, ""},
		{"anyOf producer null", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `{"type":"string"}`, cNo, RuleType},
		{"anyOf consumer", `{"type":"string"}`, `{"anyOf":[{"type":"string"},{"type":"null"}]}`, cOK, ""},
		{"oneOf consumer disjoint", `{"type":"integer"}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, cOK, ""},
		{"oneOf consumer overlap", `{"type":"integer"}`, `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, cNo, RuleConstraint},
		{"anyOf consumer none", `{"type":"boolean"}`, `{"anyOf":[{"type":"string"},{"type":"null"}]}`, cNo, RuleType},
		{"tagged union", tagged, tagsOut, cOK, ""},
		{"union cover not seen", `{"type":"number"}`, `{"anyOf":[{"type":"number","minimum":0},{"type":"number","maximum":0}]}`, cOK, ""},
		{"oneOf producer", `{"oneOf":[{"const":1},{"const":"x"}]}`, `{"type":["integer","string"]}`, cOK, ""},
		// $ref and recursion.
		{"local ref", `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/s"}},"required":["x"]}`,
			`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`, cOK, ""},
		{"ref in consumer", `{"type":"object","properties":{"x":{"type":"integer"}}}`,
			`{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/s"}}}`, cNo, RuleType},
		{"recursive tree", strings.Replace(tree, "%s", "integer", 1), strings.Replace(tree, "%s", "number", 1), cOK, ""},
		{"recursive tree wider", strings.Replace(tree, "%s", "number", 1), strings.Replace(tree, "%s", "integer", 1), cNo, RuleType},
		{"ref to root", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, `{"type":"object"}`, cOK, ""},
		// Unmodelled keywords.
		{"consumer minProperties", `{"type":"object"}`, `{"type":"object","minProperties":1}`, cNo, RuleConstraint},
		{"producer not ignored", `{"type":"string","not":{"const":"x"}}`, `{"type":"string"}`, cOK, ""},
		{"producer patternProperties required", `{"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","required":["z"]}`, cNo, RuleRequired},
		{"consumer not a known form", `{"type":"string","maxLength":0}`, `{"not":{"type":"string","minLength":1}}`, cOK, ""},
		{"allOf null part", `{"allOf":[{"properties":{"x":{"type":"string"}}}]}`, `{"type":"object"}`, cNo, RuleType},
		{"draft 7 producer", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/s","type":"number","definitions":{"s":{"type":"string"}}}`,
			`{"type":"string"}`, cOK, ""},
		{"draft 7 consumer", `{"type":"string"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`, cOK, ""},
		{"draft 2020 declared", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer"}`, `{"type":"number"}`, cOK, ""},
		{"annotations", `{"type":"string","title":"t","description":"d","default":"x","examples":["y"]}`, `{"type":"string","$comment":"c"}`, cOK, ""},
		// The hard edges (issue 19). Vendor and misspelt words are annotations; another draft's
		// keywords stay unknown.
		{"vendor keyword", `{"type":"number","maximum":5}`, `{"type":"number","maximumForOptimizer":1}`, cOK, ""},
		{"misspelt keyword", `{"type":"integer","multipleOF":3}`, `{"type":"integer","multipleOF":5}`, cOK, ""},
		{"vendor keyword beside a real one", `{"type":"number"}`, `{"type":"number","value":3,"maximum":1}`, cNo, RuleConstraint},
		{"older draft keyword", `{"type":"object"}`, `{"type":"object","dependencies":{"a":["b"]}}`, cUn, ""},
		// Witnesses the producer's own keywords shape.
		{"format producer witness", `{"type":"string","format":"date"}`, `{"type":"string","maxLength":5}`, cNo, RuleConstraint},
		{"pattern producer witness", `{"type":"string","pattern":"^[0-9]{4}$"}`, `{"type":"integer"}`, cNo, RuleType},
		{"minProperties producer witness", `{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^id-"}},"minProperties":2}`,
			`{"type":"object","properties":{"id":{}},"additionalProperties":false}`, cNo, RuleConstraint},
		{"uniqueItems producer witness", `{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}`, `{"type":"array","maxItems":1}`, cNo, RuleConstraint},
		// Consumer unions: the producer split.
		{"split by type", `{"type":["string","integer"]}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, cOK, ""},
		{"split by range", `{"type":"integer","minimum":0,"maximum":100}`, `{"oneOf":[{"type":"integer","maximum":9},{"type":"integer","minimum":10}]}`, cOK, ""},
		{"range gap", `{"type":"number","minimum":0,"maximum":100}`, `{"oneOf":[{"type":"integer","maximum":9},{"type":"number","minimum":10}]}`, cNo, ""},
		{"split by tag", `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["a","b"]}}}`, tagsOut, cOK, ""},
		{"tag not covered", `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["a","b","c"]}}}`, tagsOut, cNo, ""},
		{"oneOf overlap", `{"type":"integer"}`, `{"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]}`, cNo, ""},
		{"finite integers", `{"type":"integer","minimum":1,"maximum":3}`, `{"anyOf":[{"const":1},{"const":2},{"const":3}]}`, cOK, ""},
		{"split by member type", `{"type":"object","properties":{"x":{"type":["integer","string"]}},"required":["x"]}`,
			`{"anyOf":[{"properties":{"x":{"type":"integer"}}},{"properties":{"x":{"type":"string"}}}]}`, cOK, ""},
		{"split by member presence", `{"type":"object","properties":{"x":{"type":"integer"}}}`, `{"anyOf":[{"required":["x"]},{"properties":{"x":false}}]}`, cOK, ""},
		{"witness among contains", `{"type":"array","items":{"type":"string"},"contains":{"const":"x"},"maxItems":1}`, `{"type":"array","items":{"maxLength":0}}`, cNo, RuleConstraint},
		{"propertyNames producer witness", `{"type":"object","propertyNames":{"maxLength":1},"minProperties":1}`, `{"type":"object","additionalProperties":{"type":"string"}}`, cNo, RuleType},
		{"propertyNames consumer", `{"type":"object","propertyNames":{"maxLength":1}}`, `{"type":"object","propertyNames":{"maxLength":1}}`, cOK, ""},
		{"propertyNames within", `{"type":"object","propertyNames":{"pattern":"^[a-c]{1,2}$"}}`, `{"type":"object","propertyNames":{"maxLength":3}}`, cOK, ""},
		{"propertyNames of closed members", `{"type":"object","properties":{"id":{},"tag":{}},"additionalProperties":false}`, `{"type":"object","propertyNames":{"enum":["id","tag","name"]}}`, cOK, ""},
		{"propertyNames rejects a name", `{"type":"object","propertyNames":{"maxLength":5}}`, `{"type":"object","propertyNames":{"maxLength":3}}`, cNo, RuleConstraint},
		{"closed against propertyNames' enum", `{"type":"object","propertyNames":{"enum":["id","tag"]}}`, `{"type":"object","properties":{"id":{}},"additionalProperties":false}`, cNo, RuleConstraint},
		{"propertyNames leave no member to additional", `{"type":"object","propertyNames":{"pattern":"^[a-z_]+$"},"additionalProperties":{"type":"number"}}`,
			`{"type":"object","patternProperties":{"^[a-z_]+$":{"type":"number"}},"additionalProperties":false}`, cOK, ""},
		{"propertyNames rejects a required name", `{"type":"object","required":["ID"]}`, `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, cNo, RuleConstraint},
		// if/then/else, dependentSchemas and unevaluatedProperties, as the alternatives they are.
		{"if then consumer", `{"type":"object","required":["kind","n"],"properties":{"kind":{"const":"card"}}}`,
			`{"type":"object","if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["n"]},"else":{"required":["iban"]}}`, cOK, ""},
		{"if else consumer", `{"type":"object","required":["kind"],"properties":{"kind":{"const":"bank"}}}`,
			`{"type":"object","if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["n"]},"else":{"required":["iban"]}}`, cNo, ""},
		{"if producer", `{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, `{"type":["integer","string"],"minimum":0}`, cOK, ""},
		{"if producer witness", `{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, `{"type":"integer"}`, cNo, RuleType},
		{"dependentSchemas consumer", `{"type":"object","dependentRequired":{"card":["billing"]}}`, `{"dependentSchemas":{"card":{"required":["billing"]}}}`, cOK, ""},
		{"dependentSchemas consumer broken", `{"type":"object","properties":{"card":{"type":"string"}}}`, `{"dependentSchemas":{"card":{"required":["billing"]}}}`, cNo, ""},
		{"dependentSchemas producer", `{"type":"object","dependentSchemas":{"card":{"required":["billing"]}}}`, `{"type":"object","dependentRequired":{"card":["billing"]}}`, cOK, ""},
		{"unevaluatedProperties consumer", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`,
			`{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}}}],"unevaluatedProperties":false}`, cOK, ""},
		{"unevaluatedProperties consumer broken", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`, cNo, RuleConstraint},
		{"unevaluatedProperties producer", `{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":false}`,
			`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, cOK, ""},
		{"unevaluatedProperties beside anyOf", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			`{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`, cOK, ""},
		{"unevaluatedProperties beside anyOf broken", `{"type":"object"}`, `{"anyOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, cNo, ""},
		{"unevaluatedProperties beside oneOf", `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`,
			`{"oneOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}],"unevaluatedProperties":false}`, cNo, ""},
		{"unevaluatedProperties beside many branches", `{"type":"object"}`,
			`{"anyOf":[{"properties":{"a":{}}},{"properties":{"b":{}}},{"properties":{"c":{}}},{"properties":{"d":{}}}],"unevaluatedProperties":false}`, cUn, ""},
		// oneOf's exclusivity in the producer, not over unions.
		{"exclusive multiples within a range", `{"oneOf":[{"type":"integer","multipleOf":3,"minimum":0,"maximum":12},{"type":"integer","multipleOf":4,"minimum":0,"maximum":12}]}`,
			`{"type":"integer","minimum":1,"maximum":12}`, cOK, ""},
		{"oneOf producer exclusive", `{"oneOf":[{"type":"integer","minimum":0},{"type":"integer","maximum":10}]}`, `{"type":"integer","minimum":11}`, cNo, RuleConstraint},
		{"not anyOf of a not", `{"type":"object"}`, `{"not":{"anyOf":[{"pattern":"^a","type":"string"},{"not":{"type":"number"}}]}}`, cNo, RuleType},
		{"not anyOf producer", `{"not":{"anyOf":[{"type":"string","maxLength":0},{"type":["null","boolean","object","array","number"]}]}}`, `{"type":"string","minLength":1}`, cOK, ""},
		{"unique from a finite set", `{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}`, `{"type":"array","maxItems":2}`, cOK, ""},
		{"split by length", `{"type":"string"}`, `{"anyOf":[{"type":"string","maxLength":5},{"type":"string","minLength":3}]}`, cOK, ""},
		// not.
		{"not empty string", `{"type":"string","minLength":1}`, `{"not":{"type":"string","maxLength":0}}`, cOK, ""},
		{"not a range", `{"type":"integer","minimum":10}`, `{"not":{"minimum":0,"maximum":9}}`, cOK, ""},
		{"not a range met", `{"type":"integer","minimum":5}`, `{"not":{"minimum":0,"maximum":9}}`, cNo, RuleConstraint},
		{"not not", `{"type":"integer"}`, `{"not":{"not":{"type":"integer"}}}`, cOK, ""},
		{"not required forbidden", `{"type":"object","properties":{"x":false}}`, `{"not":{"required":["x"]}}`, cOK, ""},
		{"not pattern", `{"type":"string","pattern":"^a"}`, `{"not":{"pattern":"^b"}}`, cOK, ""},
		{"not other tag", `{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"}}}`,
			`{"not":{"properties":{"kind":{"const":"b"}},"required":["kind"]}}`, cOK, ""},
		{"not a member value", `{"type":"object","required":["x"],"properties":{"x":{"type":"string"}},"not":{"properties":{"x":{"const":"bad"}}}}`,
			`{"type":"object","properties":{"x":{"type":"string","not":{"const":"bad"}}}}`, cOK, ""},
		{"not a member", `{"type":"object","not":{"required":["x"]}}`, `{"type":"object","properties":{"x":{"type":"integer"}}}`, cOK, ""},
		{"dependentRequired kept", `{"type":"object","required":["a","b"]}`, `{"type":"object","dependentRequired":{"a":["b"]}}`, cOK, ""},
		{"dependentRequired broken", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"type":"object","dependentRequired":{"a":["b"]}}`, cNo, RuleRequired},
		{"dependentRequired producer", `{"type":"object","dependentRequired":{"a":["b"]},"required":["a"],"properties":{"b":{"type":"string"}}}`,
			`{"type":"object","properties":{"b":{"type":"integer"}}}`, cNo, RuleType},
		{"not of types", `{"type":["string","null"]}`, `{"not":{"anyOf":[{"type":"null"},{"type":"boolean"}]}}`, cNo, RuleType},
		// Strings as languages.
		{"pattern into enum", `{"type":"string","pattern":"^(low|high)$"}`, `{"enum":["low","high","medium"]}`, cOK, ""},
		{"pattern outside enum", `{"type":"string","pattern":"^(low|high)$"}`, `{"enum":["low","medium"]}`, cNo, RuleConstraint},
		{"pattern into pattern and length", `{"type":"string","pattern":"^[a-c]{2,4}$"}`, `{"type":"string","pattern":"^[a-z]+$","maxLength":4}`, cOK, ""},
		{"pattern over length", `{"type":"string","pattern":"^[a-c]{2,4}$"}`, `{"type":"string","maxLength":3}`, cNo, RuleConstraint},
		{"pattern fixes length", `{"type":"string","pattern":"^\\d{3}-\\d{4}$"}`, `{"type":"string","minLength":8,"maxLength":8}`, cOK, ""},
		{"case folding", `{"type":"string","pattern":"(?i)^abc$"}`, `{"type":"string","pattern":"^[aA][bB][cC]$"}`, cOK, ""},
		{"unicode classes", `{"type":"string","pattern":"^\\p{L}+$"}`, `{"type":"string","pattern":"^\\D*$"}`, cOK, ""},
		{"word boundary", `{"type":"string","pattern":"\\bword\\b"}`, `{"type":"string","pattern":"word"}`, cUn, ""},
		{"same format", `{"type":"string","format":"email","maxLength":20}`, `{"type":"string","format":"email"}`, cOK, ""},
		// Member and item counts.
		{"required count", `{"type":"object","required":["a","b"]}`, `{"type":"object","minProperties":2}`, cOK, ""},
		{"closed count", `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}`, `{"type":"object","maxProperties":2}`, cOK, ""},
		{"too many members", `{"type":"object","maxProperties":3}`, `{"type":"object","maxProperties":2}`, cNo, RuleConstraint},
		{"count closes", `{"type":"object","required":["a"],"maxProperties":1}`, `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, cOK, ""},
		{"items count", `{"type":"array","items":{"type":"object","required":["a"]}}`, `{"type":"array","items":{"minProperties":1}}`, cOK, ""},
		// Numbers.
		{"multiples combine", `{"type":"integer","multipleOf":2,"allOf":[{"multipleOf":3}]}`, `{"type":"integer","multipleOf":6}`, cOK, ""},
		{"multiples enumerated", `{"type":"number","multipleOf":0.25,"minimum":0,"maximum":1}`, `{"enum":[0,0.25,0.5,0.75,1]}`, cOK, ""},
		{"fine multiple", `{"type":"number"}`, `{"type":"number","multipleOf":0.01}`, cNo, RuleConstraint},
	}
}

func compileBoth(t testing.TB, a, b string) (*contract.Schema, *contract.Schema) {
	t.Helper()
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sa, err := c.Inline("a", mustParse(t, a))
	if err != nil {
		t.Fatalf("compile a %s: %v", a, err)
	}
	sb, err := c.Inline("b", mustParse(t, b))
	if err != nil {
		t.Fatalf("compile b %s: %v", b, err)
	}
	return sa, sb
}

func mustParse(t testing.TB, doc string) any {
	t.Helper()
	v, err := contract.ParseJSON([]byte(doc))
	if err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	return v
}

func TestSubsetTable(t *testing.T) {
	cases := subsetCases()
	if len(cases) < 60 {
		t.Fatalf("only %d pairs", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := compileBoth(t, tc.a, tc.b)
			r := Check(a, b)
			t.Logf("%v %s %q: %s (witness %s)", r.Verdict, r.Rule, r.Path, r.Reason, contract.Excerpt(r.Witness))
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict %v, want %v (%+v)", r.Verdict, tc.verdict, r)
			}
			if tc.rule != "" && r.Rule != tc.rule {
				t.Errorf("rule %q, want %q (%+v)", r.Rule, tc.rule, r)
			}
			switch r.Verdict {
			case Incompatible:
				checkWitness(t, a, b, r)
			case Compatible:
				if r.Witness != nil || r.Reason != "" {
					t.Errorf("compatible with extras: %+v", r)
				}
			case Unknown:
				if r.Reason == "" {
					t.Error("unknown without a reason")
				}
			}
		})
	}
}

func checkWitness(t *testing.T, a, b *contract.Schema, r Result) {
	t.Helper()
	if r.Reason == "" {
		t.Error("incompatible without a reason")
	}
	if vs := a.Validate(r.Witness, "en"); len(vs) > 0 {
		t.Errorf("witness %s fails a: %v", contract.Excerpt(r.Witness), vs)
	}
	if vs := b.Validate(r.Witness, "en"); len(vs) == 0 {
		t.Errorf("witness %s passes b", contract.Excerpt(r.Witness))
	}
}

func TestSubsetSeed(t *testing.T) {
	a, b := compileBoth(t,
		`{"type":"object","required":["status","recommendations"],"properties":{"status":{"type":"string"},"recommendations":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","required":["status","recommendations","priority"],"properties":{"status":{"type":"string"},"recommendations":{"type":"array","items":{"type":"string"}},"priority":{"type":"number"}}}`)
	r := Check(a, b)
	if r.Verdict != Incompatible || r.Rule != RuleRequired || r.Path != "/priority" || !strings.Contains(r.Reason, "'priority'") {
		t.Fatalf("got %+v", r)
	}
	checkWitness(t, a, b, r)
	if r := Check(b, a); r.Verdict != Compatible {
		t.Errorf("reverse: %+v", r)
	}
}

func TestSubsetEffective(t *testing.T) {
	c, err := contract.NewCompiler(contract.Options{Standard: standard(t)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Inline("out", mustParse(t, `{"$defs":{"p":{"type":"integer"}},"required":["priority"],"properties":{"priority":{"$ref":"#/$defs/p"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	eff, err := c.Effective(c.Standard(), out)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Inline("in", mustParse(t, `{"type":"object","required":["status","priority"],"properties":{"priority":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := Check(eff, in); r.Verdict != Compatible {
		t.Errorf("effective into input: %+v", r)
	}
	if r := Check(c.Standard(), in); r.Verdict != Incompatible || r.Rule != RuleRequired {
		t.Errorf("standard into input: %+v", r)
	} else {
		checkWitness(t, c.Standard(), in, r)
	}
}

// TestSubsetSamples checks Compatible answers on random instances of a: each one a accepts
// must pass b.
func TestSubsetSamples(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, tc := range subsetCases() {
		if tc.verdict != Compatible {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			a, b := compileBoth(t, tc.a, tc.b)
			src := a.Source()
			accepted := 0
			for range 50 {
				v := generate(rnd, src, src, 0)
				if len(a.Validate(v, "en")) > 0 {
					continue
				}
				accepted++
				if vs := b.Validate(v, "en"); len(vs) > 0 {
					t.Errorf("%s passes a but fails b: %v", contract.Excerpt(v), vs)
				}
			}
			t.Logf("%d of 50 samples valid for a", accepted)
		})
	}
}

// generate makes a random value aimed at schema s (in document root); it need not satisfy s.
func generate(rnd *rand.Rand, s, root any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 6 {
		return randomValue(rnd, depth)
	}
	if ref, ok := m["$ref"].(string); ok {
		if target, ok := (node{doc: &contract.Doc{Value: root}, key: "g#"}).resolve(ref); ok {
			return generate(rnd, target.v, root, depth+1)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[kw].([]any); ok && len(list) > 0 {
			// Merge one branch into the rest, shallowly: good enough to aim.
			merged := map[string]any{}
			for k, v := range m {
				if k != kw {
					merged[k] = v
				}
			}
			if part, ok := list[rnd.IntN(len(list))].(map[string]any); ok {
				for k, v := range part {
					if _, dup := merged[k]; !dup || kw != "allOf" {
						merged[k] = v
					}
				}
			}
			if kw == "allOf" {
				for _, p := range list {
					if pm, ok := p.(map[string]any); ok {
						for k, v := range pm {
							if k == "required" {
								merged[k] = append(anyList(merged[k]), anyList(v)...)
							} else if _, dup := merged[k]; !dup {
								merged[k] = v
							}
						}
					}
				}
			}
			return generate(rnd, merged, root, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return deepCopy(c)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return deepCopy(e[rnd.IntN(len(e))])
	}
	t := ""
	switch ty := m["type"].(type) {
	case string:
		t = ty
	case []any:
		t, _ = ty[rnd.IntN(len(ty))].(string)
	}
	if t == "" {
		switch {
		case m["properties"] != nil || m["required"] != nil:
			t = "object"
		case m["items"] != nil || m["prefixItems"] != nil || m["contains"] != nil:
			t = "array"
		default:
			return randomValue(rnd, depth)
		}
	}
	switch t {
	case "null":
		return nil
	case "boolean":
		return rnd.IntN(2) == 0
	case "integer", "number":
		lo, hi := -20, 20
		if r, ok := numberOf(m["minimum"]); ok {
			f, _ := r.Float64()
			lo = int(f)
		}
		if r, ok := numberOf(m["maximum"]); ok {
			f, _ := r.Float64()
			hi = int(f)
		}
		if hi < lo {
			hi = lo
		}
		n := lo + rnd.IntN(hi-lo+1)
		if mult, ok := numberOf(m["multipleOf"]); ok {
			if v, ok := ratJSON(new(big.Rat).Mul(mult, big.NewRat(int64(n), 1))); ok {
				return v
			}
		}
		if t == "number" && rnd.IntN(2) == 0 {
			return json.Number(fmtFloat(float64(n) + 0.25))
		}
		return json.Number(strconv.Itoa(n))
	case "string":
		lo, hi := sizeRange(m, "minLength", "maxLength", 8)
		const alphabet = "ab@.:-1 xcAB"
		var sb strings.Builder
		if src, ok := m["pattern"].(string); ok && rnd.IntN(2) == 0 {
			// Aim at the pattern: a match of it, with a random rune before or after.
			if re, err := regexp.Compile(src); err == nil {
				if w, ok := sampleMatch(re); ok {
					sb.WriteString(w)
				}
			}
			if rnd.IntN(2) == 0 {
				return string(alphabet[rnd.IntN(len(alphabet))]) + sb.String()
			}
		}
		for range lo + rnd.IntN(hi-lo+1) {
			sb.WriteByte(alphabet[rnd.IntN(len(alphabet))])
		}
		return sb.String()
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, r := range anyList(m["required"]) {
			if name, ok := r.(string); ok {
				out[name] = generate(rnd, props[name], root, depth+1)
			}
		}
		for name, ps := range props {
			if rnd.IntN(2) == 0 {
				out[name] = generate(rnd, ps, root, depth+1)
			}
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok {
			for src, ps := range pp {
				re, err := regexp.Compile(src)
				if err != nil || rnd.IntN(2) == 0 {
					continue
				}
				if name, ok := sampleMatch(re); ok {
					out[name] = generate(rnd, ps, root, depth+1)
				}
			}
		}
		if rnd.IntN(3) == 0 {
			out["extra"] = generate(rnd, m["additionalProperties"], root, depth+1)
		}
		if n, ok := smallInt(m["minProperties"]); ok && rnd.IntN(2) == 0 {
			for i := 0; len(out) < n; i++ {
				out["e"+strconv.Itoa(i)] = randomValue(rnd, depth+1)
			}
		}
		return out
	case "array":
		lo, hi := sizeRange(m, "minItems", "maxItems", 4)
		prefix := anyList(m["prefixItems"])
		out := []any{}
		for i := range lo + rnd.IntN(hi-lo+1) {
			if i < len(prefix) {
				out = append(out, generate(rnd, prefix[i], root, depth+1))
			} else {
				out = append(out, generate(rnd, m["items"], root, depth+1))
			}
		}
		if c, ok := m["contains"]; ok && len(out) > 0 && rnd.IntN(2) == 0 {
			out[rnd.IntN(len(out))] = generate(rnd, c, root, depth+1)
		}
		return out
	}
	return randomValue(rnd, depth)
}

// sizeRange reads a length range from schema m's minKey and maxKey, defaulting to 0..hi.
func sizeRange(m map[string]any, minKey, maxKey string, hi int) (int, int) {
	lo := 0
	if n, ok := smallInt(m[minKey]); ok {
		lo = n
	}
	if n, ok := smallInt(m[maxKey]); ok {
		hi = n
	}
	return lo, max(hi, lo)
}

// standard is seam's standard output contract, as the contract package's tests read it.
func standard(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../../schemas/node-output.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func fmtFloat(f float64) string {
	n, _ := contract.Normalize(f)
	return string(n.(json.Number))
}

func randomValue(rnd *rand.Rand, depth int) any {
	switch rnd.IntN(7) {
	case 0:
		return nil
	case 1:
		return rnd.IntN(2) == 0
	case 2:
		return json.Number(strconv.Itoa(rnd.IntN(10) - 3))
	case 3:
		return json.Number("0.5")
	case 4:
		return "s"
	case 5:
		if depth < 3 {
			return []any{randomValue(rnd, depth+1)}
		}
		return []any{}
	}
	if depth < 3 {
		return map[string]any{"k": randomValue(rnd, depth+1)}
	}
	return map[string]any{}
}

func FuzzSubset(f *testing.F) {
	for _, tc := range subsetCases() {
		f.Add(tc.a, tc.b)
	}
	f.Add(`{"anyOf":[{"$ref":"#"},{"$ref":"#"}],"required":["a","b"],"properties":{"a":{"$ref":"#"},"b":{"$ref":"#"}}}`,
		`{"oneOf":[{"$ref":"#"},{"$ref":"#"}],"properties":{"a":{"$ref":"#"}}}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		va, err1 := contract.ParseJSON([]byte(a))
		vb, err2 := contract.ParseJSON([]byte(b))
		if err1 != nil || err2 != nil {
			return
		}
		c, err := contract.NewCompiler(contract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sa, err1 := c.Inline("a", va)
		sb, err2 := c.Inline("b", vb)
		if err1 != nil || err2 != nil {
			return
		}
		start := time.Now()
		r := Check(sa, sb)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v", d)
		}
		switch r.Verdict {
		case Incompatible:
			checkWitness(t, sa, sb, r)
		case Compatible:
			// Never a wrong "compatible": no sample of a may fail b.
			rnd := rand.New(rand.NewPCG(uint64(len(a)), uint64(len(b))))
			for range 20 {
				v := generate(rnd, va, va, 0)
				if len(sa.Validate(v, "en")) == 0 && len(sb.Validate(v, "en")) > 0 {
					t.Fatalf("compatible, but %s passes a and fails b", contract.Excerpt(v))
				}
			}
		}
	})
}

// TestSubsetLimits runs adversarial pairs: each must answer quickly, and never Compatible
// where that would be wrong.
func TestSubsetLimits(t *testing.T) {
	deep := strings.Repeat(`{"anyOf":[{"type":"string"},`, 30) + `{"type":"null"}` + strings.Repeat(`]}`, 30)
	cases := []struct {
		name, a, b string
		not        Verdict // the verdict that would be wrong
	}{
		{"deep anyOf", deep, `{"type":"string"}`, Compatible},
		{"self ref", `{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{"type":"string"}`, Compatible},
		{"recursive required", `{"type":"object","required":["a","b"],"properties":{"a":{"$ref":"#"},"b":{"$ref":"#"}}}`,
			`{"type":"object","required":["c"]}`, Incompatible},
		{"alternatives of refs", `{"anyOf":[{"$ref":"#"},{"$ref":"#"}],"type":"object","properties":{"a":{"$ref":"#"}}}`,
			`{"oneOf":[{"$ref":"#"},{"$ref":"#"}],"properties":{"a":{"$ref":"#"}}}`, Incompatible},
		{"big minItems", `{"type":"array","minItems":100000,"items":{"type":"array","minItems":100000}}`, `{"type":"array","maxItems":3}`, Compatible},
		{"many patterns", `{"type":"object","patternProperties":{"^a":{},"^b":{},"^c":{},"^d":{},"^e":{},"^f":{},"^g":{},"^h":{}},"additionalProperties":false}`,
			`{"type":"object","additionalProperties":{"type":"string"}}`, Compatible},
		{"long tuple", `{"type":"array","prefixItems":[` + strings.Repeat(`{"type":"string"},`, 200) + `{}],"minItems":201}`,
			`{"type":"array","prefixItems":[` + strings.Repeat(`{"type":"string"},`, 200) + `{"type":"null"}]}`, Compatible},
		// Automata: a DFA of 2^15 states, lengths past the limit, many classes.
		{"exponential pattern", `{"type":"string","pattern":"^[ab]*a[ab]{14}$"}`, `{"type":"string","pattern":"^[ab]*$"}`, Incompatible},
		{"exponential patterns", `{"type":"string","pattern":"^[ab]*a[ab]{14}$"}`, `{"type":"string","pattern":"^[ab]*a[ab]{13}$"}`, Compatible},
		{"long lengths", `{"type":"string","pattern":"^[a-z]+$","maxLength":4000}`, `{"type":"string","pattern":"^[a-z]*$","maxLength":4001}`, Incompatible},
		{"length past the limit", `{"type":"string","pattern":"^[a-z]+$","maxLength":100000}`, `{"type":"string","pattern":"^[a-z]*$","maxLength":100001}`, Incompatible},
		{"many classes", `{"type":"string","pattern":"^[\\p{Greek}\\p{Han}\\p{Cyrillic}a-f0-3]{1,40}x$"}`, `{"type":"string","pattern":"^[\\p{L}\\d]*x$"}`, Compatible}, // Greek has non-letters (U+0375)
		// Splits: values equal as JSON are one tag; members split by type nest only so deep.
		{"equal tag values", `{"properties":{"a":{"type":"number"},"b":{"enum":[1,1.0]}},"required":["c"],"type":"object"}`,
			`{"anyOf":[{"additionalProperties":false,"properties":{"a":{"type":"integer"}},"required":["b","c"],"type":"object"},{"type":"null"}]}`, Compatible},
		{"many members split", `{"type":"object","properties":{"a":{"type":["string","integer","null","boolean","array","object"]},"b":{"type":["string","integer","null"]},"c":{"type":["string","integer"]},"d":{"type":["string","null"]}}}`,
			`{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}}},{"properties":{"c":{"type":"null"}}},{"properties":{"d":{"type":"boolean"}}}]}`, Compatible},
		{"nested resource", `{"type":"object","properties":{"x":{"$id":"http://example.com/x","$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s"}}}`,
			`{"$defs":{"s":{"type":"number"}},"type":"object","properties":{"x":{"$ref":"#/$defs/s"}}}`, Compatible},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := compileBoth(t, tc.a, tc.b)
			// Quick means within the budget: a comparison stops soon after it is spent.
			c := &checker{assumed: make(map[string]int)}
			c.sub(roots(a, "a"), roots(b, "b"), 0)
			if c.work > maxSubsetWork+maxSubsetWork/10 {
				t.Errorf("%d units of work, budget %d", c.work, maxSubsetWork)
			}
			r := Check(a, b)
			t.Logf("%v after %d units: %s", r.Verdict, c.work, r.Reason)
			if r.Verdict == tc.not {
				t.Errorf("verdict %v: %+v", r.Verdict, r)
			}
			if r.Verdict == Incompatible {
				checkWitness(t, a, b, r)
			}
		})
	}
}

// TestSubsetNumbersBeyondLimits: a source a program builds may hold numbers
// contract.ParseJSON refuses; the checker reads none of them, and never answers Compatible
// from them.
func TestSubsetNumbersBeyondLimits(t *testing.T) {
	_, b := compileBoth(t, `{}`, `{"type":"string"}`)
	for _, n := range []json.Number{"1e2000", "-1e-5000", json.Number("1" + strings.Repeat("0", contract.MaxNumberDigits))} {
		src := map[string]any{"enum": []any{n}}
		r := CheckSource(src, b, func() (*contract.Schema, error) { return nil, errors.New("not compiled") })
		if r.Verdict == Compatible {
			t.Errorf("%.20s: %+v", n, r)
		}
	}
}

// TestSubsetBudget: schemas whose comparison branches without end (each member of a refers
// back to a; b's members to schemas a's never meet) stop at the budget and say so.
func TestSubsetBudget(t *testing.T) {
	members := func(n int, ref string) string {
		m := make([]string, n)
		for i := range m {
			m[i] = fmt.Sprintf(`"p%d":{"$ref":%q}`, i, ref)
		}
		return `"properties":{` + strings.Join(m, ",") + `}`
	}
	const n = 200
	a := `{"type":"object",` + members(n, "#") + `}`
	b := `{"type":"object","$defs":{"x":{"type":"object",` + members(n, "#/$defs/y") + `},"y":{"type":"object",` +
		members(n, "#/$defs/x") + `}},` + members(n, "#/$defs/x") + `}`
	sa, sb := compileBoth(t, a, b)
	c := &checker{assumed: make(map[string]int)}
	c.sub(roots(sa, "a"), roots(sb, "b"), 0)
	if c.work <= maxSubsetWork || c.work > maxSubsetWork+maxSubsetWork/10 {
		t.Errorf("%d units of work, want just past the budget of %d", c.work, maxSubsetWork)
	}
	r := Check(sa, sb)
	want := fmt.Sprintf("the comparison exceeded the checker's budget of %d units of work or %d ms", maxSubsetWork, maxSubsetTime.Milliseconds())
	if r.Verdict != Unknown || r.Reason != want {
		t.Errorf("got %v %q, want unknown %q", r.Verdict, r.Reason, want)
	}
}

// TestSubsetDeadline: once the time limit has passed, the budget is spent and the
// comparison is unknown, however little work it counted; without a deadline the same pair is
// decided.
func TestSubsetDeadline(t *testing.T) {
	a, b := compileBoth(t, `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"type":"object","properties":{"a":{"type":"number"}}}`)
	c := &checker{assumed: make(map[string]int), deadline: time.Now().Add(-time.Second)}
	if r := c.sub(roots(a, "a"), roots(b, "b"), 0); r.Verdict != Unknown || c.work <= maxSubsetWork {
		t.Errorf("past the deadline: %v after %d units of work", r.Verdict, c.work)
	}
	c = &checker{assumed: make(map[string]int)}
	if r := c.sub(roots(a, "a"), roots(b, "b"), 0); r.Verdict != Compatible {
		t.Errorf("without a deadline: %v: %s", r.Verdict, r.Reason)
	}
}

// TestSubsetLargeEnums: enums are compared in time linear in their size, so thousands of
// values fit in the budget.
func TestSubsetLargeEnums(t *testing.T) {
	enum := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf("%d.5", i)
		}
		return `{"enum":[` + strings.Join(vs, ",") + `]}`
	}
	a, b := compileBoth(t, enum(5000), enum(5001))
	c := &checker{assumed: make(map[string]int)}
	if r := c.sub(roots(a, "a"), roots(b, "b"), 0); r.Verdict != Compatible {
		t.Errorf("%v: %s", r.Verdict, r.Reason)
	}
	if r := Check(b, a); r.Verdict != Incompatible || fmt.Sprint(r.Witness) != "5000.5" {
		t.Errorf("reverse: %v %v: %s", r.Verdict, r.Witness, r.Reason)
	}
}

// TestSubsetEnumLanguage: a pattern's strings are compared with an enum of hundreds of
// strings as languages, the enum's being their alternation.
func TestSubsetEnumLanguage(t *testing.T) {
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf(`"item-%03d"`, i)
	}
	enum := `{"enum":[` + strings.Join(names, ",") + `]}`
	a, b := compileBoth(t, `{"type":"string","pattern":"^item-[01][0-9]{2}$"}`, enum)
	if r := Check(a, b); r.Verdict != Compatible {
		t.Errorf("%v: %s", r.Verdict, r.Reason)
	}
	a, b = compileBoth(t, `{"type":"string","pattern":"^item-[0-2][0-9]{2}$"}`, enum)
	if r := Check(a, b); r.Verdict != Incompatible {
		t.Errorf("wider: %v: %s", r.Verdict, r.Reason)
	} else {
		checkWitness(t, a, b, r)
	}
}

func TestSampleMatch(t *testing.T) {
	for _, src := range []string{"^x-", "^[a-c]+$", "a{3}", "(foo|bar)baz$", `\d+`, "^$", "(?i)^Key_", `\bword\b`} {
		re := regexp.MustCompile(src)
		w, ok := sampleMatch(re)
		if !ok || !re.MatchString(w) {
			t.Errorf("%s: %q, %v", src, w, ok)
		}
	}
	if w, ok := sampleMatch(regexp.MustCompile(`^[^\x00-\x{10FFFF}]`)); ok {
		t.Errorf("empty class: %q", w)
	}
}

func TestSubsetPaths(t *testing.T) {
	want := map[string]string{
		"required missing":           "/priority",
		"nested required":            "/m/cost",
		"member wider":               "/x",
		"escaped member name":        "/a~1b",
		"items wrong type":           "/0",
		"recursive tree wider":       "/kids/0/v",
		"open into closed":           "/x",
		"number not integer":         "",
		"tuple member wider":         "/1",
		"named against pattern":      "/x-id",
		"additional against pattern": "/n_",
	}
	for _, tc := range subsetCases() {
		p, ok := want[tc.name]
		if !ok {
			continue
		}
		delete(want, tc.name)
		a, b := compileBoth(t, tc.a, tc.b)
		if r := Check(a, b); r.Path != p {
			t.Errorf("%s: path %q, want %q (%+v)", tc.name, r.Path, p, r)
		}
	}
	if len(want) > 0 {
		t.Errorf("cases not in the table: %v", want)
	}
}

// TestSubsetReverse runs every pair of the table the other way round, where no answer is
// written down: an Incompatible must carry a true witness, a Compatible must hold on samples.
func TestSubsetReverse(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	counts := map[Verdict]int{}
	for _, tc := range subsetCases() {
		t.Run(tc.name, func(t *testing.T) {
			b, a := compileBoth(t, tc.a, tc.b)
			r := Check(a, b)
			counts[r.Verdict]++
			switch r.Verdict {
			case Incompatible:
				checkWitness(t, a, b, r)
			case Compatible:
				src := a.Source()
				for range 50 {
					v := generate(rnd, src, src, 0)
					if len(a.Validate(v, "en")) == 0 && len(b.Validate(v, "en")) > 0 {
						t.Errorf("%s passes a but fails b", contract.Excerpt(v))
					}
				}
			}
		})
	}
	t.Logf("reverse verdicts: %v", counts)
}

// TestSubsetRandomPairs draws schema pairs from a small grammar of the modelled keywords and
// checks every Compatible answer on samples of a (Incompatible witnesses are verified by
// Check itself and again here).
func TestSubsetRandomPairs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	n := 3000
	if testing.Short() {
		n = 300
	}
	counts := map[Verdict]int{}
	for range n {
		as, bs := randomSchema(rnd, 0), randomSchema(rnd, 0)
		if rnd.IntN(3) == 0 {
			bs = mutateSchema(rnd, as) // near pairs are the interesting ones
		}
		if rnd.IntN(5) == 0 {
			as = map[string]any{"$defs": map[string]any{"d": as}, "$ref": "#/$defs/d"}
		}
		if rnd.IntN(5) == 0 {
			bs = map[string]any{"$defs": map[string]any{"d": bs}, "allOf": []any{map[string]any{"$ref": "#/$defs/d"}}}
		}
		ja, _ := json.Marshal(as)
		jb, _ := json.Marshal(bs)
		a, b := compileBoth(t, string(ja), string(jb))
		r := Check(a, b)
		counts[r.Verdict]++
		switch r.Verdict {
		case Incompatible:
			checkWitness(t, a, b, r)
		case Compatible:
			src := a.Source()
			for range 30 {
				v := generate(rnd, src, src, 0)
				if len(a.Validate(v, "en")) == 0 && len(b.Validate(v, "en")) > 0 {
					t.Fatalf("compatible, but %s passes a and fails b\na: %s\nb: %s", contract.Excerpt(v), ja, jb)
				}
			}
		}
	}
	t.Logf("verdicts: %v", counts)
}

func randomSchema(rnd *rand.Rand, depth int) any {
	pick := func(vs ...any) any { return vs[rnd.IntN(len(vs))] }
	num := func() json.Number {
		return pick(json.Number("0"), json.Number("1"), json.Number("2"), json.Number("0.5"), json.Number("-1")).(json.Number)
	}
	if depth > 2 {
		return map[string]any{"type": pick("string", "integer", "number", "boolean", "null")}
	}
	switch rnd.IntN(20) {
	case 14, 15:
		// Strings as languages.
		s := map[string]any{"type": "string", "pattern": pick("^a", "^[ab]+$", "b$", "^[a-c]{1,3}$", "a.*b", "^(ab|ba)$", `\d`, "^[^a]*$", "(?i)^A")}
		if rnd.IntN(3) == 0 {
			s["minLength"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
		if rnd.IntN(3) == 0 {
			s["maxLength"] = json.Number(strconv.Itoa(1 + rnd.IntN(3)))
		}
		return s
	case 16:
		s := map[string]any{"type": "object", "properties": map[string]any{"a": randomSchema(rnd, depth+1), "b": true}}
		if rnd.IntN(2) == 0 {
			s["minProperties"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
		if rnd.IntN(2) == 0 {
			s["maxProperties"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
		if rnd.IntN(3) == 0 {
			s["required"] = []any{pick("a", "b")}
		}
		if rnd.IntN(3) == 0 {
			s["additionalProperties"] = false
		}
		if rnd.IntN(4) == 0 {
			s["propertyNames"] = pick(map[string]any{"pattern": "^[ab]"}, map[string]any{"maxLength": json.Number("1")})
		}
		return s
	case 17:
		if rnd.IntN(3) == 0 {
			return map[string]any{"type": "object", "dependentRequired": map[string]any{pick("a", "b").(string): []any{pick("a", "b", "c")}},
				"properties": map[string]any{"a": randomSchema(rnd, depth+1)}}
		}
		return map[string]any{"not": randomSchema(rnd, depth+1)}
	case 18:
		// Vendor and misspelt words: annotations.
		s, _ := randomSchema(rnd, depth+1).(map[string]any)
		if s == nil {
			s = map[string]any{}
		}
		s[pick("x-unit", "maximumForOptimizer", "multipleOF", "value").(string)] = num()
		return s
	case 19:
		// Unions a producer must be split to fit.
		kw := pick("anyOf", "oneOf").(string)
		if rnd.IntN(2) == 0 {
			return map[string]any{kw: []any{
				map[string]any{"properties": map[string]any{"a": map[string]any{"type": pick("integer", "string")}}},
				map[string]any{"required": []any{pick("a", "b")}},
				map[string]any{"properties": map[string]any{"a": pick(false, map[string]any{"type": "null"})}}}[:2+rnd.IntN(2)]}
		}
		return map[string]any{kw: []any{
			map[string]any{"type": pick("integer", "number"), "maximum": num()},
			map[string]any{"type": pick("integer", "number", "string"), "minimum": num()},
			map[string]any{"type": pick("string", "null", "object")}}[:2+rnd.IntN(2)]}
	case 11:
		// The keywords rewritten as alternatives, and propertyNames.
		member := func() any {
			return map[string]any{"a": randomSchema(rnd, depth+1), "b": pick(true, map[string]any{"type": "string"})}
		}
		switch rnd.IntN(5) {
		case 0:
			s := map[string]any{"type": "object", "if": pick(map[string]any{"properties": map[string]any{"a": map[string]any{"const": json.Number("1")}}},
				map[string]any{"required": []any{"a"}}, map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}),
				"then": pick(map[string]any{"required": []any{"b"}}, randomSchema(rnd, depth+1))}
			if rnd.IntN(2) == 0 {
				s["else"] = pick(map[string]any{"properties": map[string]any{"b": false}}, randomSchema(rnd, depth+1))
			}
			return s
		case 1:
			return map[string]any{"type": "object", "properties": member(), "dependentSchemas": map[string]any{pick("a", "b").(string): pick(
				map[string]any{"required": []any{pick("a", "b", "c")}}, map[string]any{"properties": map[string]any{"b": map[string]any{"type": "integer"}}},
				map[string]any{"maxProperties": json.Number("1")})}}
		case 2:
			s := map[string]any{"type": "object", "unevaluatedProperties": pick(false, map[string]any{"type": "string"})}
			if rnd.IntN(2) == 0 {
				s["properties"] = map[string]any{"a": randomSchema(rnd, depth+1)}
			}
			kw := pick("allOf", "anyOf", "oneOf").(string)
			s[kw] = []any{map[string]any{"properties": map[string]any{"b": randomSchema(rnd, depth+1)}},
				map[string]any{"properties": map[string]any{"c": true}, "required": []any{"c"}}, map[string]any{"patternProperties": map[string]any{"^x": true}}}[:1+rnd.IntN(3)]
			return s
		case 3:
			s := map[string]any{"type": "object", "properties": member(), "propertyNames": pick(map[string]any{"pattern": "^[ab]"},
				map[string]any{"maxLength": json.Number("1")}, map[string]any{"enum": []any{"a", "b"}}, map[string]any{"not": map[string]any{"const": "b"}})}
			if rnd.IntN(2) == 0 {
				s["additionalProperties"] = false
			}
			return s
		}
		return map[string]any{"not": map[string]any{"type": pick("string", "integer", []any{"string", "number"}), "minimum": num(), "maxLength": json.Number("1")}}
	case 0:
		return pick(true, false)
	case 1:
		return map[string]any{"enum": []any{pick("a", "b", json.Number("1"), nil, true), pick("b", json.Number("2"), json.Number("1.0"), false)}}
	case 2:
		return map[string]any{"const": pick("a", json.Number("1"), nil)}
	case 3:
		kw := pick("anyOf", "oneOf", "allOf").(string)
		return map[string]any{kw: []any{randomSchema(rnd, depth+1), randomSchema(rnd, depth+1)}}
	case 4, 5:
		s := map[string]any{"type": pick("number", "integer", []any{"integer", "null"})}
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if rnd.IntN(3) == 0 {
				s[kw] = num()
			}
		}
		if rnd.IntN(3) == 0 {
			s["multipleOf"] = pick(json.Number("1"), json.Number("2"), json.Number("0.5"), json.Number("3"))
		}
		return s
	case 6, 7:
		s := map[string]any{"type": pick("string", []any{"string", "null"})}
		if rnd.IntN(2) == 0 {
			s["minLength"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
		if rnd.IntN(2) == 0 {
			s["maxLength"] = json.Number(strconv.Itoa(rnd.IntN(4)))
		}
		if rnd.IntN(6) == 0 {
			s["format"] = pick("date", "email")
		}
		return s
	case 8, 9, 10:
		s := map[string]any{}
		if rnd.IntN(4) != 0 {
			s["type"] = "object"
		}
		props := map[string]any{}
		for _, name := range []string{"a", "b"} {
			if rnd.IntN(2) == 0 {
				props[name] = randomSchema(rnd, depth+1)
			}
		}
		s["properties"] = props
		var req []any
		for _, name := range []string{"a", "b", "c"} {
			if rnd.IntN(3) == 0 {
				req = append(req, name)
			}
		}
		if req != nil {
			s["required"] = req
		}
		if rnd.IntN(3) == 0 {
			s["additionalProperties"] = pick(false, map[string]any{"type": "string"}, true)
		}
		return s
	case 12:
		// not, in the forms the checker decides and one it does not.
		return map[string]any{"not": pick(map[string]any{"const": pick("a", json.Number("1"), nil)},
			map[string]any{"enum": []any{"a", json.Number("2")}}, map[string]any{"type": pick("string", "null", "integer")},
			map[string]any{"required": []any{pick("a", "b")}}, map[string]any{"type": "string", "minLength": json.Number("1")},
			map[string]any{"properties": map[string]any{"a": pick(map[string]any{"const": json.Number("1")}, map[string]any{"type": "string"})}})}
	case 13:
		s := map[string]any{"type": "object", "patternProperties": map[string]any{}}
		for _, src := range []string{"^a", "^x", "b$", "^[ab]$"} {
			if rnd.IntN(3) == 0 {
				s["patternProperties"].(map[string]any)[src] = randomSchema(rnd, depth+1)
			}
		}
		if rnd.IntN(2) == 0 {
			s["properties"] = map[string]any{pick("a", "xb").(string): randomSchema(rnd, depth+1)}
		}
		if rnd.IntN(2) == 0 {
			s["additionalProperties"] = pick(false, map[string]any{"type": "string"}, true)
		}
		if rnd.IntN(3) == 0 {
			s["required"] = []any{pick("a", "xb", "b")}
		}
		return s
	}
	s := map[string]any{"type": "array", "items": randomSchema(rnd, depth+1)}
	if rnd.IntN(3) == 0 {
		s["prefixItems"] = []any{randomSchema(rnd, depth+1), randomSchema(rnd, depth+1)}[:1+rnd.IntN(2)]
		if rnd.IntN(2) == 0 {
			s["items"] = false
		}
	}
	if rnd.IntN(4) == 0 {
		s["contains"] = randomSchema(rnd, depth+1)
		if rnd.IntN(2) == 0 {
			s["minContains"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
		if rnd.IntN(3) == 0 {
			s["maxContains"] = json.Number(strconv.Itoa(rnd.IntN(3)))
		}
	}
	if rnd.IntN(2) == 0 {
		s["minItems"] = json.Number(strconv.Itoa(rnd.IntN(3)))
	}
	if rnd.IntN(2) == 0 {
		s["maxItems"] = json.Number(strconv.Itoa(rnd.IntN(4)))
	}
	if rnd.IntN(3) == 0 {
		s["uniqueItems"] = true
	}
	return s
}

// mutateSchema returns a copy of s with one keyword added, dropped or replaced.
func mutateSchema(rnd *rand.Rand, s any) any {
	m, ok := deepCopy(s).(map[string]any)
	if !ok {
		return randomSchema(rnd, 1)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch rnd.IntN(3) {
	case 0:
		if len(keys) > 0 {
			delete(m, keys[rnd.IntN(len(keys))])
		}
	case 1:
		extra, _ := randomSchema(rnd, 1).(map[string]any)
		for k, v := range extra {
			m[k] = v
		}
	default:
		if props, ok := m["properties"].(map[string]any); ok {
			props["a"] = randomSchema(rnd, 2)
		} else {
			m["allOf"] = []any{randomSchema(rnd, 2)}
		}
	}
	return m
}

// TestSubsetNamed checks that the reason calls the schemas by the names given, and by a and
// b without them.
func TestSubsetNamed(t *testing.T) {
	tests := []struct{ a, b, want, wantAB string }{
		{`{"type": "object"}`, `{"type": "object", "required": ["p"]}`,
			"consumer.json requires 'p' but producer.json does not guarantee it",
			"b requires 'p' but a does not guarantee it"},
		{`{"type": "string"}`, `{"type": "integer"}`,
			"producer.json may produce a string where consumer.json requires integer",
			"a may produce a string where b requires integer"},
		{`{"type": "string"}`, `{"type": "string", "pattern": "^x"}`,
			`producer.json may produce "", which breaks consumer.json's pattern`,
			`a may produce "", which breaks b's pattern`},
		{`{"type": "array"}`, `{"type": "array", "unevaluatedItems": false}`,
			"consumer.json uses unevaluatedItems, which seam does not compare yet",
			"b uses unevaluatedItems, which seam does not compare yet"},
	}
	for _, tc := range tests {
		a, b := compileBoth(t, tc.a, tc.b)
		if got := CheckNamed(a, b, "producer.json", "consumer.json").Reason; got != tc.want {
			t.Errorf("%s ⊆ %s: reason %q, want %q", tc.a, tc.b, got, tc.want)
		}
		if got := Check(a, b).Reason; got != tc.wantAB {
			t.Errorf("%s ⊆ %s: unnamed reason %q, want %q", tc.a, tc.b, got, tc.wantAB)
		}
	}
}
