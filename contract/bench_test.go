package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

// The benchmarks compare seam's Validate with jsonschema's own on the same compiled schema:
// what seam adds on the path every node output takes. Run:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./contract/
//
// BenchmarkValidateRatio times both alternately within each iteration and reports their ratio
// (seam/jsonschema) as metrics, so no test asserts it and no tool is needed to compute it:
//
//	go test -run '^$' -bench ValidateRatio -count 6 -cpu 1 ./contract/

// benchDoc returns a valid standard output whose data holds n records, and its JSON size:
// about 180 bytes a record (5 records make 1,000 bytes, 578 make 102,443).
func benchDoc(b *testing.B, n int) (any, int) {
	b.Helper()
	items := make([]any, n)
	for i := range items {
		items[i] = map[string]any{
			"id":     fmt.Sprintf("rec-%05d", i),
			"name":   fmt.Sprintf("record number %d", i),
			"score":  float64(i%100) / 100,
			"tags":   []any{"alpha", "beta", "gamma"},
			"meta":   map[string]any{"owner": "team-a", "created": "2024-05-01T10:00:00Z", "active": i%2 == 0},
			"weight": i,
		}
	}
	out := map[string]any{
		"status":    "pass",
		"summary":   "Summarised the failed executions of the workflow.",
		"artifacts": []any{"report.md"},
		"data":      map[string]any{"records": items, "total": n},
	}
	raw, err := json.Marshal(out)
	if err != nil {
		b.Fatal(err)
	}
	v, err := ParseJSON(raw)
	if err != nil {
		b.Fatal(err)
	}
	return v, len(raw)
}

func benchSchema(b *testing.B) *Schema {
	b.Helper()
	c, err := NewCompiler(Options{Standard: standard(b)})
	if err != nil {
		b.Fatal(err)
	}
	declared, err := ParseJSON([]byte(`{
		"required": ["data"],
		"properties": {"data": {
			"type": "object",
			"required": ["records", "total"],
			"properties": {
				"total": {"type": "integer", "minimum": 0},
				"records": {"type": "array", "items": {
					"type": "object",
					"required": ["id", "name", "score"],
					"properties": {
						"id": {"type": "string", "pattern": "^rec-[0-9]+$"},
						"name": {"type": "string", "minLength": 1},
						"score": {"type": "number", "minimum": 0, "maximum": 1.0},
						"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
						"meta": {"type": "object", "properties": {
							"owner": {"type": "string"},
							"created": {"type": "string", "format": "date-time"},
							"active": {"type": "boolean"}}},
						"weight": {"type": "integer"}}}}}}}}`))
	if err != nil {
		b.Fatal(err)
	}
	d, err := c.Inline("bench", declared)
	if err != nil {
		b.Fatal(err)
	}
	s, err := c.Effective(c.Standard(), d)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

var benchSizes = []struct {
	name    string
	records int
}{{"1KB", 5}, {"100KB", 578}}

func BenchmarkValidate(b *testing.B) {
	s := benchSchema(b)
	for _, size := range benchSizes {
		v, n := benchDoc(b, size.records)
		b.Run(size.name+"/jsonschema", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if err := s.compiled.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(size.name+"/seam", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if vs := s.Validate(v, "en"); vs != nil {
					b.Fatal(vs)
				}
			}
		})
	}
}

// BenchmarkValidateInvalid shows the price of turning errors into violations (not part of the
// target: an invalid output stops or repairs its node anyway).
func BenchmarkValidateInvalid(b *testing.B) {
	s := benchSchema(b)
	v, n := benchDoc(b, 5)
	v.(map[string]any)["status"] = "maybe"
	v.(map[string]any)["data"].(map[string]any)["records"].([]any)[1].(map[string]any)["score"] = 2
	b.Run("1KB/jsonschema", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			if err := s.compiled.Validate(v); err == nil {
				b.Fatal("valid")
			}
		}
	})
	b.Run("1KB/seam", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			if vs := s.Validate(v, "en"); len(vs) != 2 {
				b.Fatal(vs)
			}
		}
	})
}

func BenchmarkValidateRatio(b *testing.B) {
	s := benchSchema(b)
	bare := func(v any) {
		if err := s.compiled.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
	seam := func(v any) {
		if vs := s.Validate(v, "en"); vs != nil {
			b.Fatal(vs)
		}
	}
	for _, size := range benchSizes {
		v, _ := benchDoc(b, size.records)
		b.Run(size.name, func(b *testing.B) {
			var bareSum, seamSum time.Duration
			bareMin, seamMin := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			timed := func(f func(any), sum, least *time.Duration) {
				t0 := time.Now()
				f(v)
				d := time.Since(t0)
				*sum += d
				*least = min(*least, d)
			}
			for i := 0; b.Loop(); i++ {
				// Alternate who goes first, so garbage one leaves behind is collected during
				// both equally often.
				if i%2 == 0 {
					timed(bare, &bareSum, &bareMin)
					timed(seam, &seamSum, &seamMin)
				} else {
					timed(seam, &seamSum, &seamMin)
					timed(bare, &bareSum, &bareMin)
				}
			}
			b.ReportMetric(float64(bareSum.Nanoseconds())/float64(b.N), "jsonschema-ns/op")
			b.ReportMetric(float64(seamSum.Nanoseconds())/float64(b.N), "seam-ns/op")
			b.ReportMetric(float64(seamSum)/float64(bareSum), "ratio")
			// The fastest call of each is the least disturbed by other processes.
			b.ReportMetric(float64(seamMin)/float64(bareMin), "min-ratio")
		})
	}
}
