package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/temporal"
)

// TestTemporalScheduleSync: seam schedule sync makes a Temporal Schedule of an every: 2s
// trigger (--json says created, a second sync unchanged), whose runs a seam worker records
// with their trigger and scheduled time; a DAG file that does not load stops a sync before
// it changes anything; seam schedule pause --engine temporal pauses the Schedule, noting who
// and why, and seam schedule list shows the pause.
func TestTemporalScheduleSync(t *testing.T) {
	env, dir, store := workerWith(t, "other.yaml", "# in %[1]s\nversion: 1\nname: other\nnodes:\n  a: {type: const, with: {value: 1}}\n")
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "cli-" + hex.EncodeToString(b[:])
	src := fmt.Sprintf(`version: 1
name: %s
params: {type: object, properties: {since: {type: string, format: date-time}}}
nodes:
  report: {type: exec, with: {command: [echo, "since ${{ params.since }}"], output: text}}
triggers:
  tick: {every: 2s, overlap: allow_all, params: {since: "${{ trigger.scheduled_time }}"}}
`, name)
	if err := os.WriteFile(filepath.Join(dir, "tick.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := temporaltest.Client(t, client.Options{})
	id := temporal.ScheduleID(name, "tick")
	t.Cleanup(func() { _ = c.ScheduleClient().GetHandle(context.Background(), id).Delete(context.Background()) })

	out, errOut, code := seamEnv(t, dir, env, "schedule", "sync", "--json", "--store", store, ".")
	var synced []service.Synced
	if code != 0 || json.Unmarshal([]byte(out), &synced) != nil || len(synced) != 1 || synced[0] != (service.Synced{DAG: name, Trigger: "tick", Schedule: id, Did: service.SyncCreated}) {
		t.Fatalf("schedule sync --json: exit %d, want one created\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code = seamEnv(t, dir, env, "schedule", "sync", "--store", store)
	if want := name + " tick: unchanged (Temporal Schedule " + id + ")\n"; code != 0 || out != want {
		t.Errorf("second schedule sync: exit %d\nstdout:\n%s\nstderr:\n%s\nwant %q", code, out, errOut, want)
	}

	var run string
	for range 600 {
		if r, _ := latestRun(t, store); r != nil && r.Trigger == "tick" && r.Status != dag.RunRunning {
			run = r.ID
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if run == "" {
		t.Fatal("the Schedule's run was never recorded")
	}
	out, _, _ = seamEnv(t, dir, env, "runs", "show", "--store", store, run)
	at := strings.TrimPrefix(run, name+".tick-")
	if !strings.Contains(out, "trigger  tick, for "+at+"\n") {
		t.Errorf("runs show %s:\n%s\nwant its trigger, for %s", run, out, at)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nname: bad\nnodes:\n  a: {type: nosuch}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = seamEnv(t, dir, env, "schedule", "sync", "--store", store)
	if code == 0 || out != "" || !strings.Contains(errOut, "bad.yaml") {
		t.Errorf("schedule sync with a DAG file that does not load: exit %d\nstdout:\n%s\nstderr:\n%s\nwant it refused, naming bad.yaml", code, out, errOut)
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}

	if out, errOut, code := seamEnv(t, dir, env, "schedule", "pause", "--engine", "temporal", "--note", "maintenance", "--store", store, "tick.yaml", "tick"); code != 0 {
		t.Fatalf("schedule pause --engine temporal: exit %d\n%s%s", code, out, errOut)
	}
	desc, err := c.ScheduleClient().GetHandle(context.Background(), id).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.Schedule.State; !st.Paused || !strings.HasPrefix(st.Note, "paused by ") || !strings.HasSuffix(st.Note, ": maintenance") {
		t.Errorf("the Schedule's state after pause: %+v, want paused with who and maintenance", st)
	}
	if out, _, _ := seamEnv(t, dir, env, "schedule", "list", "--store", store, "tick.yaml"); !strings.Contains(out, ": maintenance)") {
		t.Errorf("schedule list:\n%s\nwant tick paused for maintenance", out)
	}
}
