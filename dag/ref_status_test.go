package dag

import (
	"reflect"
	"strings"
	"testing"
)

// nodes.<id>.status names how an upstream node ended: a reference of its own (Root
// "status"), which makes the node a dependency like an output reference does.
func TestStatusRefs(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"compared", `"${{ nodes.a.status == 'failed' }}"`, []string{"status:a:@1:6"}},
		{"quoted id", `"${{ nodes['my-node'].status != 'passed' }}"`, []string{"status:my-node:@1:6"}},
		{"beside an output read", `"${{ nodes.a.status == 'passed' && has(nodes.a.output.data.x) }}"`,
			[]string{"status:a:@1:6", "nodes:a:data@1:40"}},
		{"in a list", `"${{ nodes.a.status in ['failed', 'skipped'] }}"`, []string{"status:a:@1:6"}},
		{"in text", `"a ${{ nodes.a.status }}"`, []string{"status:a:@1:8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var got []string
			for _, r := range tmpl.Refs() {
				got = append(got, r.Root+":"+r.Node+":"+strings.Join(r.Path, ".")+"@"+posString(r.Pos))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("refs\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStatusEval(t *testing.T) {
	statuses := map[string]NodeStatus{"a": NodeFailed, "my-node": NodeWarned}
	status := func(id string) (NodeStatus, bool) { s, ok := statuses[id]; return s, ok }
	tests := []struct {
		name, src string
		want      any
	}{
		{"failed", `"${{ nodes.a.status == 'failed' }}"`, true},
		{"the value", `"${{ nodes['my-node'].status }}"`, "warned"},
		{"in text", `"a ${{ nodes.a.status }}"`, "a failed"},
		// A status read beside an output read of the same node: both are there.
		{"with the output", `"${{ nodes.a.status == 'failed' && nodes.a.output.status == 'pass' }}"`, true},
		{"has on an output beside", `"${{ nodes.a.status == 'failed' && has(nodes.a.output.data.score) }}"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			s := testScope()
			s.Status = status
			got, err := tmpl.Eval(s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// A status that is not known yet (the node has not finished, or the scope knows none) is an
// error, as an output that is not there is.
func TestStatusEvalUnknown(t *testing.T) {
	tmpl, diags := compileYAML(t, `"${{ nodes.b.status == 'failed' }}"`)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, s := range []*Scope{testScope(), {Status: func(string) (NodeStatus, bool) { return "", false }}} {
		if v, err := tmpl.Eval(s); err == nil || !strings.Contains(err.Error(), "no such key: b") {
			t.Errorf("got %v, %v; want an error naming b", v, err)
		}
	}
}

func TestStatusRefErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"member of a status", `"${{ nodes.a.status.x == 'y' }}"`, `expression "nodes.a.status.x == 'y'": a node's output is named nodes.<id>.output, with a constant id`},
		{"another member of a node", `"${{ nodes.a.summary == 'y' }}"`, `expression "nodes.a.summary == 'y'": a node's output is named nodes.<id>.output, with a constant id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := compileYAML(t, tt.src)
			if len(diags) != 1 || diags[0].Code != CodeExpr || diags[0].Message != tt.want {
				t.Fatalf("got %v, want one %s: %s", diags, CodeExpr, tt.want)
			}
		})
	}
}

// A status reference makes its node a dependency, and one that names no node is the same
// error as any reference to an unknown node.
func TestLoadStatusRef(t *testing.T) {
	d, diags := loadTest(t, head+`  a: {type: const, with: {value: {status: fail, summary: x}}}
  b:
    type: const
    when: "${{ nodes.a.status == 'failed' }}"
    with: {value: {status: pass, summary: y}}
`)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	b := d.ByID["b"]
	if !reflect.DeepEqual(b.Deps, []string{"a"}) {
		t.Errorf("b.Deps = %q, want [a]", b.Deps)
	}
	if !b.WhenReadsStatus("a") || d.ByID["a"].WhenReadsStatus("b") || b.WhenReadsStatus("c") {
		t.Errorf("WhenReadsStatus: b of a %t, want true", b.WhenReadsStatus("a"))
	}
	_, diags = loadTest(t, head+`  alpha: {type: const, with: {value: {status: pass, summary: x}}}
  b:
    type: const
    when: "${{ nodes.alpah.status == 'failed' }}"
    with: {value: {status: pass, summary: y}}
`)
	want := `7:16 SEAM-E105 reference to unknown node "alpah"; did you mean "alpha"?`
	if len(diags) != 1 || brief(diags[0]) != want {
		t.Fatalf("got %v, want %s", diags, want)
	}
}

func TestFinalStatuses(t *testing.T) {
	got := FinalStatuses()
	want := []NodeStatus{NodePassed, NodeWarned, NodeFailed, NodeSkipped, NodeCanceled}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, s := range got {
		if !s.Done() {
			t.Errorf("%s is not final", s)
		}
	}
}
