package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

// newSchedulerCmd is seam scheduler: the embedded scheduler, for hosts without seam serve.
func newSchedulerCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "scheduler [PATH...]",
		Short: "Start the runs of the schedules (cron and every triggers) of the DAG files under PATHs (default .); one scheduler per store is active",
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, ws, done, err := scheduleSetup(cmd, e, &sf, &engineFlag{})
			if err != nil {
				return err
			}
			defer done()
			stop, err := startScheduler(cmd.Context(), e, svc, ws, args)
			if err == nil {
				<-cmd.Context().Done()
				stop()
			}
			return err
		},
	}
	sf.add(cmd)
	return cmd
}

// startScheduler runs the scheduler of the DAG files under paths until stop (seam
// scheduler, seam serve), saying on stderr what a tick could not do.
func startScheduler(ctx context.Context, e *env, svc *service.Service, ws *workspace.Workspace, paths []string) (stop func(), err error) {
	kept := workspace.NewKept() // a file is loaded again once it changed
	return service.StartScheduler(ctx, svc, func(ctx context.Context) ([]*dag.DAG, error) {
		ds, errs := kept.LoadAll(ctx, ws, paths)
		return ds, errors.Join(errs...)
	}, func(err error) { fmt.Fprintf(e.stderr, "seam scheduler: %v\n", err) })
}

// scheduleSetup opens what the schedule commands share: a service on the store (and on the
// Temporal Schedules with --engine temporal, and for sync) and the workspace; done closes the
// service, then the store.
func scheduleSetup(cmd *cobra.Command, e *env, sf *storeFlag, ef *engineFlag) (svc *service.Service, ws *workspace.Workspace, done func(), err error) {
	l, err := lang(cmd, e)
	if err != nil {
		return nil, nil, nil, err
	}
	sf.lang = l
	if ws, err = openWorkspace(e, "", l); err != nil {
		return nil, nil, nil, err
	}
	st, err := openStore(cmd.Context(), e, sf)
	if err != nil {
		return nil, nil, nil, err
	}
	remote, closeRemote, err := ef.schedules(cmd.Context(), e, l, cmd.Name() == "sync")
	if err != nil {
		st.Close()
		return nil, nil, nil, err
	}
	svc = service.New(service.Options{Store: st, Lang: l, Getenv: e.getenv, ShowPath: displayPath, Logger: slog.New(slog.NewTextHandler(e.stderr, nil)), Schedules: remote})
	return svc, ws, func() { svc.Close(); closeRemote(); st.Close() }, nil
}

// scheduleRun is what one seam schedule subcommand does: its answer as JSON and as text.
type scheduleRun func(ctx context.Context, svc *service.Service, ws *workspace.Workspace, args []string, l i18n.Lang) (any, string, error)

// newScheduleCmd is seam schedule: the schedules, their next times, pauses and history.
func newScheduleCmd(e *env) *cobra.Command {
	var (
		sf             storeFlag
		ef             engineFlag
		asJSON         bool
		count          int
		note, from, to string
	)
	cmd := &cobra.Command{Use: "schedule", Short: "List the DAGs' triggers, their next times and decisions; pause and resume them"}
	sub := func(use, short string, args cobra.PositionalArgs, run scheduleRun) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: args, RunE: func(c *cobra.Command, args []string) error {
			svc, ws, done, err := scheduleSetup(c, e, &sf, &ef)
			if err != nil {
				return err
			}
			defer done()
			v, text, err := run(c.Context(), svc, ws, args, sf.lang)
			if err == nil && asJSON {
				return printJSON(e.stdout, v)
			}
			fmt.Fprint(e.stdout, text)
			return err
		}}
		sf.add(c)
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		ef.add(c, "where the schedules run: embedded (the store's scheduler) or temporal (the Temporal Schedules seam schedule sync made)")
		return c
	}
	// onTrigger runs f on the trigger args name (a DAG file and a trigger id).
	onTrigger := func(f func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error)) scheduleRun {
		return func(ctx context.Context, svc *service.Service, ws *workspace.Workspace, args []string, l i18n.Lang) (any, string, error) {
			d, err := ws.Load(ctx, args[0])
			if err != nil {
				return nil, "", err
			}
			return f(ctx, svc, d, args[1], l)
		}
	}
	list := sub("list [PATH...]", "List the triggers of the DAG files under PATHs (default .) with their next times", cobra.ArbitraryArgs,
		func(ctx context.Context, svc *service.Service, ws *workspace.Workspace, paths []string, l i18n.Lang) (any, string, error) {
			ds, errs := ws.LoadAll(ctx, paths)
			for _, err := range errs {
				fmt.Fprintf(e.stderr, "seam: %v\n", err)
			}
			return svc.ScheduleList(ctx, ds, time.Now())
		})
	next := sub("next DAG TRIGGER", "Print a schedule's next times", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
		return service.NextTimes(d, id, time.Now(), count, l)
	}))
	next.Flags().IntVar(&count, "count", 5, "how many times")
	pause := sub("pause DAG TRIGGER", "Pause a trigger: its times are recorded missed until it is resumed", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
		return map[string]bool{"paused": true}, i18n.Sprintf(l, "paused %s %s\n", d.Name, id), svc.SetPaused(ctx, d, id, true, note)
	}))
	pause.Flags().StringVar(&note, "note", "", "why it is paused, shown with it (required)")
	_ = pause.MarkFlagRequired("note")
	backfill := sub("backfill DAG TRIGGER", "Start a run for each time of a schedule from --from to --to that has no decision yet", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
		return svc.BackfillText(ctx, d, id, from, to, time.Now())
	}))
	backfill.Flags().StringVar(&from, "from", "", "the first time, RFC 3339 (required)")
	backfill.Flags().StringVar(&to, "to", "", "the last time, RFC 3339 (required)")
	_, _ = backfill.MarkFlagRequired("from"), backfill.MarkFlagRequired("to")
	cmd.AddCommand(list, next, pause, backfill,
		sub("sync [PATH...]", "Create, update and delete the Temporal Schedules of the cron and every triggers of the DAG files under PATHs (default .)", cobra.ArbitraryArgs,
			func(ctx context.Context, svc *service.Service, ws *workspace.Workspace, paths []string, l i18n.Lang) (any, string, error) {
				ds, errs := ws.LoadAll(ctx, paths)
				return svc.SyncText(ctx, ds, errors.Join(errs...), paths)
			}),
		sub("trigger DAG TRIGGER", "Fire a trigger by hand now: a run recorded as a manual fire", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
			return svc.TriggerText(ctx, d, id, time.Now())
		})),
		sub("resume DAG TRIGGER", "Resume a paused trigger", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
			return map[string]bool{"paused": false}, i18n.Sprintf(l, "resumed %s %s\n", d.Name, id), svc.SetPaused(ctx, d, id, false, "")
		})),
		sub("history DAG TRIGGER", "Print a trigger's decisions: started, skipped, missed", cobra.ExactArgs(2), onTrigger(func(ctx context.Context, svc *service.Service, d *dag.DAG, id string, l i18n.Lang) (any, string, error) {
			return svc.HistoryText(ctx, d, id, 100)
		})))
	return cmd
}
