package validate

import (
	"context"
	"fmt"
	"testing"

	"github.com/seam-dag/seam/n8n/catalog"
)

// benchWorkflow is a realistic workflow of n nodes: a webhook, then a repeating run of Set
// (with expressions referring back), IF (both outputs used), HTTP Request (with an error
// output) and Code nodes, every node connected.
func benchWorkflow(n int) obj {
	nodes := []obj{nd("Webhook", B+"webhook", 2, obj{"httpMethod": "POST", "path": "bench", "options": obj{}})}
	conns := obj{}
	prev := "Webhook"
	link := func(from, to string, output int) {
		m, _ := conns[from].(obj)
		if m == nil {
			m = obj{"main": []any{}}
			conns[from] = m
		}
		slots := m["main"].([]any)
		for len(slots) <= output {
			slots = append(slots, []any{})
		}
		slots[output] = append(slots[output].([]any), to_(to))
		m["main"] = slots
	}
	for i := 1; i < n; i++ {
		name := fmt.Sprintf("N%d", i)
		var node obj
		switch i % 4 {
		case 0:
			node = nd(name, B+"set", 3.4, obj{"assignments": obj{"assignments": []any{
				obj{"id": name, "name": "v", "value": fmt.Sprintf("={{ $json.v + $('%s').item.json.v }}", prev), "type": "string"}}}, "options": obj{}})
		case 1:
			node = nd(name, B+"if", 2.2, obj{"conditions": obj{"options": obj{"caseSensitive": true, "leftValue": "", "typeValidation": "strict", "version": 2.0},
				"conditions": []any{obj{"id": name, "leftValue": "={{ $json.v }}", "rightValue": "", "operator": obj{"type": "string", "operation": "exists", "singleValue": true}}}, "combinator": "and"}, "options": obj{}})
		case 2:
			node = nd(name, B+"httpRequest", 4.2, obj{"url": "=https://api.example.com/items/{{ $json.id }}", "options": obj{}}, obj{"onError": "continueErrorOutput"})
		default:
			node = nd(name, B+"code", 2, obj{"jsCode": "return $input.all();"})
		}
		nodes = append(nodes, node)
		link(prev, name, 0)
		if t, _ := nodes[len(nodes)-2]["type"].(string); t == B+"if" || t == B+"httpRequest" {
			link(prev, name, 1)
		}
		prev = name
	}
	return workflow(nodes, conns)
}

func to_(name string) obj { return obj{"node": name, "type": "main", "index": 0.0} }

func TestBenchWorkflowValid(t *testing.T) {
	r := run(t, benchWorkflow(100), Runtime)
	if !r.Valid || len(r.Warnings) != 0 || r.Statistics.TotalNodes != 100 {
		t.Fatalf("bench workflow: %+v %+v %+v", r.Errors, r.Warnings, r.Statistics)
	}
}

func BenchmarkValidate(b *testing.B) {
	var l catalog.Loader
	cat, err := l.Get()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 100, 1000} {
		wf := benchWorkflow(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := ValidateValue(context.Background(), wf, Options{Catalog: cat})
				if err != nil || !r.Valid {
					b.Fatal(err, r.Errors)
				}
			}
		})
	}
}

// BenchmarkFirstValidate is the start-up cost: opening the embedded catalog, decoding the
// node types a workflow uses, validating it once.
func BenchmarkFirstValidate(b *testing.B) {
	wf := benchWorkflow(10)
	b.ReportAllocs()
	for b.Loop() {
		var l catalog.Loader
		cat, err := l.Get()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ValidateValue(context.Background(), wf, Options{Catalog: cat}); err != nil {
			b.Fatal(err)
		}
	}
}
