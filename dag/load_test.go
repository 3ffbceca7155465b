package dag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/nodes/nodestest"
)

func loadTest(t *testing.T, src string) (*DAG, Diagnostics) {
	t.Helper()
	d, err := LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), LoadOptions{Types: nodestest.LoadTypes()})
	if err == nil {
		return d, nil
	}
	var ds Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("LoadBytes: %v (%T), want Diagnostics", err, err)
	}
	return nil, ds
}

// brief renders a diagnostic as "line:col CODE message".
func brief(d Diagnostic) string {
	return fmt.Sprintf("%d:%d %s %s", d.Pos.Line, d.Pos.Col, d.Code, d.Message)
}

// head is the start every test file shares: lines 1-3, nodes on line 4.
const head = "version: 1\nname: t\nnodes:\n"

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every diagnostic, in order
	}{{
		name: "yaml syntax: unclosed flow mapping",
		src:  head + "  a:\n    type: const\n    with: {value: 1\n  b:\n    type: const\n",
		want: []string{`6:5 SEAM-E100 YAML syntax error: did not find expected ',' or '}'`},
	}, {
		name: "yaml syntax: bad indentation",
		src:  head + "  a:\n    type: const\n   with: {value: 1}\n",
		want: []string{`6:4 SEAM-E100 YAML syntax error: did not find expected key`},
	}, {
		name: "yaml syntax: tab indentation",
		src:  head + "  a:\n\ttype: const\n",
		want: []string{`5:1 SEAM-E100 YAML syntax error: found character that cannot start any token`},
	}, {
		name: "more than one document",
		src:  head + "  a: {type: const, with: {value: 1}}\n---\nname: u\n",
		want: []string{`5:1 SEAM-E100 more than one YAML document in the file`},
	}, {
		name: "alias inside its own anchor",
		src:  head + "  a: &x {type: const, with: {value: [*x]}}\n",
		want: []string{`4:38 SEAM-E100 alias *x refers to a value that contains it`},
	}, {
		name: "unknown key with did you mean",
		src:  head + "  a: {type: const, with: {value: 1}}\n  b:\n    type: const\n    neds: [a]\n    with: {value: 2}\n",
		want: []string{`7:5 SEAM-E101 unknown key "neds" in node "b"; did you mean "needs"?`},
	}, {
		name: "unknown key from another tool",
		src:  head + "  a: {type: const, with: {value: 1}}\n  b: {type: const, depends_on: [a], with: {value: 2}}\n",
		want: []string{`5:20 SEAM-E101 unknown key "depends_on" in node "b"; did you mean "needs"?`},
	}, {
		name: "unknown top-level key without a near one",
		src:  head + "  a: {type: const, with: {value: 1}}\nschedule: daily\n",
		want: []string{`5:1 SEAM-E101 unknown key "schedule" in the DAG file`},
	}, {
		name: "duplicate node id",
		src:  head + "  a: {type: const, with: {value: 1}}\n  b: {type: const, with: {value: 2}}\n  a: {type: const, with: {value: 3}}\n",
		want: []string{`6:3 SEAM-E102 duplicate node id "a" (first defined at line 4)`},
	}, {
		name: "duplicate key elsewhere",
		src:  head + "  a:\n    type: const\n    with: {value: 1}\n    type: echo\n",
		want: []string{`7:5 SEAM-E116 duplicate key "type" (first at line 5)`},
	}, {
		name: "duplicate key inside with",
		src:  head + "  a:\n    type: echo\n    with:\n      text: x\n      text: y\n",
		want: []string{`8:7 SEAM-E116 duplicate key "text" (first at line 7)`},
	}, {
		name: "bad node id",
		src:  head + "  fetchData: {type: const, with: {value: 1}}\n  Send Mail: {type: const, with: {value: 1}}\n  2nd: {type: const, with: {value: 1}}\n",
		want: []string{
			`4:3 SEAM-E103 bad node id "fetchData": ids are a lowercase letter followed by lowercase letters, digits, _ or -`,
			`5:3 SEAM-E103 bad node id "Send Mail": ids are a lowercase letter followed by lowercase letters, digits, _ or -`,
			`6:3 SEAM-E103 bad node id "2nd": ids are a lowercase letter followed by lowercase letters, digits, _ or -`,
		},
	}, {
		name: "unknown type",
		src:  head + "  a: {type: cosnt, with: {value: 1}}\n  b: {type: http}\n",
		want: []string{
			`4:13 SEAM-E104 unknown node type "cosnt"; did you mean "const"?`,
			`5:13 SEAM-E104 unknown node type "http"`,
		},
	}, {
		name: "unknown node in a reference and in needs",
		src: head + "  fetch: {type: const, with: {value: 1}}\n" +
			"  use:\n    type: const\n    needs: [fetch, nope]\n    with: {value: \"${{ nodes.fecth.output.data }}\"}\n",
		want: []string{
			`7:20 SEAM-E105 node "use" needs unknown node "nope"`,
			`8:24 SEAM-E105 reference to unknown node "fecth"; did you mean "fetch"?`,
		},
	}, {
		name: "unknown node in outputs",
		src:  head + "  a: {type: const, with: {value: 1}}\noutputs:\n  x: \"${{ nodes.b.output.summary }}\"\n",
		want: []string{`6:11 SEAM-E105 output "x": reference to unknown node "b"; did you mean "a"?`},
	}, {
		name: "unknown params field",
		src: "version: 1\nname: t\nparams:\n  type: object\n  properties:\n    workflowId: {type: string}\nnodes:\n" +
			"  a:\n    type: echo\n    with: {text: \"id ${{ params.workflowID }} ${{ params.limit }}\"}\n",
		want: []string{
			`10:26 SEAM-E106 unknown parameter params.workflowID; did you mean params.workflowId?`,
			`10:51 SEAM-E106 unknown parameter params.limit: params declares no such property`,
		},
	}, {
		name: "cycle",
		src: head + "  a:\n    type: echo\n    with: {text: \"${{ nodes.c.output.summary }}\"}\n" +
			"  b: {type: echo, needs: [a]}\n  c: {type: echo, with: {text: \"${{ nodes.b.output.summary }}\"}}\n  d: {type: echo, needs: [c]}\n",
		want: []string{`6:23 SEAM-E107 dependency cycle: a → b → c → a`},
	}, {
		name: "self reference",
		src:  head + "  a: {type: echo, with: {text: \"${{ nodes.a.output.summary }}\"}}\n",
		want: []string{`4:37 SEAM-E107 dependency cycle: a → a`},
	}, {
		name: "bad durations",
		src: "version: 1\nname: t\ndefaults:\n  timeout: 2 minutes\n  retry: {backoff: 10}\nnodes:\n" +
			"  a: {type: const, with: {value: 1}, timeout: -1s}\n",
		want: []string{
			`4:12 SEAM-E108 defaults.timeout: bad duration "2 minutes": time: unknown unit " minutes" in duration "2 minutes"`,
			`5:20 SEAM-E108 defaults.retry.backoff: bad duration "10": time: missing unit in duration "10"`,
			`7:47 SEAM-E108 node "a" timeout: bad duration "-1s": negative`,
		},
	}, {
		name: "expression does not compile",
		src:  head + "  a: {type: const, with: {value: 1}}\n  b:\n    type: const\n    with: {value: \"${{ nodes.a.output.x + }}\"}\n",
		want: []string{`7:42 SEAM-E109 expression "nodes.a.output.x +": Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	}, {
		name: "version",
		src:  "version: 2\nname: t\nnodes:\n  a: {type: const, with: {value: 1}}\n",
		want: []string{`1:10 SEAM-E115 unsupported version "2": this seam reads version 1`},
	}, {
		name: "missing name and nodes",
		src:  "version: 1\ndescription: nothing\n",
		want: []string{`1:1 SEAM-E113 missing required key "name"`, `1:1 SEAM-E113 missing required key "nodes"`},
	}, {
		name: "wrong shapes",
		src: "version: 1\nname: [t]\nconcurrency: 0\nnodes:\n" +
			"  a:\n    type: const\n    with: {value: 1}\n    run_if: allways\n    needs: a\n" +
			"    retry: {attempts: 0, factor: 0.5, on: [error, crash]}\n    on_invalid: {repair: -1}\n" +
			"    max_items: 5\n",
		want: []string{
			`2:7 SEAM-E113 name must be a string, not a list`,
			`3:14 SEAM-E113 concurrency must be at least 1, got 0`,
			`8:13 SEAM-E113 node "a" run_if: unknown value "allways"; did you mean "always"?`,
			`9:12 SEAM-E113 node "a": needs must be a list of node ids, not a string`,
			`10:23 SEAM-E113 node "a" retry.attempts must be at least 1, got 0`,
			`10:34 SEAM-E113 node "a" retry.factor must be at least 1, got 0.5`,
			`10:51 SEAM-E113 node "a" retry.on must be one of error, timeout, contract, not "crash"`,
			`11:26 SEAM-E113 node "a" on_invalid.repair must be at least 0, got -1`,
			`12:5 SEAM-E113 node "a": max_items applies to foreach, and the node has none`,
		},
	}, {
		name: "a retry storm",
		src:  head + "  a:\n    type: echo\n    retry: {attempts: 1000}\n",
		want: []string{`6:23 SEAM-E113 node "a" retry.attempts must be at most 100, got 1000`},
	}, {
		name: "a repair storm",
		src:  head + "  a:\n    type: echo\n    on_invalid: {repair: 21}\n",
		want: []string{`6:26 SEAM-E113 node "a" on_invalid.repair must be at most 20, got 21`},
	}, {
		name: "item outside foreach",
		src: head + "  a: {type: echo, with: {text: \"${{ item }}\"}}\n" +
			"  b:\n    type: echo\n    foreach: [1, 2]\n    when: \"${{ index > 0 }}\"\n    with: {text: \"${{ item }}\"}\n" +
			"outputs:\n  x: \"${{ item.name }}\"\n",
		want: []string{
			`4:37 SEAM-E113 node "a": item is only defined in a node with foreach`,
			`8:16 SEAM-E113 node "b": index is not defined in when or foreach, which are evaluated once for the node`,
			`11:11 SEAM-E113 output "x": item is only defined in a node with foreach`,
		},
	}, {
		name: "node without type",
		src:  head + "  a:\n  b: {with: {value: 1}}\n",
		want: []string{`4:3 SEAM-E113 node "a" has no type`, `5:3 SEAM-E113 node "b" has no type`},
	}, {
		name: "no nodes",
		src:  "version: 1\nname: t\nnodes: {}\n",
		want: []string{`3:8 SEAM-E113 nodes must be a mapping of node ids to nodes, with at least one node`},
	}, {
		name: "config schema violations",
		src:  head + "  a:\n    type: echo\n    with:\n      txt: hi\n      count: many\n  b: {type: const}\n",
		want: []string{
			`7:7 SEAM-E114 node "a": with: field 'txt' is not allowed; did you mean "text"?`,
			`8:14 SEAM-E114 node "a": with: field 'count' must be an integer, got string`,
			`9:3 SEAM-E114 node "b": with: missing required field: value`,
		},
	}, {
		name: "config check with offset in a plain scalar",
		src:  head + "  a:\n    type: jq\n    with: {program: .a | BAD}\n",
		want: []string{`6:26 SEAM-E114 node "a": with/program: syntax error: unexpected token BAD`},
	}, {
		name: "config check with offset in a quoted scalar",
		src:  head + "  a:\n    type: jq\n    with: {program: \".a | BAD\"}\n",
		want: []string{`6:27 SEAM-E114 node "a": with/program: syntax error: unexpected token BAD`},
	}, {
		name: "config check with offset in a block scalar",
		src:  head + "  a:\n    type: jq\n    with:\n      program: |\n        .a\n        | map(.b)\n        |  BAD\n",
		want: []string{`10:12 SEAM-E114 node "a": with/program: syntax error: unexpected token BAD`},
	}, {
		name: "empty file",
		src:  "# nothing yet\n",
		want: []string{`1:1 SEAM-E113 the file is empty`},
	}, {
		name: "not a mapping",
		src:  "- a\n- b\n",
		want: []string{`1:1 SEAM-E113 a DAG file is a mapping of version, name and nodes, not a list`},
	}, {
		name: "merge key of a scalar",
		src:  head + "  a: {type: echo, with: {text: hi}}\n  b:\n    <<: 5\n",
		want: []string{`6:9 SEAM-E113 a merge key (<<) takes a mapping or a list of mappings, not a number`},
	}, {
		name: "merge key list with a list",
		src:  head + "  a: &a {type: echo, with: {text: hi}}\n  b:\n    <<: [*a, [x]]\n",
		want: []string{`6:14 SEAM-E113 a merge key (<<) takes a mapping or a list of mappings, not a list`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, tt.src)
			var got []string
			for _, d := range ds {
				got = append(got, brief(d))
				if d.Pos.File != "testdata/t.yaml" {
					t.Errorf("%s: file %q, want testdata/t.yaml", brief(d), d.Pos.File)
				}
				if d.Hint == "" {
					t.Errorf("%s: no fix hint", brief(d))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLoadHints checks the fix hints users act on.
func TestLoadHints(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"duration", head + "  a: {type: const, with: {value: 1}, timeout: 2 minutes}\n", "use Go duration syntax such as 30s, 2m or 1h30m"},
		{"bad id", head + "  fetchData: {type: const, with: {value: 1}}\n", `rename it to "fetch_data"`},
		{"unknown key", head + "  a: {typ: const}\n", `rename it to "type"`},
		{"cycle", head + "  a: {type: echo, needs: [b]}\n  b: {type: echo, needs: [a]}\n",
			`node "a" depends on "b" here; remove this reference or needs entry, or pass the value another way`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, tt.src)
			for _, d := range ds {
				if d.Hint == tt.want {
					return
				}
			}
			t.Errorf("no hint %q in:\n%v", tt.want, ds)
		})
	}
}

func TestLoadDiagnosticString(t *testing.T) {
	_, ds := loadTest(t, head+"  a: {type: const, with: {value: 1}, timeout: 2 minutes}\n")
	want := "testdata/t.yaml:4:47: error SEAM-E108 node \"a\" timeout: bad duration \"2 minutes\": time: unknown unit \" minutes\" in duration \"2 minutes\"\n" +
		"  fix: use Go duration syntax such as 30s, 2m or 1h30m"
	if ds.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", ds.Error(), want)
	}
}

func TestLoadSchemas(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "schema file missing",
		src:  head + "  a:\n    type: const\n    with: {value: 1}\n    contract: {output: schemas/nope.json}\n",
		want: []string{`7:24 SEAM-E111 node "a" contract.output: schema file "schemas/nope.json" not found`},
	}, {
		name: "remote schema path",
		src:  head + "  a:\n    type: const\n    with: {value: 1}\n    contract: {input: \"https://example.com/in.json\"}\n",
		want: []string{`7:23 SEAM-E112 node "a" contract.input: schema "https://example.com/in.json" refused: seam never fetches schemas over the network`},
	}, {
		name: "remote $ref inline",
		src: head + "  a:\n    type: const\n    with: {value: 1}\n    contract:\n      output:\n        type: object\n" +
			"        properties:\n          owner: {$ref: \"https://example.com/person.json\"}\n",
		want: []string{`11:25 SEAM-E112 node "a" contract.output: at /properties/owner/$ref: remote $ref refused: https://example.com/person.json; seam never fetches schemas over the network`},
	}, {
		name: "remote $ref in a schema file",
		src:  head + "  a:\n    type: const\n    with: {value: 1}\n    contract: {output: schemas/remote.json}\n",
		want: []string{`7:24 SEAM-E112 node "a" contract.output: schemas/remote.json at /properties/owner/$ref: remote $ref refused: https://example.com/person.json; seam never fetches schemas over the network`},
	}, {
		name: "invalid inline schema",
		src: head + "  a:\n    type: const\n    with: {value: 1}\n    contract:\n      output:\n        type: object\n" +
			"        properties:\n          score: {type: numbr}\n",
		want: []string{`11:25 SEAM-E110 node "a" contract.output: invalid JSON Schema: at /properties/score/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
	}, {
		name: "invalid schema file",
		src:  head + "  a:\n    type: const\n    with: {value: 1}\n    contract: {output: schemas/invalid.json}\n",
		want: []string{`7:24 SEAM-E110 node "a" contract.output: invalid JSON Schema: schemas/invalid.json at /required: got string, want array`},
	}, {
		name: "params not an object",
		src:  "version: 1\nname: t\nparams: {type: string}\nnodes:\n  a: {type: const, with: {value: 1}}\n",
		want: []string{`3:16 SEAM-E113 params must describe an object (type: object), not type string`},
	}, {
		name: "schema neither path nor mapping",
		src:  head + "  a: {type: const, with: {value: 1}, contract: {output: [a]}}\n",
		want: []string{`4:57 SEAM-E113 node "a" contract.output must be a schema file path or an inline schema, not a list`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, tt.src)
			var got []string
			for _, d := range ds {
				got = append(got, brief(d))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLoadModel(t *testing.T) {
	src := `version: 1
name: model
description: every field
params:
  type: object
  properties:
    limit: {type: integer}
defaults:
  timeout: 2m
  retry: {attempts: 3, backoff: 2s, max_backoff: 30s}
concurrency: 4
nodes:
  report:
    type: echo
    needs: [gate]
    input:
      rows: "${{ nodes.rows.output.data.items }}"
      first: "${{ nodes.list.output.data.text }}"
    with: {text: "${{ nodes.list.output.summary }}"}
    run_if: always
    retry: {attempts: 5, on: [contract]}
    timeout: 1h30m
    on_invalid: {repair: 2}
    contract:
      input: schemas/input.json
      output:
        type: object
        required: [data]
        properties:
          data: {type: object, required: [rows]}
  list:
    type: echo
    with: {text: "up to ${{ params.limit }}"}
  rows:
    type: echo
    foreach: "${{ nodes.list.output.data.items }}"
    concurrency: 2
    max_items: 50
    when: "${{ nodes.list.output.status == 'pass' }}"
    with: {text: "${{ item.name }} at ${{ index }}"}
  gate:
    type: const
    with: {value: {status: pass, summary: open}}
outputs:
  rows: "${{ nodes.rows.output.data.items }}"
  note: fixed
`
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	if d.Name != "model" || d.Description != "every field" || d.Version != 1 || d.Concurrency != 4 {
		t.Errorf("header: %q %q %d %d", d.Name, d.Description, d.Version, d.Concurrency)
	}
	if d.Dir != "testdata" || d.File != "testdata/t.yaml" {
		t.Errorf("file %q dir %q", d.File, d.Dir)
	}
	if d.Params == nil {
		t.Fatal("no params schema")
	}
	wantDefaults := Defaults{Timeout: 2 * time.Minute, Retry: Retry{Attempts: 3, Backoff: 2 * time.Second, Factor: 2, MaxBackoff: 30 * time.Second, On: []string{"error", "timeout"}}}
	if !reflect.DeepEqual(d.Defaults, wantDefaults) {
		t.Errorf("defaults %+v, want %+v", d.Defaults, wantDefaults)
	}

	report := d.ByID["report"]
	// Deps in the order the file first names them: needs (line 15) before input (line 17).
	if want := []string{"gate", "rows", "list"}; !reflect.DeepEqual(report.Deps, want) {
		t.Errorf("report deps %v, want %v", report.Deps, want)
	}
	if report.Pos != (Pos{File: "testdata/t.yaml", Line: 13, Col: 3}) {
		t.Errorf("report pos %+v", report.Pos)
	}
	wantRetry := Retry{Attempts: 5, Backoff: 2 * time.Second, Factor: 2, MaxBackoff: 30 * time.Second, On: []string{"contract"}}
	if !reflect.DeepEqual(report.Retry, wantRetry) {
		t.Errorf("report retry %+v, want %+v (merged over defaults)", report.Retry, wantRetry)
	}
	if report.Timeout != 90*time.Minute || report.Repair != 2 || report.RunIf != RunIfAlways {
		t.Errorf("report timeout %v repair %d run_if %q", report.Timeout, report.Repair, report.RunIf)
	}
	if report.InputContract == nil || report.OutputContract == nil || report.Input == nil || report.Config == nil {
		t.Errorf("report contracts, input or config missing")
	}

	list := d.ByID["list"]
	if !reflect.DeepEqual(list.Retry, d.Defaults.Retry) || list.Timeout != 2*time.Minute || list.RunIf != RunIfSuccess {
		t.Errorf("list does not take the defaults: %+v %v %q", list.Retry, list.Timeout, list.RunIf)
	}
	if list.Input != nil || list.When != nil || list.Foreach != nil || list.MaxItems != 1000 {
		t.Errorf("list has input, when or foreach, or max_items %d", list.MaxItems)
	}

	rows := d.ByID["rows"]
	if rows.Foreach == nil || rows.ForeachConcurrency != 2 || rows.MaxItems != 50 || rows.When == nil {
		t.Errorf("rows foreach %v concurrency %d max_items %d when %v", rows.Foreach, rows.ForeachConcurrency, rows.MaxItems, rows.When)
	}
	if want := []string{"list"}; !reflect.DeepEqual(rows.Deps, want) {
		t.Errorf("rows deps %v, want %v", rows.Deps, want)
	}

	var order []string
	for _, n := range d.Order {
		order = append(order, n.ID)
	}
	// Producers first; among ready nodes, file order.
	if want := []string{"list", "rows", "gate", "report"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	var ids []string
	for _, n := range d.Nodes {
		ids = append(ids, n.ID)
	}
	if want := []string{"report", "list", "rows", "gate"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("nodes %v, want file order %v", ids, want)
	}

	if len(d.Outputs) != 2 || d.Outputs[0].Name != "rows" || d.Outputs[1].Name != "note" {
		t.Fatalf("outputs %+v", d.Outputs)
	}
	if v, ok := d.Outputs[1].Value.Literal(); !ok || v != "fixed" {
		t.Errorf("output note = %v, %v", v, ok)
	}
	if d.Outputs[0].Pos.Line != 45 {
		t.Errorf("output rows at line %d, want 45", d.Outputs[0].Pos.Line)
	}
}

// TestLoadEffective checks what a node's output is validated against: the standard contract,
// the type's output schema and the declared contract, all at once.
func TestLoadEffective(t *testing.T) {
	d, ds := loadTest(t, head+`  plain: {type: const, with: {value: 1}}
  typed: {type: echo}
  declared:
    type: echo
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [rows]}
`)
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	tests := []struct {
		node, output string
		valid        bool
	}{
		{"plain", `{"status":"pass","summary":"ok"}`, true},
		{"plain", `{"status":"maybe","summary":"ok"}`, false},
		{"plain", `{"summary":"ok"}`, false},
		{"typed", `{"status":"pass","summary":"ok"}`, false},
		{"typed", `{"status":"pass","summary":"ok","data":{"text":"x"}}`, true},
		{"declared", `{"status":"pass","summary":"ok","data":{"text":"x"}}`, false},
		{"declared", `{"status":"pass","summary":"ok","data":{"text":"x","rows":[]}}`, true},
		{"declared", `{"status":"warn","summary":"","data":{"text":"x","rows":[]}}`, false},
	}
	for _, tt := range tests {
		v, err := contract.ParseJSON([]byte(tt.output))
		if err != nil {
			t.Fatal(err)
		}
		vs := d.ByID[tt.node].Effective.Validate(v, "en")
		if (len(vs) == 0) != tt.valid {
			t.Errorf("%s: %s: violations %v, want valid=%v", tt.node, tt.output, vs, tt.valid)
		}
	}
}

func TestLoadSchemaFile(t *testing.T) {
	d, ds := loadTest(t, head+"  a:\n    type: const\n    with: {value: 1}\n    contract: {input: schemas/input.json, output: ./schemas/input.json}\n")
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	a := d.ByID["a"]
	for _, tt := range []struct {
		in    string
		valid bool
	}{{`{"rows": []}`, true}, {`{"rows": 1}`, false}, {`{}`, false}} {
		v, _ := contract.ParseJSON([]byte(tt.in))
		if vs := a.InputContract.Validate(v, "en"); (len(vs) == 0) != tt.valid {
			t.Errorf("input %s: %v, want valid=%v", tt.in, vs, tt.valid)
		}
	}
}

func TestLoadUnreadable(t *testing.T) {
	_, err := Load(context.Background(), filepath.Join(t.TempDir(), "missing.yaml"), LoadOptions{Types: nodestest.LoadTypes()})
	var ds Diagnostics
	if err == nil || errors.As(err, &ds) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want a plain not-exist error", err)
	}
}

func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadBytes(ctx, "t.yaml", []byte(head+"  a: {type: const, with: {value: 1}}\n"), LoadOptions{Types: nodestest.LoadTypes()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("LoadBytes with a canceled context: %v", err)
	}
}

func TestLoadAliases(t *testing.T) {
	d, ds := loadTest(t, head+"  a: {type: echo, with: &w {text: hi}}\n  b: {type: echo, with: *w}\n")
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	if v, ok := d.ByID["b"].With.Literal(); !ok || !reflect.DeepEqual(v, map[string]any{"text": "hi"}) {
		t.Errorf("b.with = %v", v)
	}

	// Merge keys: the mapping's own keys win, then the first of a list.
	d, ds = loadTest(t, "x-quick: &q {timeout: 9s, when: '${{ true }}'}\n"+head+"  a: &a {type: echo, with: {text: hi}, timeout: 5s}\n"+
		"  b:\n    <<: [*a, *q]\n    with: {text: bye}\n  c: {<<: *a}\n")
	if ds != nil {
		t.Fatalf("merge keys: diagnostics:\n%v", ds)
	}
	for id, want := range map[string]string{"b": "bye", "c": "hi"} {
		n := d.ByID[id]
		if n == nil || n.Type.Name() != "echo" {
			t.Fatalf("node %s = %+v, want an echo node", id, n)
		}
		if v, _ := n.With.Literal(); !reflect.DeepEqual(v, map[string]any{"text": want}) {
			t.Errorf("%s.with = %v, want text %s", id, v, want)
		}
	}
	if got := d.ByID["b"].Timeout; got != 5*time.Second {
		t.Errorf("b.timeout = %v, want 5s from the first merged mapping", got)
	}

	// Nine levels of ten aliases each would expand to a billion values.
	var b strings.Builder
	b.WriteString("x0: &x0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*x%d", i-1)
		}
		b.WriteString("]\n")
	}
	_, ds = loadTest(t, b.String())
	if len(ds) != 1 || ds[0].Code != CodeYAML || !strings.Contains(ds[0].Message, "aliases expand the file beyond") {
		t.Errorf("alias bomb: %v", ds)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		word, want string
	}{
		{"neds", "needs"},
		{"typ", "type"},
		{"tmeout", "timeout"},
		{"wiht", "with"},
		{"depends", "needs"},
		{"preconditions", "when"},
		{"continueOn", "run_if"},
		{"retryPolicy", "retry"},
		{"command", "with"},
		{"x", ""},
		{"description", ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.word, nodeKeys, nodeKeyAliases); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestSuggestID(t *testing.T) {
	tests := map[string]string{
		"fetchData":  "fetch_data",
		"Fetch Data": "fetch_data",
		"2nd":        "n2nd",
		"a.b":        "a_b",
		"_x":         "x",
		"HTTPCall":   "httpcall",
		"ünïcode":    "n_code",
	}
	for in, want := range tests {
		got := suggestID(in)
		if got != want {
			t.Errorf("suggestID(%q) = %q, want %q", in, got, want)
		}
		if !validID(got) {
			t.Errorf("suggestID(%q) = %q, which is not a valid id", in, got)
		}
	}
}
