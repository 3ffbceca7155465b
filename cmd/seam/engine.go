package main

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/service"
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
	c, err := e.dialTemporal(ctx, lang)
	if err != nil {
		return nil, nil, usage(err)
	}
	eng := &temporal.Engine{Client: c, TaskQueue: temporal.TaskQueue(e.getenv, ef.queue), Detach: ef.detach,
		MaxFileSize: limit}
	return eng, c.Close, nil
}

// schedules returns the Temporal Schedules to act on (--engine temporal, or always); else nil.
func (ef *engineFlag) schedules(ctx context.Context, e *env, lang i18n.Lang, always bool) (service.RemoteSchedules, func(), error) {
	if always {
		ef = &engineFlag{name: "temporal", queue: ef.queue}
	}
	eng, closeEngine, err := ef.open(ctx, e, lang)
	return temporal.SchedulesOf(eng, lang), closeEngine, err
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

// dialTemporal connects to Temporal with its standard settings from the environment, logging
// to stderr and tracing with seam's telemetry.
func (e *env) dialTemporal(ctx context.Context, lang i18n.Lang) (client.Client, error) {
	return temporal.Dial(ctx, temporal.DialOptions{Getenv: e.getenv, Logger: slog.New(slog.NewTextHandler(e.stderr, nil)), Tracer: e.tracer(), Lang: lang})
}

// tracer is the tracer of seam's telemetry once set up, or nil when nothing is traced.
func (e *env) tracer() trace.Tracer {
	if e.tel == nil || e.tel.tel.Tracer == nil {
		return nil
	}
	return e.tel.tel.Tracer
}

// dialCanceler cancels a run on Temporal, or answers its approval, connecting only when
// there is one.
type dialCanceler struct {
	e    *env
	lang i18n.Lang
}

func (d *dialCanceler) Cancel(ctx context.Context, runID string) error {
	c, err := d.e.dialTemporal(ctx, d.lang)
	if err != nil {
		return err
	}
	defer c.Close()
	return (&temporal.Engine{Client: c}).Cancel(ctx, runID)
}

// CancelPending cancels a run that the store does not hold, maybe one no worker has taken
// (service.Service.Cancel records it).
func (d *dialCanceler) CancelPending(ctx context.Context, runID string) (*dag.RunRecord, bool, error) {
	c, err := d.e.dialTemporal(ctx, d.lang)
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	return (&temporal.Engine{Client: c}).CancelPending(ctx, runID)
}

// AnswerRun answers the approval a run on Temporal waits for, through its workflow's Update.
func (d *dialCanceler) AnswerRun(ctx context.Context, req service.AnswerRequest, by *auth.Principal) (*service.Answered, error) {
	c, err := d.e.dialTemporal(ctx, d.lang)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return (&temporal.Engine{Client: c}).AnswerRun(ctx, req, by)
}
