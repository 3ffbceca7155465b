package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/temporal"
)

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
			tel, err := setupTelemetry(ctx, e, "", l)
			if err != nil {
				return err
			}
			defer tel.shutdown(ctx)
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			c, err := e.dialTemporal(ctx, l)
			if err != nil {
				return usage(err)
			}
			defer c.Close()
			st, err := openStore(ctx, e, &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			q := temporal.TaskQueue(e.getenv, queue)
			w := worker.New(c, q, temporal.SDKWorkerOptions(concurrency))
			tw := temporal.NewWorker(temporal.WorkerOptions{
				Client: c, Store: st, Types: registry(e), Getenv: e.getenv, Logger: log, Tracer: e.tracer(),
			})
			defer tw.Close() // its bundles' folder, once the SDK's worker has stopped
			tw.Register(w)
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
