package lint

import (
	"fmt"
	"strings"
	"testing"
)

// nearProducer is node list (line 4): data.items, a list of objects declaring name; data
// is closed when closed is written after its required.
const nearProducer = `  list:
    type: const
    with: {value: {status: pass, summary: s, data: {items: [{name: a}]}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [items]%s
            properties:
              items:
                type: array
                items: {type: object, required: [name], properties: {name: {type: string}}%s}
`

// TestLintDidYouMean: a reference to a member the producer does not declare, whose name is
// close to one it does, says which was likely meant, through a node's output and through a
// foreach item, where the contract forbids the member and where it only leaves it open. A
// name close to none gets no guess, and an open item whose name is far says nothing.
func TestLintDidYouMean(t *testing.T) {
	tests := []struct {
		name, closed, itemsClosed, consumer string
		want                                string
	}{
		{"open output", "", "", `foreach: "${{ nodes.list.output.data.itmes }}"`,
			"21:19 warning SEAM-W301 nodes.list.output.data.itmes: list's output contract does not declare data.itmes (it allows other fields, so it may be there); did you mean nodes.list.output.data.items?\n" +
				"  fix: write nodes.list.output.data.items, or declare it in list's output contract, or correct the reference."},
		{"closed output", "\n            additionalProperties: false", "", `foreach: "${{ nodes.list.output.data.itmes }}"`,
			"22:19 error SEAM-E305 nodes.list.output.data.itmes: list's output contract does not declare data.itmes; did you mean nodes.list.output.data.items?\n" +
				"  fix: write nodes.list.output.data.items, or declare it in list's output contract, or reference a field it declares."},
		{"far from every name", "\n            additionalProperties: false", "", `foreach: "${{ nodes.list.output.data.entries }}"`,
			"22:19 error SEAM-E305 nodes.list.output.data.entries: list's output contract does not declare data.entries\n" +
				"  fix: declare it in list's output contract, or reference a field it declares."},
		{"open item", "", "", "foreach: \"${{ nodes.list.output.data.items }}\"\n    input: \"${{ item.nmae }}\"",
			"22:17 warning SEAM-W301 item.nmae: the elements of c's foreach list do not declare nmae (they allow other fields, so it may be there); did you mean item.name?\n" +
				"  fix: write item.name, or declare it where the list comes from, or correct the reference."},
		{"closed item", "", ", additionalProperties: false", "foreach: \"${{ nodes.list.output.data.items }}\"\n    input: \"${{ item.nmae }}\"",
			"22:17 error SEAM-E305 item.nmae: the elements of c's foreach list do not declare nmae; did you mean item.name?\n" +
				"  fix: write item.name, or reference a field the elements declare, or declare it where the list comes from."},
		{"open item, far name", "", "", "foreach: \"${{ nodes.list.output.data.items }}\"\n    input: \"${{ item.title }}\"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + strings.Replace(strings.Replace(nearProducer, "%s", tt.closed, 1), "%s", tt.itemsClosed, 1) +
				"  c:\n    type: echo\n    " + tt.consumer + "\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			_, fs := edgeFindings(d)
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%d:%d %s %s %s\n  fix: %s", f.Pos.Line, f.Pos.Col, f.Severity, f.Code, f.Message, f.Hint))
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
