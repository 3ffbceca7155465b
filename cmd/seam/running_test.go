package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// TestRunsShowRunning follows a plain exec node while it runs, on either store: seam runs
// show says it is running (and --json too), seam runs watch prints it running, then canceled
// once the run is interrupted.
func TestRunsShowRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	onEachStore(t, "hang.yaml", hangDAG, func(t *testing.T, dir, store string) {
		run, runOut := startSeam(t, dir, nil, "run", "--store", store, "hang.yaml")
		var id string
		waitFor(t, "hang's start to be recorded", func() bool {
			r, as := latestRun(t, store)
			for _, a := range as {
				if a.Node == "hang" && a.Status == dag.NodeRunning {
					id = r.ID
				}
			}
			return id != ""
		})
		out, errOut, code := seamEnv(t, dir, nil, "runs", "show", id, "--store", store)
		if line := regexp.MustCompile(`(?m)^… hang  running +1 attempt`); code != 0 || !line.MatchString(out) || strings.Contains(out, "no node has finished") {
			t.Errorf("seam runs show while hang runs: exit %d, want a line for hang running\n%s%s", code, out, errOut)
		}
		out, errOut, _ = seamEnv(t, dir, nil, "runs", "show", id, "--json", "--store", store)
		var doc struct {
			Nodes []struct {
				ID, Status string
			} `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Nodes) != 1 || doc.Nodes[0].Status != "running" {
			t.Errorf("seam runs show --json while hang runs: %v, nodes %+v\n%s%s", err, doc.Nodes, out, errOut)
		}
		watch, watchOut := startSeam(t, dir, nil, "runs", "watch", id, "--store", store)
		waitFor(t, "runs watch to print hang running", func() bool { return strings.Contains(watchOut.String(), "  hang  running") })
		if err := run.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := run.Wait(); err == nil {
			t.Errorf("seam run interrupted: exit 0\n%s", runOut)
		}
		watch.Wait()
		want := regexp.MustCompile(`(?s)^run ` + id + `  hang\n\S+  hang  running\n\S+  hang  canceled.*\nrun ` + id + `: canceled`)
		if !want.MatchString(watchOut.String()) {
			t.Errorf("seam runs watch: want hang running, then canceled\n%s", watchOut)
		}
	})
}
