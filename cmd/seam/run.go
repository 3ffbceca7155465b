package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/simulate"
	"github.com/seam-dag/seam/temporal"
)

// runFlags are seam run's flags.
type runFlags struct {
	params     []string
	paramsFile string
	asJSON     bool
	noLint     bool
	sf         storeFlag
	noStore    bool   // --no-store
	resume     string // --resume: the id of the run to continue
	from       string // --from: with --resume, the node to rerun the run from
	policy     string // --policy: the breaks it accepts run
	traceFile  string
	ef         engineFlag
	simulate   bool     // --simulate
	stubs      []string // --stub NODE=FILE
	fromStore  int      // --from-store N
	wait       bool     // --wait: stay until a waiting run's approval is answered
}

func newRunCmd(e *env) *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run FILE | run --resume RUN [FILE]",
		Short: "Run a DAG, validating every node's output against its contract",
		Long: `Run a DAG. Nodes start as soon as the nodes they depend on have finished, and every
output is validated against its node's contract before it is handed downstream.

Exit status: 0 when the run succeeded or warned, 1 when it failed or was canceled, 3 when it waits for an approval (docs/approvals.md),
2 for a usage error, a DAG that does not load or that seam lint finds errors in (see
--no-lint), or params that break the params schema. SIGINT, SIGTERM and SIGHUP cancel the
run (its processes are killed and it is recorded canceled) and seam exits 130, 143 or 129;
a second signal stops seam at once.

Every run is recorded in the run store (see seam runs); --resume RUN continues a run that
did not succeed, reusing the outputs of the nodes that passed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if rf.resume != "" {
				return cobra.MaximumNArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			rf.sf.lang = l
			if !rf.simulate && (len(rf.stubs) > 0 || rf.fromStore > 0) {
				return usage(errors.New(i18n.Sprintf(l, "--stub and --from-store go with --simulate")))
			}
			if rf.from != "" && rf.resume == "" {
				return usage(errors.New(i18n.Sprintf(l, "--from names the node a run is rerun from: give the run with --resume RUN")))
			}
			p, err := service.Params(e.readInput, l, rf.paramsFile, rf.params)
			if err != nil {
				return usage(err)
			}
			tel, err := setupTelemetry(cmd.Context(), e, rf.traceFile, l)
			if err != nil {
				return err
			}
			defer tel.shutdown(cmd.Context())
			ctx := tel.context(cmd.Context())
			if rf.resume != "" {
				return resumeRun(ctx, e, &rf, args, l, tel)
			}
			if rf.simulate {
				if len(rf.params) == 0 && rf.paramsFile == "" {
					p = nil // generated from the params schema
				}
				return simulateFile(ctx, e, &rf, args[0], p, l)
			}
			return runFile(ctx, e, &rf, args[0], p, l, tel)
		},
	}
	cmd.Flags().StringArrayVarP(&rf.params, "param", "p", nil,
		"a parameter as key=value, repeatable; the value is JSON when it parses as JSON, else a string")
	cmd.Flags().StringVar(&rf.paramsFile, "params-file", "", "a JSON or YAML file holding an object of parameters (- for JSON on stdin); -p overrides its keys")
	cmd.Flags().BoolVar(&rf.asJSON, "json", false, "print the run as one JSON document")
	cmd.Flags().BoolVar(&rf.noLint, "no-lint", false, "run even when seam lint finds errors in the DAG")
	cmd.Flags().StringVar(&rf.policy, "policy", "", "a policy file of seam lint --against: the breaks it accepts are notes, not errors (default: $SEAM_POLICY)")
	cmd.Flags().StringVar(&rf.traceFile, "trace", "", "write the run's spans to `FILE` as JSON lines (OTEL_* variables: docs/telemetry.md)")
	rf.sf.add(cmd)
	rf.sf.addNoMigrate(cmd)
	cmd.Flags().BoolVar(&rf.ef.detach, "detach", false, "with --engine temporal: print the run's id once it has started, and leave it to the workers (seam runs watch follows it)")
	rf.ef.add(cmd, "where the run's nodes run: embedded (this process) or temporal (seam workers; docs/temporal.md) (default: $SEAM_ENGINE, then embedded)")
	cmd.Flags().BoolVar(&rf.noStore, "no-store", false, "do not record the run")
	cmd.Flags().BoolVar(&rf.wait, "wait", false, "when the run waits for an approval, stay until it is answered (by seam approve, anywhere), then follow the run to its end")
	cmd.Flags().StringVar(&rf.resume, "resume", "", "continue run `RUN`: re-run what did not pass, reuse what did")
	cmd.Flags().StringVar(&rf.from, "from", "", "with --resume, rerun the run, finished or not, from node `NODE`: it and its dependents run again, the rest is reused")
	cmd.Flags().BoolVar(&rf.simulate, "simulate", false, "run no node with a side effect: generate their outputs from their contracts, take every branch the contracts allow, record nothing (docs/simulate.md)")
	cmd.Flags().IntVar(&rf.fromStore, "from-store", 0, "with --simulate, replay the outputs of the last `N` successful runs of the DAG in the run store, a path each")
	cmd.Flags().StringArrayVar(&rf.stubs, "stub", nil, "with --simulate, pin node `NODE=FILE`'s output to the JSON in FILE, repeatable")
	return cmd
}

// simulateFile simulates the DAG file at path (--simulate): the report on stdout.
func simulateFile(ctx context.Context, e *env, rf *runFlags, path string, params map[string]any, lang i18n.Lang) error {
	d, err := loadDAG(ctx, e, path, lang)
	if err != nil {
		return err
	}
	stubs, err := simulate.ReadStubs(rf.stubs, e.readInput, lang)
	if err != nil {
		return usage(err)
	}
	opts := simulate.Options{Params: params, Stubs: stubs, Lang: lang}
	if rf.fromStore > 0 {
		st, err := openStoreToResume(ctx, e, &rf.sf) // an existing store, read only
		if err != nil {
			return err
		}
		defer st.Close()
		if opts.Replays, err = simulate.FromStore(ctx, st, d, rf.fromStore, lang); err != nil {
			return usage(err)
		}
	}
	rep, err := simulate.Simulate(ctx, d, opts)
	if err != nil {
		return usage(err)
	}
	if rf.asJSON {
		return simulate.WriteJSON(e.stdout, rep)
	}
	return simulate.WriteText(e.stdout, rep, lang)
}

// runService is the run service of seam run: runs recorded in st (nil: --no-store),
// instrumented by tel, lint timed for its span, paths shown relative to the current
// directory.
func runService(e *env, st runs.Store, eng engine.Engine, lang i18n.Lang, tel *runTelemetry, policy string) *service.Service {
	return service.New(service.Options{
		Store: st, Engine: eng, Lang: lang, Getenv: e.getenv, Logger: slog.New(slog.NewTextHandler(e.stderr, nil)),
		ShowPath: displayPath, Instrument: tel.apply, AroundLint: tel.lint, PolicyFile: policy,
		Elsewhere: &dialCanceler{e: e, lang: lang}, // answers reach the runs waiting on Temporal
	})
}

// runFile runs the DAG file at path with params.
func runFile(ctx context.Context, e *env, rf *runFlags, path string, params map[string]any, lang i18n.Lang, tel *runTelemetry) error {
	d, err := loadDAG(ctx, e, path, lang)
	if err != nil {
		return err
	}
	// The engine first: a server that cannot be reached leaves no new store behind.
	eng, closeEngine, err := rf.ef.open(ctx, e, lang)
	if err != nil {
		return err
	}
	defer closeEngine()
	var st runs.Store
	if !rf.noStore {
		if st, err = openStore(ctx, e, &rf.sf); err != nil {
			return err
		}
		defer st.Close()
	}
	svc := runService(e, st, eng, lang, tel, rf.policy)
	defer svc.Close()
	return runAndShow(ctx, e, st, d, lang, rf, service.Request{Params: params, NoLint: rf.noLint}, func(req service.Request) (*service.Run, error) {
		return svc.Start(ctx, d, req)
	})
}

// runAndShow starts the run of d with start, showing its progress unless --json, then how it
// ended. Warnings that do not stop the run go to stderr, before it starts. st is the run
// store (nil with --no-store).
func runAndShow(ctx context.Context, e *env, st runs.Store, d *dag.DAG, lang i18n.Lang, rf *runFlags, req service.Request, start func(service.Request) (*service.Run, error)) error {
	var disp display
	if !rf.asJSON && !rf.ef.detach {
		disp = newDisplay(e, e.stdout, d, lang)
		req.Observer = disp
	}
	req.Warn = func(w error) { warnRun(e, lang, w) }
	run, err := start(req)
	if err != nil {
		return notStarted(e, d, lang, err)
	} else if run == nil {
		return nil // seam approve: answered the same before, or another process continues
	}
	res, err := run.Wait()
	if err != nil {
		return notStarted(e, d, lang, err)
	}
	if res.Status == dag.RunRunning && !rf.asJSON {
		// --detach: the id alone on stdout, for scripts, once a worker has the run, so that
		// seam runs watch finds it; how to follow it on stderr.
		if !recorded(ctx, st, res.ID) {
			fmt.Fprint(e.stderr, i18n.Sprintf(lang, "seam: no worker has taken run %s in %s: is a seam worker polling task queue %s? The run waits on Temporal until one does.\n",
				res.ID, detachWait, temporal.TaskQueue(e.getenv, rf.ef.queue)))
		}
		fmt.Fprintln(e.stdout, res.ID)
		fmt.Fprint(e.stderr, i18n.Sprintf(lang, "run %s of %s started on Temporal; seam runs watch %s follows it\n", res.ID, d.Name, res.ID))
		return nil
	}
	if rf.asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("encode run %s: %w", res.ID, err)
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		disp.finish(res)
	}
	if res.Error != "" {
		fmt.Fprint(e.termOut(e.stderr), i18n.Sprintf(lang, "seam: run %s: %s\n", res.ID, res.Error))
	}
	if res.Status == dag.RunFailed || res.Status == dag.RunCanceled {
		return failed()
	} else if res.Status == dag.RunWaiting {
		fmt.Fprint(e.stderr, service.WaitingNote(lang, res))
		if rf.wait && st != nil {
			// It may resume the run itself (a deadline, an answer left): with the DAG's env.
			wsvc := service.New(service.Options{Store: st, Lang: lang, Getenv: e.getenv, ShowPath: displayPath})
			if err := wsvc.AwaitAnswer(ctx, res.ID, d, service.Request{Warn: func(w error) { warnRun(e, lang, w) }}); err != nil {
				return failedWith(err)
			}
			return watchRun(ctx, e, &rf.sf, res.ID)
		}
		return &exitError{code: 3}
	}
	return nil
}

// detachWait bounds how long --detach waits for a worker to take the run.
const detachWait = 30 * time.Second

// recorded waits until run id is in st, for at most detachWait; without a store it does not
// wait.
func recorded(ctx context.Context, st runs.Store, id string) bool {
	if st == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, detachWait)
	defer cancel()
	for {
		if _, _, err := st.GetRun(ctx, id); err == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// warnRun prints on stderr what the run service warns of before a run.
func warnRun(e *env, lang i18n.Lang, w error) {
	var (
		lw *service.LintWarnings
		cw *service.ChangedWarning
	)
	switch {
	case errors.As(w, &lw) && lw.Accepted == 0 && lw.Count == 1:
		fmt.Fprint(e.stderr, i18n.Sprintf(lang, "seam: 1 lint warning (seam lint %s shows them)\n", lw.File))
	case errors.As(w, &lw) && lw.Accepted == 0:
		fmt.Fprint(e.stderr, i18n.Sprintf(lang, "seam: %d lint warnings (seam lint %s shows them)\n", lw.Count, lw.File))
	case errors.As(w, &cw):
		fmt.Fprint(e.stderr, i18n.Sprintf(lang, "seam: %s changed since run %s: nodes whose definition or input changed run again\n", cw.File, cw.ID))
	default:
		fmt.Fprintf(e.stderr, "seam: %v\n", w)
	}
}

// notStarted is the usage error (exit 2) of a run of d that did not start: lint's findings
// are printed on stderr first, as seam lint prints them.
func notStarted(e *env, d *dag.DAG, lang i18n.Lang, err error) error {
	var (
		le *service.LintError
		pe *engine.ParamsError
	)
	switch {
	case errors.As(err, &le):
		if err := lint.WriteText(e.stderr, le.Findings, lint.TextOptions{Lang: lang, Colour: useColour(e, e.stderr, "auto")}); err != nil {
			return fmt.Errorf("print findings: %w", err)
		}
	case errors.As(err, &pe):
		return usage(fmt.Errorf("%s: %w", d.File, pe))
	}
	return usage(err)
}
