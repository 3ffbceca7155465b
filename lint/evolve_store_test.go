package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

func TestStored(t *testing.T) {
	outputs := [][]byte{
		[]byte(`{"status":"pass","summary":"s","data":{"x":"secret-value"}}`),
		[]byte(`{"status":"pass","summary":"s","data":{"x":3}}`),
		[]byte(`{"status":"pass","summary":"s","data":{"x":["secret",1]}}`),
	}
	const byID = `{"type":"object","required":["p"],"properties":{"p":{"type":"object","required":["data"],"properties":{"data":` + needXInt + `}}}}`
	cases := []struct {
		name, input, in string
		want            []string // messages, in order
	}{
		{"plain reference", mapXWhole, needXInt, []string{
			`2 of 3 stored outputs of node p fail its new output contract: at /data/x: field 'data.x' must be an integer, got string; e.g. value "***" (a string of 12 characters)`,
			`2 of 3 stored outputs of node p fail the input contract of c: at /x: field 'x' must be an integer, got string; e.g. value "***" (a string of 12 characters)`}},
		{"no input, one dependency", "    needs: [p]", byID, []string{
			`2 of 3 stored outputs of node p fail its new output contract: at /data/x: field 'data.x' must be an integer, got string; e.g. value "***" (a string of 12 characters)`,
			`2 of 3 stored outputs of node p fail the input contract of c: at /p/data/x: field 'p.data.x' must be an integer, got string; e.g. value "***" (a string of 12 characters)`}},
		{"an object of references: skipped", mapX, needXInt, []string{
			`2 of 3 stored outputs of node p fail its new output contract: at /data/x: field 'data.x' must be an integer, got string; e.g. value "***" (a string of 12 characters)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := loadGate(t, gateDAG(c.input, ""), needXInt, c.in)
			got := judge(d, outputs, EvolveOptions{File: "dags/t.yaml", Against: "main"})
			var msgs []string
			for _, f := range got {
				msgs = append(msgs, f.Message)
				if f.Severity != SeverityWarning || f.Code != CodeStored || f.Change != ChangeStoredFail || len(f.Fingerprint) != 16 {
					t.Errorf("finding %s: want a %s warning, change %s, with a fingerprint", f, CodeStored, ChangeStoredFail)
				}
				if strings.Contains(f.String(), "secret") {
					t.Errorf("finding shows a stored value: %s", f)
				}
			}
			if strings.Join(msgs, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("messages\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(c.want, "\n"))
			}
			if len(got) == 2 && got[0].Fingerprint == got[1].Fingerprint {
				t.Errorf("producer and consumer findings share the fingerprint %s", got[0].Fingerprint)
			}
		})
	}
	d := loadGate(t, gateDAG(mapXWhole, ""), needXInt, needXInt)
	if got := judge(d, outputs[1:2], EvolveOptions{}); len(got) != 0 {
		t.Errorf("outputs that pass: %s", findingsText(got))
	}
}

// judge adds outputs to node p's StoredJudge one at a time, as the gate does.
func judge(d *dag.DAG, outputs [][]byte, opts EvolveOptions) []Finding {
	j := NewStoredJudge(d, "p", opts)
	for _, b := range outputs {
		j.Add(b)
	}
	return j.Findings()
}

func TestChangedOutputs(t *testing.T) {
	old := loadGate(t, gateDAG(mapX, ""), xInt, needXInt)
	if got := ChangedOutputs(old, loadGate(t, gateDAG(mapX, "description: d\n"), xInt, needX(`{}`))); len(got) != 0 {
		t.Errorf("changed outputs %v, want none: only the consumer's contract changed", got)
	}
	if got := ChangedOutputs(old, loadGate(t, gateDAG(mapX, ""), needXInt, needXInt)); len(got) != 1 || got[0] != "p" {
		t.Errorf("changed outputs %v, want [p]", got)
	}
	if got := ChangedOutputs(nil, old); len(got) != 0 {
		t.Errorf("changed outputs of a new file %v, want none", got)
	}
}

// A contract that refers to a shared file changes when that file does, though its own file
// stays the same: --against-store then judges the node's stored outputs.
func TestChangedOutputsSharedFile(t *testing.T) {
	load := func(common string) *dag.DAG {
		files := map[string]string{
			"out.json":    `{"type":"object","required":["data"],"properties":{"data":{"$ref":"common.json#/$defs/data"}}}`,
			"in.json":     needXInt,
			"common.json": `{"$defs":{"data":` + common + `}}`,
		}
		d, err := dag.LoadBytes(context.Background(), "testdata/t.yaml", []byte(gateDAG(mapX, "")), dag.LoadOptions{Types: nodestest.LoadTypes(),
			ReadFile: func(path string) ([]byte, error) {
				if b, ok := files[filepath.Base(path)]; ok {
					return []byte(b), nil
				}
				return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
			}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	old := load(xInt)
	for _, c := range []struct {
		name, common string
		want         []string
	}{
		{"the shared file is the same", xInt, nil},
		{"the shared file changed", dataX(`{"type":"string"}`, true, false), []string{"p"}},
	} {
		if got := ChangedOutputs(old, load(c.common)); !slices.Equal(got, c.want) {
			t.Errorf("%s: changed outputs %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMasked(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"héllo", `"***" (a string of 5 characters)`},
		{map[string]any{"a": 1, "b": 2}, "{…} (an object of 2 members)"},
		{[]any{1}, "[…] (an array of 1 items)"},
		{true, "*** (a boolean)"},
		{json.Number("42"), "*** (a number)"},
		{nil, "null"},
	}
	for _, c := range cases {
		if got := masked(c.v, ""); got != c.want {
			t.Errorf("masked(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}
