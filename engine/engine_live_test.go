package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// TestRunRecordsLiveLogs checks that what an exec node prints to stderr while it runs is
// in its start record before it ends, masked and bounded: the node waits for a file the
// test writes only once a watcher of the store has seen the log it wants.
func TestRunRecordsLiveLogs(t *testing.T) {
	tests := []struct {
		name   string
		script string // then waits for the gate
		output string // exec's output mode
		more   string // more of the node's YAML
		want   func(log string) bool
		says   string
	}{
		{"masked", `echo "token=${{ env.TOKEN }}" >&2; echo line 1 >&2`, "wrap", "",
			func(log string) bool { return strings.Contains(log, "token=***\nline 1\n") },
			`"token=***\nline 1\n", the secret masked`},
		{"bounded", `i=0; while [ $i -lt 3000 ]; do echo "line $i" >&2; i=$((i+1)); done`, "wrap", "",
			func(log string) bool {
				return strings.HasSuffix(log, "line 2999\n") && strings.HasPrefix(log, "[") && len(log) <= engine.LiveLogLimit+64
			},
			"the last lines, at most LiveLogLimit bytes, from a line"},
		{"stdout of output: text", `echo "on stdout ${{ env.TOKEN }}"; echo "on stderr" >&2`, "text", "",
			func(log string) bool {
				return strings.Contains(log, "on stdout ***\n") && strings.Contains(log, "on stderr\n")
			},
			"stdout and stderr, the secret masked"},
		{"stdout of output: wrap is not a log", `echo '{"early": 1}'; echo "on stderr" >&2`, "wrap", "",
			func(log string) bool { return log == "on stderr\n" },
			"stderr alone"},
		{"foreach items", `echo "item ${{ item }}" >&2`, "wrap", `    foreach: "${{ [1, 2] }}"`,
			func(log string) bool { return log == "item 2\n" },
			"an item's own log in its start record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			dir := t.TempDir()
			gate := filepath.Join(dir, "gate")
			script := tt.script + `; while [ ! -e "` + gate + `" ]; do sleep 0.05; done; echo '{}'`
			d, err := dag.LoadBytes(ctx, filepath.Join(dir, "live.yaml"), []byte(`version: 1
name: live
env: [TOKEN]
nodes:
  talk:
    type: exec
    with: {command: `+quote(script)+`, shell: true, output: `+tt.output+`}
`+tt.more+`
`), dag.LoadOptions{Types: nodes.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			store, err := runs.Open(ctx, filepath.Join(dir, "seam.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			done := make(chan error, 1)
			go func() {
				_, err := engine.Run(ctx, d, engine.RunOptions{RunID: "r1", Getenv: func(string) string { return "hunter2-secret" }, Recorder: runs.NewRecorder(store, d, runs.RecorderOptions{})})
				done <- err
			}()
			var seen string
			errSeen := errors.New("seen")
			for {
				err := store.WatchRun(ctx, "r1", func(_ *runs.Run, as []runs.Attempt) error {
					for _, a := range as {
						if a.IsStart() && tt.want(a.Log) {
							seen = a.Log
							return errSeen
						}
					}
					return nil
				})
				if errors.Is(err, errSeen) || ctx.Err() != nil {
					break
				}
				time.Sleep(10 * time.Millisecond) // the run is not created yet
			}
			if seen == "" {
				t.Fatalf("no start record of talk showed %s while it ran", tt.says)
			}
			if strings.Contains(seen, "hunter2") {
				t.Errorf("the live log holds the secret: %q", seen)
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func quote(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
