package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/temporal"
)

// engineFlag is --engine and --task-queue of the commands that start runs.
type engineFlag struct {
	name, queue string
	detach      bool // seam run --detach: start on Temporal and return
}

func (ef *engineFlag) add(cmd *cobra.Command, usage string) {
	cmd.Flags().StringVar(&ef.name, "engine", "", usage)
	cmd.Flags().StringVar(&ef.queue, "task-queue", "", "the Temporal task queue the workers poll (default: $SEAM_TASK_QUEUE, then "+temporal.DefaultTaskQueue+")")
}

// resolve returns the engine's name: --engine, then $SEAM_ENGINE, then embedded.
func (ef *engineFlag) resolve(e *env, lang i18n.Lang) (string, error) {
	name := ef.name
	if name == "" {
		name = e.getenv("SEAM_ENGINE")
	}
	switch name {
	case "", "embedded":
		return "embedded", nil
	case "temporal":
		return name, nil
	}
	return "", usage(i18n.Errorf(lang, "unknown engine %q: embedded or temporal", name))
}

// taskQueue returns the task queue: the flag, then $SEAM_TASK_QUEUE, then seam's default.
func taskQueue(e *env, flag string) string {
	if flag != "" {
		return flag
	}
	if q := e.getenv("SEAM_TASK_QUEUE"); q != "" {
		return q
	}
	return temporal.DefaultTaskQueue
}

// open returns the engine to run with (nil: the embedded one) and what closes it.
func (ef *engineFlag) open(ctx context.Context, e *env, lang i18n.Lang) (engine.Engine, func(), error) {
	name, err := ef.resolve(e, lang)
	if err == nil && ef.detach && name == "embedded" {
		err = usage(i18n.Errorf(lang, "--detach needs --engine temporal: the embedded engine runs the nodes in this process"))
	}
	if err != nil || name == "embedded" {
		return nil, func() {}, err
	}
	limit, err := userfile.MaxSize(e.getenv)
	if err != nil {
		return nil, nil, usage(err)
	}
	c, err := temporal.Dial(ctx, e.getenv, slog.New(slog.NewTextHandler(e.stderr, nil)), e.tracer())
	if err != nil {
		return nil, nil, usage(err)
	}
	eng := &temporal.Engine{Client: c, TaskQueue: taskQueue(e, ef.queue), Detach: ef.detach,
		Load: dag.LoadOptions{Types: registry(e), MaxFileSize: limit, Lang: lang}}
	return eng, c.Close, nil
}

// offered returns the engines a server offers its clients besides the embedded one: temporal
// with --engine temporal, none otherwise; and what closes them.
func (ef *engineFlag) offered(ctx context.Context, e *env, lang i18n.Lang) (map[string]engine.Engine, func(), error) {
	eng, closeEngine, err := ef.open(ctx, e, lang)
	if err != nil || eng == nil {
		return nil, closeEngine, err
	}
	return map[string]engine.Engine{"temporal": eng}, closeEngine, nil
}

func newWorkerCmd(e *env) *cobra.Command {
	var (
		sf          storeFlag
		queue       string
		concurrency int
	)
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run the nodes of DAGs started with --engine temporal, as a Temporal worker",
		Long: `Run a Temporal worker that hosts seam's run workflow and runs node attempts, for the
runs that seam run --engine temporal (or MCP, or the web view) starts. Start as many as you
like, on as many machines: each records the runs it hosts in its run store (--store; share
one PostgreSQL store between workers and the machines that start runs).

The Temporal server is named by Temporal's standard settings: TEMPORAL_ADDRESS (default
localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_* or a profile of the
Temporal CLI's config file. Nodes read the variables their DAG declares under env from this
worker's environment. A node may run twice when a worker dies mid-attempt (docs/temporal.md).

SIGINT and SIGTERM stop the worker: attempts it was running are given to another worker.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			if concurrency < 1 || concurrency > maxWorkerConcurrency {
				return usage(i18n.Errorf(l, "--concurrency %d: want 1 to %d", concurrency, maxWorkerConcurrency))
			}
			ctx := cmd.Context()
			// Attempts are traced as seam run's are (OTEL_* variables), under Temporal's spans.
			tel, err := setupTelemetry(ctx, e, "")
			if err != nil {
				return err
			}
			defer tel.shutdown(ctx)
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			c, err := temporal.Dial(ctx, e.getenv, log, e.tracer())
			if err != nil {
				return usage(err)
			}
			defer c.Close()
			st, err := openStore(ctx, e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			q := taskQueue(e, queue)
			w := worker.New(c, q, temporal.SDKWorkerOptions(concurrency))
			temporal.NewWorker(temporal.WorkerOptions{
				Client: c, Store: st, Types: registry(e), Getenv: e.getenv, Logger: log, Tracer: e.tracer(),
			}).Register(w)
			if err := w.Start(); err != nil {
				return fmt.Errorf("start worker on task queue %s: %w", q, err)
			}
			fmt.Fprint(e.stderr, i18n.Sprintf(l, "seam worker %d: task queue %s, store %s\n", os.Getpid(), q, st.Path()))
			<-ctx.Done()
			w.Stop()
			return nil
		},
	}
	sf.add(cmd)
	sf.addNoMigrate(cmd)
	cmd.Flags().StringVar(&queue, "task-queue", "", "the task queue to poll (default: $SEAM_TASK_QUEUE, then "+temporal.DefaultTaskQueue+")")
	cmd.Flags().IntVar(&concurrency, "concurrency", defaultWorkerConcurrency, "node attempts this worker runs at once")
	return cmd
}

// The worker's attempts at once: the default, and the most --concurrency takes.
const (
	defaultWorkerConcurrency = 16
	maxWorkerConcurrency     = 1024
)

// tracer is the tracer of seam's telemetry once set up, or nil when nothing is traced.
func (e *env) tracer() trace.Tracer {
	if e.tel == nil || e.tel.tel.Tracer == nil {
		return nil
	}
	return e.tel.tel.Tracer
}
