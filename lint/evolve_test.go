package lint

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// gateDAG is a DAG whose producer p reads its output contract from out.json (its data member
// is the case's schema) and whose consumer c, when there, maps input to its contract.input,
// in.json. extra is put before the nodes (comments, other nodes) to move them.
func gateDAG(input, extra string) string {
	s := "version: 1\nname: t\n" + extra + "nodes:\n" +
		"  p:\n    type: const\n    with: {value: {status: pass, summary: s}}\n    contract: {output: out.json}\n"
	if input != "" {
		s += "  c:\n    type: echo\n" + input + "\n    contract: {input: in.json}\n"
	}
	return s
}

// loadGate loads a gateDAG with out.json's data schema out and in.json in.
func loadGate(t *testing.T, src, out, in string) *dag.DAG {
	t.Helper()
	files := map[string]string{
		"out.json": `{"type":"object","required":["data"],"properties":{"data":` + out + `}}`,
		"in.json":  in,
	}
	read := func(path string) ([]byte, error) {
		if b, ok := files[filepath.Base(path)]; ok {
			return []byte(b), nil
		}
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	d, err := dag.LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes(), ReadFile: read})
	if err != nil {
		t.Fatalf("load:\n%s\n%v", src, err)
	}
	return d
}

// Schemas of the corpus: the producer's data, the consumer's input.
const (
	xInt      = `{"type":"object","required":["x"],"properties":{"x":{"type":"integer","minimum":0,"maximum":10}}}`
	needXInt  = `{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}}}`
	mapX      = `    input: {x: "${{ nodes.p.output.data.x }}"}`
	mapXWhole = `    input: "${{ nodes.p.output.data }}"`
)

// unknownIn is a consumer's input contract the checker cannot decide (unevaluatedProperties
// beside if).
const unknownIn = `{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}},"if":{"required":["x"]},"then":{"required":["x"]},"unevaluatedProperties":false}`

// dataX is a producer's data with x's schema sx, required or not, and closed or open.
func dataX(sx string, required, closed bool) string {
	s := `{"type":"object","properties":{"x":` + sx + `}`
	if required {
		s += `,"required":["x"]`
	}
	if closed {
		s += `,"additionalProperties":false`
	}
	return s + "}"
}

// needX is a consumer's input contract requiring x with schema sx.
func needX(sx string) string {
	return `{"type":"object","required":["x"],"properties":{"x":` + sx + `}}`
}

// TestEvolveCorpus judges contract changes edge by edge: each case is a producer's data
// schema and a consumer's input contract at the older revision and now, and the one change
// the gate must report ("" for none), and whether the producer's guarantee weakened.
func TestEvolveCorpus(t *testing.T) {
	tests := []struct {
		name             string
		oldOut, oldIn    string
		newOut, newIn    string // "": as old
		oldInput, input  string // the consumer's input mapping; "" for oldInput: as input; "-": no consumer
		newFile          bool   // the DAG file is new
		extra            string // put before the nodes now (gateDAG)
		why              string // what a SEAM-W308 says the change touched
		want             string
		weakened         bool
		noWitnessMessage string // a break without a witness (SEAM-E305): a substring of its message
	}{
		{name: "nothing changes", oldOut: xInt, oldIn: needXInt},
		{name: "producer adds an optional property to an open object", oldOut: xInt, oldIn: needXInt,
			newOut: `{"type":"object","required":["x"],"properties":{"x":{"type":"integer","minimum":0,"maximum":10},"y":{"type":"string"}}}`},
		{name: "producer adds an optional property to a closed object", oldOut: dataX(`{"type":"integer"}`, true, true), oldIn: needXInt,
			newOut: `{"type":"object","required":["x"],"additionalProperties":false,"properties":{"x":{"type":"integer"},"y":{"type":"string"}}}`, weakened: true},
		{name: "producer makes x optional", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"type":"integer"}`, false, false), want: ChangeBroken, weakened: true},
		{name: "producer removes x from a closed object", oldOut: dataX(`{"type":"integer"}`, true, true), oldIn: needXInt,
			newOut: `{"type":"object","additionalProperties":false,"properties":{"y":{"type":"integer"}}}`, want: ChangeBroken, weakened: true,
			noWitnessMessage: "nodes.p.output.data.x"},
		{name: "producer changes x's type", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"type":"string"}`, true, false), want: ChangeBroken, weakened: true},
		{name: "producer widens a bound the consumer has", oldOut: xInt, oldIn: needX(`{"type":"integer","maximum":50}`),
			newOut: dataX(`{"type":"integer","minimum":0,"maximum":100}`, true, false), want: ChangeBroken, weakened: true},
		{name: "producer widens a bound the consumer does not have", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"type":"integer","minimum":0,"maximum":100}`, true, false), weakened: true},
		{name: "producer narrows a bound", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"type":"integer","minimum":0,"maximum":5}`, true, false)},
		{name: "consumer requires a field nobody produces", oldOut: xInt, oldIn: needXInt,
			newIn: `{"type":"object","required":["x","z"]}`, want: ChangeBroken},
		{name: "consumer stops requiring x", oldOut: xInt, oldIn: needXInt, newIn: `{"type":"object"}`},
		{name: "consumer narrows x's type", oldOut: xInt, oldIn: needXInt, newIn: needX(`{"type":"string"}`), want: ChangeBroken},
		{name: "consumer widens x's type", oldOut: xInt, oldIn: needXInt, newIn: needX(`{"type":"number"}`)},
		{name: "consumer adds a bound below the producer's", oldOut: xInt, oldIn: needXInt,
			newIn: needX(`{"type":"integer","maximum":5}`), want: ChangeBroken},
		{name: "consumer adds the producer's own bound", oldOut: xInt, oldIn: needXInt, newIn: needX(`{"type":"integer","maximum":10}`)},
		{name: "producer narrows into a bound that broke", oldOut: xInt, oldIn: needX(`{"type":"integer","maximum":5}`),
			newOut: dataX(`{"type":"integer","minimum":0,"maximum":5}`, true, false), want: ChangeFixed},
		{name: "consumer widens a bound that broke", oldOut: xInt, oldIn: needX(`{"type":"integer","maximum":5}`),
			newIn: needX(`{"type":"integer","maximum":50}`), want: ChangeFixed},
		{name: "producer adds the field a consumer required", oldOut: xInt, oldIn: `{"type":"object","required":["x","z"]}`,
			newOut:   `{"type":"object","required":["x","z"],"properties":{"x":{"type":"integer"},"z":{"type":"string"}}}`,
			input:    `    input: {x: "${{ nodes.p.output.data.x }}", z: "${{ nodes.p.output.data.z }}"}`,
			oldInput: `    input: {x: "${{ nodes.p.output.data.x }}"}`, want: ChangeFixed, weakened: true},
		{name: "a break that stays", oldOut: xInt, oldIn: needX(`{"type":"string"}`),
			newOut: dataX(`{"type":"integer","minimum":1,"maximum":10}`, true, false)},
		{name: "a new break beside one that stays", oldOut: xInt, oldIn: needX(`{"type":"string"}`),
			newIn: `{"type":"object","required":["x","z"],"properties":{"x":{"type":"string"}}}`, want: ChangeBroken},
		{name: "a break that stays, the consumer reworded", oldOut: xInt, oldIn: needX(`{"type":"string"}`),
			newIn: `{"type":"object","description":"what c takes","required":["x"],"properties":{"x":{"type":"string","title":"x"}}}`},
		{name: "producer adds an enum value the consumer takes", oldOut: dataX(`{"enum":["a","b"]}`, true, false),
			oldIn: needX(`{"enum":["a","b","c"]}`), newOut: dataX(`{"enum":["a","b","c"]}`, true, false), weakened: true},
		{name: "producer adds an enum value the consumer refuses", oldOut: dataX(`{"enum":["a","b"]}`, true, false),
			oldIn: needX(`{"enum":["a","b"]}`), newOut: dataX(`{"enum":["a","b","c"]}`, true, false), want: ChangeBroken, weakened: true},
		{name: "producer removes an enum value", oldOut: dataX(`{"enum":["a","b"]}`, true, false),
			oldIn: needX(`{"enum":["a","b"]}`), newOut: dataX(`{"enum":["a"]}`, true, false)},
		{name: "producer narrows a pattern", oldOut: dataX(`{"type":"string","pattern":"^[a-z]+$"}`, true, false),
			oldIn: needX(`{"type":"string","pattern":"^[a-z]+$"}`), newOut: dataX(`{"type":"string","pattern":"^[a-c]+$"}`, true, false)},
		{name: "producer widens a pattern", oldOut: dataX(`{"type":"string","pattern":"^[a-z]+$"}`, true, false),
			oldIn: needX(`{"type":"string","pattern":"^[a-z]+$"}`), newOut: dataX(`{"type":"string","pattern":"^[a-z0-9]+$"}`, true, false),
			want: ChangeBroken, weakened: true},
		{name: "producer drops minLength the consumer needs", oldOut: dataX(`{"type":"string","minLength":1}`, true, false),
			oldIn: needX(`{"type":"string","minLength":1}`), newOut: dataX(`{"type":"string"}`, true, false), want: ChangeBroken, weakened: true},
		{name: "consumer adds a keyword the checker does not model", oldOut: xInt, oldIn: needXInt,
			newIn: `{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}},"if":{"required":["x"]},"then":{"required":["x"]},"unevaluatedProperties":false}`,
			want:  ChangeUnknown},
		{name: "consumer drops a keyword the checker does not model", oldOut: xInt,
			oldIn: `{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}},"if":{"required":["x"]},"then":{"required":["x"]},"unevaluatedProperties":false}`,
			newIn: needXInt, want: ChangeFixed},
		{name: "unknown at both, the producer's contract changes", oldOut: xInt, oldIn: unknownIn,
			newOut: dataX(`{"type":"integer","minimum":0,"maximum":5}`, true, false), want: ChangeStillUnknown,
			why: "the output contract of p changed"},
		{name: "unknown at both, the consumer's contract changes", oldOut: xInt, oldIn: unknownIn,
			newIn: strings.Replace(unknownIn, `"type":"integer"`, `"type":"number"`, 1), want: ChangeStillUnknown,
			why: "the input contract of c changed"},
		{name: "unknown at both, the consumer's mapping changes", oldOut: xInt, oldIn: unknownIn,
			input: `    input: {x: "${{ nodes.p.output.data.x }}", y: 1}`, oldInput: mapX, want: ChangeStillUnknown,
			why: "node c is written differently"},
		{name: "unknown at both, the change is elsewhere", oldOut: xInt, oldIn: unknownIn, extra: "description: d\n"},
		{name: "producer changes an array's item type", oldOut: dataX(`{"type":"array","items":{"type":"string"}}`, true, false),
			oldIn: needX(`{"type":"array","items":{"type":"string"}}`), newOut: dataX(`{"type":"array","items":{"type":"integer"}}`, true, false),
			want: ChangeBroken, weakened: true},
		{name: "producer drops minItems the consumer needs", oldOut: dataX(`{"type":"array","minItems":1}`, true, false),
			oldIn: needX(`{"type":"array","minItems":1}`), newOut: dataX(`{"type":"array"}`, true, false), want: ChangeBroken, weakened: true},
		{name: "producer adds maxItems", oldOut: dataX(`{"type":"array"}`, true, false), oldIn: needX(`{"type":"array"}`),
			newOut: dataX(`{"type":"array","maxItems":3}`, true, false)},
		{name: "consumer wants unique items", oldOut: dataX(`{"type":"array","items":{"type":"integer"}}`, true, false),
			oldIn: needX(`{"type":"array"}`), newIn: needX(`{"type":"array","uniqueItems":true}`), want: ChangeBroken},
		{name: "producer makes a nested member optional", oldOut: dataX(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`, true, false),
			oldIn: needX(`{"type":"object","required":["a"]}`), newOut: dataX(`{"type":"object","properties":{"a":{"type":"string"}}}`, true, false),
			want: ChangeBroken, weakened: true},
		{name: "producer adds a nested optional member", oldOut: dataX(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`, true, false),
			oldIn: needX(`{"type":"object","required":["a"]}`), newOut: dataX(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, true, false)},
		{name: "consumer closes a nested object", oldOut: dataX(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`, true, false),
			oldIn: needX(`{"type":"object"}`), newIn: needX(`{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}`), want: ChangeBroken},
		{name: "producer becomes a union", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"anyOf":[{"type":"integer"},{"type":"string"}]}`, true, false), want: ChangeBroken, weakened: true},
		{name: "consumer accepts a union", oldOut: xInt, oldIn: needXInt, newIn: needX(`{"anyOf":[{"type":"integer"},{"type":"string"}]}`)},
		{name: "producer becomes nullable", oldOut: xInt, oldIn: needXInt,
			newOut: dataX(`{"type":["integer","null"]}`, true, false), want: ChangeBroken, weakened: true},
		{name: "consumer accepts null", oldOut: xInt, oldIn: needXInt, newIn: needX(`{"type":["integer","null"]}`)},
		{name: "a compatible consumer is added", oldOut: xInt, oldIn: needXInt, oldInput: "-"},
		{name: "an incompatible consumer is added", oldOut: xInt, oldIn: needX(`{"type":"string"}`), oldInput: "-", want: ChangeBroken},
		{name: "a broken consumer is removed", oldOut: xInt, oldIn: needX(`{"type":"string"}`), input: "-"},
		{name: "a new file with a broken edge", oldOut: xInt, oldIn: needX(`{"type":"string"}`), newFile: true, want: ChangeBroken},
		{name: "a new file whose edges fit", oldOut: xInt, oldIn: needXInt, newFile: true},
		{name: "producer's description changes", oldOut: xInt, oldIn: needXInt,
			newOut: `{"type":"object","description":"the answer","required":["x"],"properties":{"x":{"type":"integer","minimum":0,"maximum":10,"title":"x"}}}`},
		{name: "producer changes multipleOf", oldOut: dataX(`{"type":"integer","multipleOf":2}`, true, false),
			oldIn: needX(`{"type":"integer","multipleOf":2}`), newOut: dataX(`{"type":"integer","multipleOf":3}`, true, false),
			want: ChangeBroken, weakened: true},
		{name: "producer changes a const the consumer takes", oldOut: dataX(`{"const":1}`, true, false),
			oldIn: needX(`{"enum":[1,2]}`), newOut: dataX(`{"const":2}`, true, false), weakened: true},
		{name: "consumer maps another field", oldOut: `{"type":"object","required":["x","y"],"properties":{"x":{"type":"integer"},"y":{"type":"string"}}}`,
			oldIn: needXInt, input: `    input: {x: "${{ nodes.p.output.data.y }}"}`, oldInput: mapX, want: ChangeBroken},
		{name: "producer makes a whole-object member optional", oldOut: xInt, oldIn: needXInt, input: mapXWhole,
			newOut: dataX(`{"type":"integer"}`, false, false), want: ChangeBroken, weakened: true},
		{name: "producer adds a required member", oldOut: xInt, oldIn: needXInt,
			newOut: `{"type":"object","required":["x","y"],"properties":{"x":{"type":"integer","minimum":0,"maximum":10},"y":{"type":"string"}}}`},
		{name: "with: a config member's type breaks", oldOut: xInt, oldIn: `{}`,
			input: `    with: {count: "${{ nodes.p.output.data.x }}"}`, newOut: dataX(`{"type":"string"}`, true, false),
			want: ChangeBroken, weakened: true},
	}
	if len(tests) < 40 {
		t.Fatalf("the corpus has %d changes, want at least 40", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newOut, newIn := or(tt.newOut, tt.oldOut), or(tt.newIn, tt.oldIn)
			input := or(tt.input, mapX)
			oldInput := or(tt.oldInput, input)
			var old *dag.DAG
			if !tt.newFile {
				old = loadGate(t, gateDAG(consumerInput(oldInput), ""), tt.oldOut, tt.oldIn)
			}
			cur := loadGate(t, gateDAG(consumerInput(input), tt.extra), newOut, newIn)
			fs := Evolve(context.Background(), old, cur, EvolveOptions{File: "dags/t.yaml", Against: "main"})
			var changes []string
			weakened := false
			for _, f := range fs {
				if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(f.Fingerprint) {
					t.Errorf("%s: fingerprint %q", f, f.Fingerprint)
				}
				if f.Code == CodeWeakened {
					weakened = true
					if !f.HasWitness || f.Severity != SeverityWarning {
						t.Errorf("weakened without a witness, or not a warning: %s", f)
					}
					continue
				}
				changes = append(changes, f.Change)
				switch f.Change {
				case ChangeBroken:
					if f.Severity != SeverityError {
						t.Errorf("a break that is not an error: %s", f)
					}
					if tt.noWitnessMessage != "" {
						if !strings.Contains(f.Message, tt.noWitnessMessage) {
							t.Errorf("message %q, want it to name %s", f.Message, tt.noWitnessMessage)
						}
					} else if !f.HasWitness {
						t.Errorf("a break without a witness: %s", f)
					}
					if !strings.Contains(f.Message, "at main") && !strings.Contains(f.Message, "since main") {
						t.Errorf("message %q does not say how the edge was at main", f.Message)
					}
				case ChangeUnknown:
					if f.Severity != SeverityWarning || f.Code != CodeUnknown {
						t.Errorf("newly unknown: %s", f)
					}
				case ChangeFixed:
					if f.Severity != SeverityInfo {
						t.Errorf("fixed: %s", f)
					}
				case ChangeStillUnknown:
					if f.Severity != SeverityWarning || f.Code != CodeStillUnknown || !strings.Contains(f.Message, "(unknown at main too, and this change touches it: "+tt.why+"; the gate cannot tell whether it breaks)") {
						t.Errorf("still unknown: %s", f)
					}
					strict := []Finding{f}
					if Strict(strict); strict[0].Severity != SeverityError {
						t.Errorf("--strict leaves %s a %s", f.Code, strict[0].Severity)
					}
				}
			}
			changes = slices.Compact(changes)
			want := []string(nil)
			if tt.want != "" {
				want = []string{tt.want}
			}
			if !slices.Equal(changes, want) {
				t.Errorf("changes %q, want %q; findings:\n%s", changes, want, findingsText(fs))
			}
			if weakened != tt.weakened {
				t.Errorf("weakened %v, want %v; findings:\n%s", weakened, tt.weakened, findingsText(fs))
			}
		})
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// consumerInput is a case's input mapping for gateDAG ("-": no consumer).
func consumerInput(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func findingsText(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// TestEvolveFingerprint checks that a finding's fingerprint survives edits that do not touch
// it — lines moved, another node added, the schema's keys reordered and described, the message
// in another language — and differs between findings.
func TestEvolveFingerprint(t *testing.T) {
	ctx := context.Background()
	old := loadGate(t, gateDAG(mapX, ""), xInt, needXInt)
	breaks := dataX(`{"type":"string"}`, true, false)
	base := Evolve(ctx, old, loadGate(t, gateDAG(mapX, ""), breaks, needXInt), EvolveOptions{File: "dags/t.yaml", Against: "main"})
	if len(base) != 2 {
		t.Fatalf("findings:\n%s\nwant a break and a weakened guarantee", findingsText(base))
	}
	edits := []struct {
		name, extra, out, in string
		lang                 string
	}{
		{name: "lines moved", extra: "# a comment\n# another\ndescription: moved down\n", out: breaks, in: needXInt},
		{name: "another node", extra: "", out: breaks, in: needXInt},
		{name: "schemas reworded", out: `{"description":"d","properties":{"x":{"title":"x","type":"string"}},"type":"object","required":["x"]}`,
			in: `{"properties":{"x":{"type":"integer","description":"x"}},"required":["x"],"type":"object"}`},
		{name: "Japanese", out: breaks, in: needXInt, lang: "ja"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			src := gateDAG(mapX, e.extra)
			if e.name == "another node" {
				src += "  other:\n    type: const\n    with: {value: {status: pass, summary: s}}\n"
			}
			got := Evolve(ctx, old, loadGate(t, src, e.out, e.in), EvolveOptions{File: "dags/t.yaml", Against: "main", Lang: i18n.Lang(e.lang)})
			if len(got) != len(base) {
				t.Fatalf("findings:\n%s\nwant\n%s", findingsText(got), findingsText(base))
			}
			for i := range got {
				if got[i].Fingerprint != base[i].Fingerprint {
					t.Errorf("fingerprint %s, want %s, of\n%s", got[i].Fingerprint, base[i].Fingerprint, got[i])
				}
			}
			if e.extra != "" && got[0].Pos == base[0].Pos {
				t.Errorf("the edit did not move the finding (%v): the test proves nothing", got[0].Pos)
			}
		})
	}
	if base[0].Fingerprint == base[1].Fingerprint {
		t.Errorf("two findings share the fingerprint %s", base[0].Fingerprint)
	}
	other := Evolve(ctx, old, loadGate(t, gateDAG(mapX, ""), breaks, needXInt), EvolveOptions{File: "dags/other.yaml", Against: "main"})
	if other[0].Fingerprint == base[0].Fingerprint {
		t.Errorf("the same break in another file has the same fingerprint %s", base[0].Fingerprint)
	}
}

// TestEvolveAbsent: a change that makes a member optional breaks every node that reads it,
// one with no input contract too (it interpolates the member into its configuration): the
// gate names that consumer, with a value the new contract allows that lacks the member.
func TestEvolveAbsent(t *testing.T) {
	src := "version: 1\nname: t\nnodes:\n" +
		"  p:\n    type: const\n    with: {value: {status: pass, summary: s}}\n    contract: {output: out.json}\n" +
		"  c:\n    type: echo\n    with: {text: \"x=${{ nodes.p.output.data.x }}\"}\n"
	old := loadGate(t, src, dataX(`{"type":"string"}`, true, false), "{}")
	cur := loadGate(t, src, dataX(`{"type":"string"}`, false, false), "{}")
	var broken []Finding
	for _, f := range Evolve(context.Background(), old, cur, EvolveOptions{File: "t.yaml", Against: "main"}) {
		if f.Change == ChangeBroken {
			broken = append(broken, f)
		}
	}
	if len(broken) != 1 {
		t.Fatalf("breaks:\n%s\nwant one", findingsText(broken))
	}
	f := broken[0]
	if f.Code != CodeAbsent || f.Consumer != "c" || f.Pos.Line != 10 ||
		!strings.Contains(f.Message, "c reads nodes.p.output.data.x, but p may deliver an output without it") {
		t.Errorf("break %s, want SEAM-E311 at c's reference (line 10)", f)
	}
	if vs := cur.ByID["p"].Effective.Validate(f.Witness, "en"); len(vs) > 0 || !f.HasWitness {
		t.Errorf("witness %s: %v", f.WitnessJSON(), vs)
	}
	if _, ok := f.Witness.(map[string]any)["data"].(map[string]any)["x"]; ok {
		t.Errorf("witness %s holds data.x", f.WitnessJSON())
	}
}
