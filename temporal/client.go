package temporal

import (
	"context"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/internal/i18n"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	topentelemetry "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	tlog "go.temporal.io/sdk/log"
)

// DefaultTaskQueue is the task queue seam's workflows and workers use unless told otherwise.
const DefaultTaskQueue = "seam"

// TaskQueue returns the task queue to use: flag (a command's --task-queue), then
// $SEAM_TASK_QUEUE by getenv, then DefaultTaskQueue.
func TaskQueue(getenv func(string) string, flag string) string {
	if flag != "" {
		return flag
	}
	if q := getenv("SEAM_TASK_QUEUE"); q != "" {
		return q
	}
	return DefaultTaskQueue
}

// Dial connects to the Temporal server that Temporal's standard settings name: the
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS_* variables, over a
// profile of Temporal's config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) when there is
// one, as the Temporal CLI reads them; localhost:7233 and namespace default otherwise. The
// SDK's own log goes to log at warning level and above.
//
// With a tracer, Temporal's OpenTelemetry interceptor traces starting a run, the workflow and
// each activity, propagating the trace through Temporal's headers; workers made with the
// client trace what they run the same way.
func Dial(ctx context.Context, o DialOptions) (client.Client, error) {
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{EnvLookup: lookup(o.Getenv)})
	if err != nil {
		return nil, i18n.Errorf(o.Lang, "Temporal's settings: %w", err)
	}
	opts.Logger = tlog.NewStructuredLogger(slog.New(warnOnly{o.Logger.Handler()}))
	if o.Tracer != nil {
		ti, err := Tracing(o.Tracer)
		if err != nil {
			return nil, err
		}
		opts.Interceptors = append(opts.Interceptors, ti)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		addr := opts.HostPort
		if addr == "" {
			addr = client.DefaultHostPort
		}
		// The SDK's error names the address only; the API key never appears in it.
		return nil, i18n.Errorf(o.Lang, "connect to Temporal at %s (TEMPORAL_ADDRESS): %w", addr, err)
	}
	return c, nil
}

// DialOptions configure Dial.
type DialOptions struct {
	Getenv func(string) string // reads the TEMPORAL_* variables
	Logger *slog.Logger        // receives the SDK's warnings and errors
	Tracer trace.Tracer        // nil traces nothing
	Lang   i18n.Lang           // of the errors
}

// lookup reads the environment through getenv.
type lookup func(string) string

func (l lookup) Environ() []string { return nil }

func (l lookup) LookupEnv(key string) (string, bool) {
	v := l(key)
	return v, v != ""
}

// warnOnly passes on records at warning level and above: the SDK logs every poll at info.
type warnOnly struct{ slog.Handler }

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnOnly) WithAttrs(as []slog.Attr) slog.Handler { return warnOnly{w.Handler.WithAttrs(as)} }

func (w warnOnly) WithGroup(name string) slog.Handler { return warnOnly{w.Handler.WithGroup(name)} }

// Tracing is Temporal's OpenTelemetry interceptor over tracer, for clients and workers.
func Tracing(tracer trace.Tracer) (interceptor.Interceptor, error) {
	ti, err := topentelemetry.NewTracingInterceptor(topentelemetry.TracerOptions{Tracer: tracer})
	if err != nil {
		return nil, fmt.Errorf("temporal tracing: %w", err)
	}
	return ti, nil
}
