package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"os"
	"path/filepath"

	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// classifier is node classify (an exec that would write a file), whose kind is an enum.
const classifier = `version: 1
name: sim
nodes:
  classify:
    type: exec
    with: {command: [sh, -c, "touch ran; echo '{\"status\":\"pass\",\"summary\":\"s\",\"data\":{\"kind\":\"bug\"}}'"]}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [kind]
            properties:
              kind: {enum: [bug, feature]}
              items: {type: array, items: {type: string}}
`

// outcome is a branch as the tests compare it: the paths of each outcome, and the proofs.
func outcome(b Branch) string {
	s := fmt.Sprintf("%s %s true%v false%v", b.Kind, b.Node, b.True, b.False)
	if b.NeverTrue != nil {
		s += fmt.Sprintf(" never-true(enum %v)", b.NeverTrue.Enum)
	}
	if b.NeverFalse != nil {
		s += fmt.Sprintf(" never-false(enum %v)", b.NeverFalse.Enum)
	}
	return s
}

// TestSimulate: every combination of outcomes the contracts allow is one path; side
// effects never happen; the report says per when and foreach which paths took each outcome,
// and which outcomes lint proves impossible.
func TestSimulate(t *testing.T) {
	tests := []struct {
		name     string
		nodes    string // after classifier
		branches []string
		paths    []string // per path: run | simulated | skipped | failed
	}{
		{"enum-driven when", `  file:
    type: exec
    when: "${{ nodes.classify.output.data.kind == 'bug' }}"
    with: {command: [touch, ran]}
    contract: {output: {type: object}}
`, []string{"when file true[1] false[2]"},
			[]string{"[] | [classify file] | [] | []", "[] | [classify] | [file] | []"}},
		{"when outside the enum", `  file:
    type: exec
    when: "${{ nodes.classify.output.data.kind == 'question' }}"
    with: {command: [touch, ran]}
`, []string{"when file true[] false[1] never-true(enum [bug feature])"},
			[]string{"[] | [classify] | [file] | []"}},
		{"foreach over an optional list", `  each:
    type: transform
    foreach: "${{ nodes.classify.output.data.items }}"
    input: "${{ item }}"
    with: {program: '{status: "pass", summary: "item"}'}
`, []string{"foreach each true[1] false[2]"},
			[]string{"[each] | [classify] | [] | []", "[each] | [classify] | [] | []"}},
		{"when reading a status", `  report:
    type: const
    when: "${{ nodes.classify.status == 'failed' }}"
    with: {value: {status: pass, summary: reported}}
`, []string{"when report true[1] false[2]", "status classify true[1] false[2]"},
			[]string{"[report] | [] | [] | [classify]", "[] | [classify] | [report] | []"}},
		{"two whens on one value", `  a:
    type: const
    when: "${{ nodes.classify.output.data.kind == 'bug' }}"
    with: {value: {status: pass, summary: a}}
  b:
    type: const
    when: "${{ nodes.classify.output.data.kind == 'feature' }}"
    with: {value: {status: pass, summary: b}}
`, []string{"when a true[2] false[1]", "when b true[1] false[2]"},
			[]string{"[b] | [classify] | [a] | []", "[a] | [classify] | [b] | []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := load(t, classifier+tt.nodes, nil)
			rep, err := Simulate(context.Background(), d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(d.File), "ran")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an exec node ran: %v", err)
			}
			var got []string
			for _, b := range rep.Branches {
				got = append(got, outcome(b))
			}
			if !slices.Equal(got, tt.branches) {
				t.Errorf("branches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.branches, "\n"))
			}
			var paths []string
			for _, p := range rep.Paths {
				paths = append(paths, fmt.Sprintf("%v | %v | %v | %v", p.Run, p.Simulated, p.Skipped, p.Failed))
			}
			if !slices.Equal(paths, tt.paths) {
				t.Errorf("paths\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(tt.paths, "\n"))
			}
			if rep.Bound != "" {
				t.Errorf("bound reached: %s", rep.Bound)
			}
		})
	}
}

// TestSimulateBound: past MaxCombinations combinations the simulation stops and says so.
func TestSimulateBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nname: many\nnodes:\n  p:\n    type: exec\n    with: {command: [\"true\"]}\n    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [n], properties: {n: {type: integer}}}}}}\n")
	for i := range 8 {
		fmt.Fprintf(&b, "  w%d:\n    type: const\n    when: \"${{ nodes.p.output.data.n > %d }}\"\n    with: {value: {status: pass, summary: s}}\n", i, i)
	}
	rep, err := Simulate(context.Background(), load(t, b.String(), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "128 combinations of outcomes tried, of 256"; rep.Bound != want {
		t.Errorf("bound %q, want %q", rep.Bound, want)
	}
	if rep.Tried != MaxCombinations {
		t.Errorf("tried %d, want %d", rep.Tried, MaxCombinations)
	}
	// n > 0 … n > 7 on one integer: nine distinct paths, from n ≤ 0 to n > 7.
	if len(rep.Paths) != 9 {
		t.Errorf("%d paths, want 9", len(rep.Paths))
	}
}

// TestSimulateStubs: a stub pins a node's output; one that breaks the contract, or names no
// node, is refused with what is wrong.
func TestSimulateStubs(t *testing.T) {
	src := classifier + "  file:\n    type: exec\n    when: \"${{ nodes.classify.output.data.kind == 'bug' }}\"\n    with: {command: [touch, ran]}\n"
	tests := []struct {
		name  string
		stubs map[string]any
		lang  i18n.Lang
		err   string
		paths int
	}{
		{"pinned", map[string]any{"classify": map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"kind": "feature"}}}, "en", "", 1},
		{"breaks the contract", map[string]any{"classify": map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"kind": "question"}}}, "en",
			"--stub classify: the output breaks the node's contract at /data/kind: field 'data.kind' must be one of: bug, feature", 0},
		{"breaks the contract in Japanese", map[string]any{"classify": map[string]any{"status": "pass", "summary": "s"}}, "ja",
			"--stub classify：出力がノードの契約に違反しています（/data）：必須フィールドがありません：data", 0},
		{"no such node", map[string]any{"nope": map[string]any{}}, "en", "--stub nope: the DAG has no node nope", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Simulate(context.Background(), load(t, src, nil), Options{Stubs: tt.stubs, Lang: tt.lang})
			if tt.err != "" {
				var se *StubError
				if !errors.As(err, &se) || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Paths) != tt.paths || rep.Paths[0].Skipped[0] != "file" {
				t.Errorf("paths %+v", rep.Paths)
			}
		})
	}
}

// TestSimulateUnknown: a contract no value can be generated for marks its node unknown,
// with the reason; the node fails in every path and the simulation goes on.
func TestSimulateUnknown(t *testing.T) {
	src := `version: 1
name: unknown
nodes:
  odd:
    type: exec
    with: {command: ["true"]}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [id], properties: {id: {type: string, pattern: "^(?=a)b$"}}}}}}
  never:
    type: exec
    with: {command: ["true"]}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [n], properties: {n: {type: integer, minimum: 2, maximum: 1}}}}}}
  after:
    type: const
    needs: [odd]
    with: {value: {status: pass, summary: s}}
`
	rep, err := Simulate(context.Background(), load(t, src, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep.Unknown)
	want := `[{"node":"never","empty":true,"reason":"its contract accepts no value"},{"node":"odd","empty":false,"reason":"a value was built but did not verify: field 'data.id' must match pattern ^(?=a)b$"}]`
	if string(b) != want {
		t.Errorf("unknown\n%s\nwant\n%s", b, want)
	}
	p := rep.Paths[0]
	if !slices.Equal(p.Failed, []string{"odd", "never"}) || !slices.Equal(p.Skipped, []string{"after"}) {
		t.Errorf("path %+v", p)
	}
	if r := p.Reasons["odd"]; !strings.Contains(r, "simulated: no output could be generated from the contract: a value was built but did not verify") {
		t.Errorf("reason %q", r)
	}
}

// TestSimulateNoSecrets: a variable the DAG reads through env is a placeholder in a
// simulation, never the environment's value.
func TestSimulateNoSecrets(t *testing.T) {
	t.Setenv("SIM_TOKEN", "real-secret-value")
	src := "version: 1\nname: env\nenv: [SIM_TOKEN]\nnodes:\n  c:\n    type: const\n    with: {value: {status: pass, summary: \"token ${{ env.SIM_TOKEN }}\"}}\n"
	rep, err := Simulate(context.Background(), load(t, src, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), "real-secret-value") {
		t.Errorf("the report holds the secret: %s", b)
	}
	if rep.Paths[0].Status != "success" {
		t.Errorf("status %s: %+v", rep.Paths[0].Status, rep.Paths[0])
	}
}

// TestSimulateSubDAG: a `dag` node simulates its sub-DAG inside: its exec nodes do not run.
func TestSimulateSubDAG(t *testing.T) {
	sub := "version: 1\nname: inner\nparams: {type: object, required: [n], properties: {n: {type: integer}}}\nnodes:\n  touch:\n    type: exec\n    with: {command: [touch, ran]}\noutputs:\n  n: \"${{ params.n }}\"\n"
	src := "version: 1\nname: outer\nnodes:\n  run:\n    type: dag\n    input: {n: 3}\n    with: {file: inner.yaml}\noutputs:\n  n: \"${{ nodes.run.output.data.n }}\"\n"
	d := load(t, src, map[string]string{"inner.yaml": sub})
	rep, err := Simulate(context.Background(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d.File), "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sub-DAG's exec node ran: %v", err)
	}
	p := rep.Paths[0]
	if p.Status != "success" || fmt.Sprint(p.Outputs["n"]) != "3" {
		t.Errorf("path %+v", p)
	}
}

// TestSimulateParams: params not given are generated, and varied where a when reads them.
func TestSimulateParams(t *testing.T) {
	src := "version: 1\nname: p\nparams: {type: object, required: [mode], properties: {mode: {enum: [fast, slow]}}}\nnodes:\n  slow:\n    type: const\n    when: \"${{ params.mode == 'slow' }}\"\n    with: {value: {status: pass, summary: s}}\n"
	rep, err := Simulate(context.Background(), load(t, src, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcome(rep.Branches[0]); got != "when slow true[1] false[2]" {
		t.Errorf("branch %s", got)
	}
	rep, err = Simulate(context.Background(), load(t, src, nil), Options{Params: map[string]any{"mode": "fast"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcome(rep.Branches[0]); got != "when slow true[] false[1]" {
		t.Errorf("with params given: branch %s", got)
	}
}

// TestSimulateExamples: every example DAG simulates.
func TestSimulateExamples(t *testing.T) {
	files, err := filepath.Glob("../dags/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	w := open(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := w.Load(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Simulate(context.Background(), d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Paths) == 0 || rep.Bound != "" || len(rep.Unknown) > 0 {
				t.Errorf("paths %d, bound %q, unknown %v", len(rep.Paths), rep.Bound, rep.Unknown)
			}
		})
	}
}

// TestSimulateMendsMember: an outcome the plain value misses is met by replacing the member
// its when reads, the rest of the value kept (not by a search of the whole contract anew,
// which a webhook's makes costly): the path where p's b is "y" has the plain output's a too.
func TestSimulateMendsMember(t *testing.T) {
	src := `version: 1
name: m
nodes:
  p:
    type: exec
    with: {command: [./p.sh]}
    contract:
      output:
        type: object
        properties:
          a: {type: string}
          b: {enum: [x, y]}
        anyOf: [{required: [a]}, {required: [b]}]
  c:
    type: const
    when: "${{ nodes.p.output.b == 'y' }}"
    with: {value: {status: pass, summary: s}}
`
	rep, err := Simulate(context.Background(), load(t, src, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Paths {
		b, err := json.Marshal(p.Generated["p"])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s", p.Outcomes["when:c"], b))
	}
	if want := []string{`true {"a":"","b":"y","status":"pass","summary":"a"}`, `false {"a":"","b":"x","status":"pass","summary":"a"}`}; !slices.Equal(got, want) {
		t.Errorf("paths\n got %q\nwant %q", got, want)
	}
}
