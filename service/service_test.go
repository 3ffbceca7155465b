package service

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/pgtest"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// backends opens a new, empty store of each kind the tests run against: SQLite in a temp
// folder, and PostgreSQL when $SEAM_TEST_POSTGRES names a server.
var backends = []struct {
	name string
	open func(t *testing.T) runs.Store
}{
	{"sqlite", func(t *testing.T) runs.Store { return openStore(t, filepath.Join(t.TempDir(), "seam.db")) }},
	{"postgres", func(t *testing.T) runs.Store { return openStore(t, pgtest.Database(t)) }},
}

func openStore(t *testing.T, location string) runs.Store {
	t.Helper()
	s, err := runs.Open(t.Context(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eachBackend runs test once per store kind.
func eachBackend(t *testing.T, test func(t *testing.T, st runs.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.open(t)) })
	}
}

// newService returns a Service on st in lang, closed at the end of the test.
func newService(t *testing.T, st runs.Store, lang i18n.Lang) *Service {
	s := New(Options{Store: st, Lang: lang, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(s.Close)
	return s
}

// load writes src to name in dir and loads it.
func load(t *testing.T, dir, name, src string) *dag.DAG {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := dag.Load(t.Context(), path, dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// greetDAG needs a name of at least 3 characters, which lint checks against the params.
const greetDAG = `version: 1
name: greet
params:
  type: object
  required: [name]
  properties:
    name: {type: string}
nodes:
  greet:
    type: transform
    input:
      name: "${{ params.name }}"
    with: {program: '{status: "pass", summary: "hello, \(.name)"}'}
    contract:
      input: {type: object, required: [name], properties: {name: {type: string, minLength: 3}}}
`

// warnedDAG draws one lint warning: b reads a field of a's data that no contract declares.
const warnedDAG = `version: 1
name: warned
nodes:
  a: {type: const, with: {value: {status: pass, summary: a, data: {n: 1}}}}
  b:
    type: transform
    input: "${{ nodes.a.output.data.n }}"
    with: {program: '{status: "pass", summary: "n is \(.)"}'}
`

// fixableDAG fails at b until the file is fixed (other: 1 → label: x).
const fixableDAG = `version: 1
name: fixable
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: a}}
  b:
    type: const
    needs: [a]
    with: {value: {status: pass, summary: b, data: {other: 1}}}
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [label]}
`

// hangDAG runs until the file release exists next to it.
const hangDAG = `version: 1
name: hang
nodes:
  wait:
    type: exec
    with:
      command: 'touch started; while [ ! -f release ]; do sleep 0.05; done; echo "{\"status\":\"pass\",\"summary\":\"released\"}"'
      shell: true
`

func wait(t *testing.T, run *Run) *dag.RunResult {
	t.Helper()
	res, err := run.Wait()
	if err != nil {
		t.Fatalf("run %s: %v", run.ID, err)
	}
	return res
}

func TestStartShowListExplain(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		s := newService(t, st, "en")
		dir := t.TempDir()
		d := load(t, dir, "greet.yaml", greetDAG)
		run, err := s.Start(t.Context(), d, Request{Params: map[string]any{"name": "ada"}})
		if err != nil {
			t.Fatal(err)
		}
		if res := wait(t, run); res.Status != dag.RunSuccess || res.ID != run.ID {
			t.Fatalf("run: %+v", res)
		}
		select {
		case <-run.Recorded():
		default:
			t.Error("a recorded run's Recorded is not closed")
		}
		r, as, err := s.Show(t.Context(), Latest)
		if err != nil || r.ID != run.ID || r.Status != dag.RunSuccess || len(as) != 1 || as[0].Status != dag.NodePassed {
			t.Fatalf("Show(latest) = %+v, %+v, %v", r, as, err)
		}
		list, next, err := s.List(t.Context(), runs.Filter{Status: dag.RunSuccess})
		if err != nil || len(list) != 1 || list[0].ID != run.ID || next != "" {
			t.Fatalf("List = %v, %q, %v", list, next, err)
		}
		x, err := s.Explain(t.Context(), run.ID, "greet", runs.ExplainOptions{})
		if err != nil || x.Status != dag.NodePassed || x.Run != run.ID {
			t.Fatalf("Explain = %+v, %v", x, err)
		}
		var unknown *runs.UnknownNodeError
		if _, err := s.Explain(t.Context(), run.ID, "nope", runs.ExplainOptions{}); !errors.As(err, &unknown) {
			t.Errorf("Explain of an unknown node: %v", err)
		}
	})
}

// TestStartRefusals checks that params breaking the params schema and lint errors stop a run
// before it starts, saying why in English and Japanese, and that lint warnings do not.
func TestStartRefusals(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		dir := t.TempDir()
		d := load(t, dir, "greet.yaml", greetDAG)
		for _, tc := range []struct{ lang, lintMsg, paramsMsg string }{
			{"en", "greet.yaml: not run: lint found 1 error (--no-lint runs it anyway)", "params break the DAG's params schema"},
			{"ja", "greet.yaml: lint エラーのため実行しません（--no-lint で実行できます）", "params が DAG の params スキーマに違反しています"},
		} {
			t.Run(tc.lang, func(t *testing.T) {
				s := newService(t, st, i18n.Lang(tc.lang))
				_, err := s.Start(t.Context(), d, Request{Params: map[string]any{"name": "al"}})
				var le *LintError
				if !errors.As(err, &le) || le.Errors != 1 || len(le.Findings) != 1 || le.Findings[0].Code != "SEAM-E303" ||
					!strings.HasSuffix(err.Error(), tc.lintMsg) {
					t.Errorf("lint error: %v (%+v), want %q", err, le, tc.lintMsg)
				}
				_, err = s.Start(t.Context(), d, Request{Params: map[string]any{"name": 7}})
				var pe *engine.ParamsError
				if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.paramsMsg) {
					t.Errorf("params error: %v, want %q", err, tc.paramsMsg)
				}
				// --no-lint runs it: the edge then breaks at run time.
				run, err := s.Start(t.Context(), d, Request{Params: map[string]any{"name": "al"}, NoLint: true})
				if err != nil {
					t.Fatal(err)
				}
				if res := wait(t, run); res.Status != dag.RunFailed {
					t.Errorf("no-lint run: %s, want failed", res.Status)
				}
			})
		}
		list, _, err := newService(t, st, "en").List(t.Context(), runs.Filter{})
		if err != nil || len(list) != 2 {
			t.Errorf("runs recorded: %d (%v), want the two no-lint runs only", len(list), err)
		}

		s := newService(t, st, "en")
		var warned []error
		run, err := s.Start(t.Context(), load(t, dir, "warned.yaml", warnedDAG), Request{Warn: func(w error) { warned = append(warned, w) }})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, run)
		var lw *LintWarnings
		if len(warned) != 1 || !errors.As(warned[0], &lw) || lw.Count != 1 || !strings.HasSuffix(lw.Error(), "warned.yaml shows them)") {
			t.Errorf("warnings: %v", warned)
		}
	})
}

// TestResume runs a DAG that fails, fixes its file and resumes it: the service warns that
// the file changed, reuses what passed and ends in success under the same id.
func TestResume(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		s := newService(t, st, "en")
		dir := t.TempDir()
		first, err := s.Start(t.Context(), load(t, dir, "fixable.yaml", fixableDAG), Request{})
		if err != nil {
			t.Fatal(err)
		}
		if res := wait(t, first); res.Status != dag.RunFailed {
			t.Fatalf("first run: %s", res.Status)
		}
		rs, err := s.Resumable(t.Context(), Latest, ResumeCheck{})
		if err != nil {
			t.Fatal(err)
		}
		d := load(t, dir, "fixable.yaml", strings.Replace(fixableDAG, "other: 1", "label: x", 1))
		var warned []error
		run, err := s.Resume(t.Context(), rs, d, Request{Warn: func(w error) { warned = append(warned, w) }})
		if err != nil {
			t.Fatal(err)
		}
		res := wait(t, run)
		if res.ID != first.ID || res.Status != dag.RunSuccess || !res.Nodes[0].Reused || res.Nodes[1].Reused {
			t.Errorf("resume: %+v", res)
		}
		var cw *ChangedWarning
		if len(warned) != 1 || !errors.As(warned[0], &cw) ||
			warned[0].Error() != filepath.Join(dir, "fixable.yaml")+" changed since run "+first.ID+": nodes whose definition or input changed run again" {
			t.Errorf("warnings: %v", warned)
		}
	})
}

// rerunDAG is a → b → c, and a → d: a rerun from b runs b and c again and reuses a and d.
const rerunDAG = `version: 1
name: rerun
nodes:
  a: {type: const, with: {value: {status: pass, summary: a}}}
  b: {type: const, needs: [a], with: {value: {status: pass, summary: b}}}
  c: {type: const, needs: [b], with: {value: {status: pass, summary: c}}}
  d: {type: const, needs: [a], with: {value: {status: pass, summary: d}}}
`

// TestRerunFrom reruns a finished run from a node, and from its first node: that node and
// what is downstream of it run again, the rest is reused, each time as a new session of the
// same run.
func TestRerunFrom(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		s := newService(t, st, "en")
		dir := t.TempDir()
		d := load(t, dir, "rerun.yaml", rerunDAG)
		first, err := s.Start(t.Context(), d, Request{})
		if err != nil {
			t.Fatal(err)
		}
		if res := wait(t, first); res.Status != dag.RunSuccess {
			t.Fatalf("first run: %s", res.Status)
		}
		tests := []struct {
			from   string
			reused string // the nodes reused, in the DAG's order
		}{
			{"b", "ad"},
			{"a", ""},
			{"d", "abc"},
		}
		for i, tc := range tests {
			t.Run(tc.from, func(t *testing.T) {
				rs, err := s.Resumable(t.Context(), first.ID, ResumeCheck{From: tc.from})
				if err != nil {
					t.Fatal(err)
				}
				run, err := s.Resume(t.Context(), rs, d, Request{})
				if err != nil {
					t.Fatal(err)
				}
				res := wait(t, run)
				var reused string
				for _, n := range res.Nodes {
					if n.Reused {
						reused += n.ID
					}
				}
				if res.ID != first.ID || res.Status != dag.RunSuccess || reused != tc.reused {
					t.Errorf("rerun from %s: run %s %s, reused %q; want run %s success, reused %q", tc.from, res.ID, res.Status, reused, first.ID, tc.reused)
				}
				r, _, err := s.Show(t.Context(), first.ID)
				if err != nil {
					t.Fatal(err)
				}
				if r.Resumes != i+1 {
					t.Errorf("after rerun from %s: %d sessions after the first, want %d", tc.from, r.Resumes, i+1)
				}
			})
		}
	})
}

// TestResumeRefusals checks every reason a run is not resumed, with its message in English
// and Japanese.
func TestResumeRefusals(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		dir := t.TempDir()
		en := newService(t, st, "en")
		if _, err := en.Resumable(t.Context(), Latest, ResumeCheck{}); err == nil ||
			err.Error() != "no runs in "+st.Path()+" yet" {
			t.Errorf("resume of latest with no runs: %v", err)
		}
		greet := load(t, dir, "greet.yaml", greetDAG)
		okRun, err := en.Start(t.Context(), greet, Request{Params: map[string]any{"name": "ada"}})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, okRun)
		failed, err := en.Start(t.Context(), load(t, dir, "fixable.yaml", fixableDAG), Request{})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, failed)
		host, _ := os.Hostname()
		t0 := time.Now()
		running := runs.Run{ID: "20260101T000000.000-00000001", DAG: "x", Status: dag.RunRunning, Started: t0, PID: os.Getpid(), Host: host}
		noFile := runs.Run{ID: "20260101T000000.000-00000002", DAG: "x", Status: dag.RunFailed, Started: t0}
		for _, r := range []runs.Run{running, noFile} {
			if err := st.CreateRun(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
		other := load(t, dir, "other.yaml", strings.Replace(fixableDAG, "name: fixable", "name: other", 1))
		path := filepath.Join(dir, "fixable.yaml")

		tests := []struct {
			name  string
			store bool
			id    string
			check ResumeCheck
			dag   *dag.DAG // given to Resume once Resumable let it through
			why   Refusal  // 0: not a NotResumableError
			en    string
			ja    string
		}{
			{"no store", false, failed.ID, ResumeCheck{}, nil, NoStore,
				"--resume reads the run from the store: it cannot be combined with --no-store",
				"--resume は実行をストアから読むため、--no-store とは併用できません"},
			{"params given", true, failed.ID, ResumeCheck{ParamsGiven: true}, nil, ParamsGiven,
				"--resume runs with the params run " + failed.ID + " started with: drop -p and --params-file",
				"--resume は実行 " + failed.ID + " を開始時の params で再開します: -p と --params-file を外してください"},
			{"finished", true, okRun.ID, ResumeCheck{}, nil, Finished,
				"run " + okRun.ID + " finished with success: there is nothing to resume",
				"実行 " + okRun.ID + " は成功で終わっています: 再開するものはありません"},
			{"still running", true, running.ID, ResumeCheck{}, nil, StillRunning,
				"run " + running.ID + " is still running (process " + strconv.Itoa(os.Getpid()) + " on " + host + "); resume it once that process has stopped",
				"実行 " + running.ID + " はまだ実行中です（" + host + " のプロセス " + strconv.Itoa(os.Getpid()) + "）。そのプロセスが止まってから再開してください"},
			{"no file", true, noFile.ID, ResumeCheck{}, nil, NoFile,
				"run " + noFile.ID + " has no DAG file recorded: give it, `seam run --resume " + noFile.ID + " FILE`",
				"実行 " + noFile.ID + " には DAG ファイルが記録されていません: `seam run --resume " + noFile.ID + " FILE` で指定してください"},
			{"missing file", true, failed.ID, ResumeCheck{File: filepath.Join(dir, "gone.yaml")}, nil, MissingFile,
				"resume run " + failed.ID + ": its DAG file: stat " + filepath.Join(dir, "gone.yaml") + ": no such file or directory; if it moved, give it: `seam run --resume " + failed.ID + " FILE`",
				"実行 " + failed.ID + " の再開: DAG ファイル: stat " + filepath.Join(dir, "gone.yaml") + ": no such file or directory。移動した場合は `seam run --resume " + failed.ID + " FILE` で指定してください"},
			{"other DAG", true, failed.ID, ResumeCheck{File: other.File}, other, OtherDAG,
				"run " + failed.ID + ` ran DAG "fixable", but ` + other.File + ` defines "other": resume it with its own DAG file`,
				"実行 " + failed.ID + ` は DAG "fixable" を実行しましたが、` + other.File + ` が定義するのは "other" です: その DAG のファイルで再開してください`},
			{"rerun from no such node", true, okRun.ID, ResumeCheck{From: "nope"}, greet, NoSuchNode,
				"run " + okRun.ID + ` of DAG "greet" has no node "nope" to rerun from`,
				"実行 " + okRun.ID + ` の DAG "greet" には、再実行を始めるノード "nope" がありません`},
			{"unknown run", true, "20990101T000000.000-00000000", ResumeCheck{}, nil, 0,
				"no run 20990101T000000.000-00000000 in " + st.Path() + "; `seam runs list` shows the runs",
				st.Path() + " に実行 20990101T000000.000-00000000 はありません。`seam runs list` で実行を一覧できます"},
		}
		for _, tc := range tests {
			for _, lang := range []string{"en", "ja"} {
				t.Run(tc.name+"/"+lang, func(t *testing.T) {
					var store runs.Store
					if tc.store {
						store = st
					}
					s := newService(t, store, i18n.Lang(lang))
					rs, err := s.Resumable(t.Context(), tc.id, tc.check)
					if tc.dag != nil && err == nil {
						_, err = s.Resume(t.Context(), rs, tc.dag, Request{})
					}
					want := map[string]string{"en": tc.en, "ja": tc.ja}[lang]
					if err == nil || err.Error() != want {
						t.Fatalf("got %v\nwant %s", err, want)
					}
					var nr *NotResumableError
					if errors.As(err, &nr) != (tc.why != 0) || (nr != nil && nr.Why != tc.why) {
						t.Errorf("error %T %+v, want refusal %d", err, nr, tc.why)
					}
				})
			}
		}
		if _, err := en.Resumable(t.Context(), "20990101T000000.000-00000000", ResumeCheck{}); !errors.Is(err, runs.ErrNotFound) {
			t.Errorf("an unknown run's error is not runs.ErrNotFound: %v", err)
		}
		// The run's own file, as recorded, resumes.
		if rs, err := en.Resumable(t.Context(), failed.ID, ResumeCheck{}); err != nil || rs.File != path {
			t.Errorf("Resumable(failed) = %+v, %v; want its file %s", rs, err, path)
		}
	})
}

// TestCancel cancels a run going in this process, and says why it cannot cancel the others.
func TestCancel(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		s := newService(t, st, "en")
		dir := t.TempDir()
		d := load(t, dir, "hang.yaml", hangDAG)
		t.Chdir(dir) // the node waits for ./release
		t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "release"), nil, 0o644) })
		run, err := s.Start(t.Context(), d, Request{})
		if err != nil {
			t.Fatal(err)
		}
		<-run.Recorded()
		// Running in this process: not resumable either.
		var nr *NotResumableError
		if _, err := s.Resumable(t.Context(), run.ID, ResumeCheck{}); !errors.As(err, &nr) || nr.Why != StillRunning {
			t.Errorf("resume of a run going here: %v", err)
		}
		if err := s.Cancel(t.Context(), run.ID); err != nil {
			t.Fatal(err)
		}
		if res := wait(t, run); res.Status != dag.RunCanceled {
			t.Errorf("canceled run: %s", res.Status)
		}
		if r, _, err := s.Show(t.Context(), run.ID); err != nil || r.Status != dag.RunCanceled {
			t.Errorf("stored: %+v, %v", r, err)
		}

		host, _ := os.Hostname()
		foreign := runs.Run{ID: "20260101T000000.000-00000009", DAG: "hang", Status: dag.RunRunning, Started: time.Now(), PID: os.Getpid(), Host: host}
		if err := st.CreateRun(t.Context(), foreign); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			lang, id, want string
			status         dag.RunStatus
		}{
			{"en", run.ID, "run " + run.ID + " has already finished: canceled", dag.RunCanceled},
			{"ja", run.ID, "実行 " + run.ID + " はすでに終了しています：キャンセル", dag.RunCanceled},
			{"en", foreign.ID, "run " + foreign.ID + " is recorded as running but not by this process: stop it where it runs", dag.RunRunning},
			{"ja", foreign.ID, "実行 " + foreign.ID + " は running と記録されていますが、このプロセスの実行ではありません: 実行しているところで停止してください", dag.RunRunning},
		} {
			err := newService(t, st, i18n.Lang(tc.lang)).Cancel(t.Context(), tc.id)
			var ne *NotRunningError
			if !errors.As(err, &ne) || ne.Status != tc.status || err.Error() != tc.want {
				t.Errorf("Cancel(%s) in %s: %v, want %q", tc.id, tc.lang, err, tc.want)
			}
		}
		var nf *NotFoundError
		if err := s.Cancel(t.Context(), "nope"); !errors.As(err, &nf) {
			t.Errorf("Cancel of an unknown run: %v", err)
		}
		if err := New(Options{}).Cancel(t.Context(), "nope"); !errors.Is(err, ErrNoStore) {
			t.Errorf("Cancel without a store: %v", err)
		}
	})
}

// panicEngine panics on the goroutine driving the run, where the engine recovers nothing:
// the net the Service puts under every run.
type panicEngine struct{ ctx chan context.Context }

func (e panicEngine) Run(ctx context.Context, d *dag.DAG, opts engine.RunOptions) (*dag.RunResult, error) {
	if err := opts.Recorder.BeginRun(ctx, dag.RunRecord{ID: opts.RunID, DAG: d.Name, File: d.File, Started: time.Now()}); err != nil {
		return nil, err
	}
	e.ctx <- ctx
	panic("scheduler broke")
}

// TestRunPanics checks that a panic under a run is logged with its stack, cancels the run's
// context, records the run failed, and leaves the Service able to close.
func TestRunPanics(t *testing.T) {
	st := backends[0].open(t)
	log := &syncBuffer{}
	eng := panicEngine{ctx: make(chan context.Context, 1)}
	s := New(Options{Store: st, Engine: eng, Logger: slog.New(slog.NewTextHandler(log, nil))})
	run, err := s.Start(t.Context(), load(t, t.TempDir(), "greet.yaml", greetDAG), Request{Params: map[string]any{"name": "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = run.Wait()
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "scheduler broke" || err.Error() != "internal error in run "+run.ID+": scheduler broke" {
		t.Errorf("Wait: %v", err)
	}
	s.Close()
	if s.running(run.ID) {
		t.Error("the run that panicked still counts as running")
	}
	if cause := context.Cause(<-eng.ctx); cause != errPanicked {
		t.Errorf("the run's context: %v; want it canceled by errPanicked", cause)
	}
	if r, _, err := st.GetRun(t.Context(), run.ID); err != nil || r.Status != dag.RunFailed {
		t.Errorf("stored: %+v, %v; want failed", r, err)
	}
	if l := log.String(); !strings.Contains(l, "scheduler broke") || !strings.Contains(l, "service_test.go") {
		t.Errorf("the log lacks the panic and its stack:\n%s", l)
	}
	if _, err := s.Start(t.Context(), run.DAG, Request{Params: map[string]any{"name": "ada"}}); !errors.Is(err, ErrShuttingDown) {
		t.Errorf("Start after Close: %v", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
