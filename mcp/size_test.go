package mcp

import (
	"testing"
)

// TestMCPMinimalIsSmaller measures, on real runs of the dags/ examples, how much smaller the
// minimal answers of run_dag and get_run are than the raw ones, and requires at least 60 %.
func TestMCPMinimalIsSmaller(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	examples := []string{"fan-in", "foreach", "transform", "retry-repair", "broken-contract", "sub-dag", "hello"}
	var minTotal, rawTotal int
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			path := "dags/" + name + ".yaml"
			min := call(t, cs, "run_dag", map[string]any{"path": path, "wait": true, "no_lint": true})
			raw := call(t, cs, "run_dag", map[string]any{"path": path, "wait": true, "no_lint": true, "raw": true})
			if errCode(min) != "" || errCode(raw) != "" {
				t.Fatalf("run failed: %v / %v", min.env, raw.env)
			}
			id := min.data()["id"]
			gmin := call(t, cs, "get_run", map[string]any{"id": id})
			graw := call(t, cs, "get_run", map[string]any{"id": id, "raw": true})
			t.Logf("%-16s run_dag %5d → %4d bytes (%.0f %% smaller), get_run %5d → %4d bytes (%.0f %% smaller)", name,
				raw.size, min.size, reduction(min.size, raw.size), graw.size, gmin.size, reduction(gmin.size, graw.size))
			minTotal += min.size + gmin.size
			rawTotal += raw.size + graw.size
		})
	}
	r := reduction(minTotal, rawTotal)
	t.Logf("all: %d → %d bytes, %.1f %% smaller", rawTotal, minTotal, r)
	if r < 60 {
		t.Errorf("minimal answers are %.1f %% smaller than raw, want at least 60 %%", r)
	}
}

func reduction(min, raw int) float64 {
	if raw == 0 {
		return 0
	}
	return 100 * (1 - float64(min)/float64(raw))
}
