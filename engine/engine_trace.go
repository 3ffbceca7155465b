package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/dag"
)

// Tracing: a run is a seam.run span, each node a seam.node span under it, each attempt a
// seam.attempt span under its node. Every span is started and ended on the scheduler
// goroutine; a node type runs in its attempt's context, and processes get the attempt's W3C
// trace context as TRACEPARENT and TRACESTATE. Nothing is traced when RunOptions.Tracer is nil.
//
// Pure nodes (nodes.Pure: const, transform) cost the engine a few µs, less than their two
// spans would, and start no process and send no request that could continue the trace. So a
// pure node gets its spans only when it has something to tell: from its first attempt that
// failed, broke its contract or was canceled on (opened then, with the times they had), or
// when it settles other than passed. Pure nodes that simply passed are listed instead on one
// seam.pure span per batch of up to pureBatchMax, under the run's span.

// tracer traces a run and measures it, each when asked to (RunOptions.Tracer, Metrics). It
// belongs to the scheduler goroutine.
type tracer struct {
	tr      trace.Tracer // nil: the run is not traced
	metrics *Metrics     // nil: the run is not measured
	d       *dag.DAG
	res     *dag.RunResult // the run's state, which the spans and measures report
	// The run's span, and each node's once started.
	runSpan   trace.Span
	nodeSpans []trace.Span
	pureBatch pureBatch
}

// pure reports whether node i is of a pure type.
func (t *tracer) pure(i int32) bool { return pureNode(t.d.Nodes[i]) }

// pureBatchMax bounds the node ids on one seam.pure span.
const pureBatchMax = 64

// pureBatch is the pure nodes that passed and are not on a seam.pure span yet.
type pureBatch struct {
	ids        []string
	start, end time.Time
}

// maxAttrLen bounds the strings put in attributes and events: reasons can quote outputs.
const maxAttrLen = 256

// Metrics are the engine's instruments. Build them once with NewMetrics and share them
// between runs.
type Metrics struct {
	nodeDuration metric.Float64Histogram
	attempts     metric.Int64Counter
	violations   metric.Int64Counter
	runs         metric.Int64Counter
}

// NewMetrics creates the engine's instruments with meter.
func NewMetrics(meter metric.Meter) (*Metrics, error) {
	var m Metrics
	var err error
	if m.nodeDuration, err = meter.Float64Histogram("seam.node.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a node's first attempt to its final status, by node type and status.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.attempts, err = meter.Int64Counter("seam.node.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Node attempts, by node type and the attempt's outcome.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.violations, err = meter.Int64Counter("seam.contract.violations", metric.WithUnit("{violation}"),
		metric.WithDescription("Contract violations found in node outputs, by node type.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.runs, err = meter.Int64Counter("seam.runs", metric.WithUnit("{run}"),
		metric.WithDescription("Finished runs, by status.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return &m, nil
}

// startRun starts the run's span; the returned context carries it.
func (t *tracer) startRun(ctx context.Context, params map[string]any) context.Context {
	if t.tr == nil {
		return ctx
	}
	b, _ := json.Marshal(params) // decoded JSON always encodes
	sum := sha256.Sum256(b)
	ctx, t.runSpan = t.tr.Start(ctx, "seam.run", trace.WithTimestamp(t.res.Started), trace.WithAttributes(
		attribute.String("seam.dag", t.d.Name),
		attribute.String("seam.file", t.d.File),
		attribute.String("seam.run_id", t.res.ID),
		attribute.String("seam.params_hash", hex.EncodeToString(sum[:8])),
	))
	t.nodeSpans = make([]trace.Span, len(t.d.Nodes))
	return ctx
}

// addPure puts node i, which passed without a span of its own, on the pending seam.pure span.
func (t *tracer) addPure(i int32, start, end time.Time) {
	b := &t.pureBatch
	if len(b.ids) == 0 || start.Before(b.start) {
		b.start = start
	}
	if len(b.ids) == 0 || end.After(b.end) {
		b.end = end
	}
	b.ids = append(b.ids, clip(t.d.Nodes[i].ID))
	if len(b.ids) == pureBatchMax {
		t.flushPure()
	}
}

// flushPure ends the pending seam.pure span, if any: from the first of its nodes' starts to
// the last of their ends.
func (t *tracer) flushPure() {
	b := &t.pureBatch
	if len(b.ids) == 0 {
		return
	}
	_, span := t.tr.Start(trace.ContextWithSpan(context.Background(), t.runSpan), "seam.pure",
		trace.WithTimestamp(b.start), trace.WithAttributes(
			attribute.StringSlice("seam.nodes", b.ids), // copied: b.ids is reused
			attribute.Int("seam.node_count", len(b.ids)),
		))
	span.End(trace.WithTimestamp(b.end))
	b.ids = b.ids[:0]
}

// endRun ends the run's span with the run's status, and counts the run.
func (t *tracer) endRun(ctx context.Context) {
	res := t.res
	if m := t.metrics; m != nil {
		m.runs.Add(ctx, 1, metric.WithAttributes(attribute.String("seam.status", string(res.Status))))
	}
	if t.runSpan == nil {
		return
	}
	t.flushPure()
	t.runSpan.SetAttributes(attribute.String("seam.status", string(res.Status)))
	if res.Status == dag.RunFailed || res.Status == dag.RunCanceled {
		msg := "the run " + string(res.Status)
		if res.Error != "" {
			msg = res.Error
		}
		t.runSpan.SetStatus(codes.Error, clip(msg))
	}
	t.runSpan.End(trace.WithTimestamp(res.Ended))
}

// startNode starts node i's span when the node starts, unless it is pure (see above). The
// pure nodes that passed so far are flushed first, so that a seam.pure span does not stretch
// over the nodes that start after it.
func (t *tracer) startNode(ctx context.Context, i int32, at time.Time) {
	if t.runSpan == nil || t.pure(i) {
		return
	}
	t.flushPure()
	t.openNode(ctx, i, at)
}

// openNode starts node i's span at at, unless it has one.
func (t *tracer) openNode(ctx context.Context, i int32, at time.Time) {
	if t.nodeSpans[i] != nil {
		return
	}
	node := t.d.Nodes[i]
	_, t.nodeSpans[i] = t.tr.Start(trace.ContextWithSpan(ctx, t.runSpan), "seam.node",
		trace.WithTimestamp(at), trace.WithAttributes(
			attribute.String("seam.node", node.ID),
			attribute.String("seam.node_type", node.Type.Name()),
		))
}

// endNode ends node i's span with its final state, and measures the node.
func (t *tracer) endNode(i int32) {
	nr := &t.res.Nodes[i]
	if m := t.metrics; m != nil && !nr.Started.IsZero() {
		m.nodeDuration.Record(context.Background(), nr.Elapsed.Seconds(), metric.WithAttributes(
			attribute.String("seam.node_type", nr.Type), attribute.String("seam.status", string(nr.Status))))
	}
	if t.runSpan == nil {
		return
	}
	start := nr.Started
	if start.IsZero() {
		start = nr.Ended
	}
	if t.nodeSpans[i] == nil && nr.Status == dag.NodePassed && t.pure(i) {
		t.addPure(i, start, nr.Ended)
		return
	}
	t.openNode(context.Background(), i, start)
	span := t.nodeSpans[i]
	span.SetAttributes(
		attribute.String("seam.status", string(nr.Status)),
		attribute.Int("seam.attempts", nr.Attempts),
	)
	if nr.Repaired {
		span.AddEvent("contract.repaired", trace.WithTimestamp(nr.Ended))
	}
	switch nr.Status {
	case dag.NodeSkipped:
		span.SetAttributes(attribute.String("seam.skipped_reason", clip(nr.Reason)))
	case dag.NodeFailed, dag.NodeCanceled:
		span.SetStatus(codes.Error, clip(nr.Reason))
	}
	span.End(trace.WithTimestamp(nr.Ended))
}

// startAttempt starts the span of u's next attempt and returns the context the attempt runs
// in, and the trace context for processes it starts.
func (t *tracer) startAttempt(ctx context.Context, u *unit) (context.Context, []string) {
	if t.runSpan == nil {
		return ctx, nil
	}
	i := u.nr.idx
	if t.pure(i) {
		return ctx, nil // its span, if it gets one, is opened when it ends: endAttempt
	}
	t.startNode(ctx, i, time.Now())
	ctx, u.span = t.tr.Start(trace.ContextWithSpan(ctx, t.nodeSpans[i]), "seam.attempt",
		trace.WithAttributes(attemptAttrs(u)...))
	return ctx, traceEnv(u.span.SpanContext())
}

// attemptAttrs are the attributes an attempt's span starts with.
func attemptAttrs(u *unit) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.Int("seam.attempt", u.attempts)}
	if u.item >= 0 {
		attrs = append(attrs, attribute.Int("seam.item", u.item))
	}
	return attrs
}

// traceEnv is sc as W3C trace context in a process's environment: TRACEPARENT, and
// TRACESTATE when there is one. It is what propagation.TraceContext writes, formatted
// directly: the propagator's map and key handling cost more than the span itself.
func traceEnv(sc trace.SpanContext) []string {
	if !sc.IsValid() {
		return nil
	}
	flags := sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom) // the flags the W3C spec defines
	env := []string{"TRACEPARENT=00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + flags.String()}
	if ts := sc.TraceState().String(); ts != "" {
		env = append(env, "TRACESTATE="+ts)
	}
	return env
}

// endAttempt ends attempt a's span: its outcome, its error, an event per violation (the
// value stays out: it may be large or sensitive), and counts it.
func (t *tracer) endAttempt(a attempt, status dag.NodeStatus) {
	u := a.u
	node := t.d.Nodes[u.nr.idx]
	if m := t.metrics; m != nil {
		typ := attribute.String("seam.node_type", node.Type.Name())
		m.attempts.Add(context.Background(), 1, metric.WithAttributes(typ, attribute.String("seam.status", string(status))))
		if len(a.violations) > 0 {
			m.violations.Add(context.Background(), int64(len(a.violations)), metric.WithAttributes(typ))
		}
	}
	if u.span == nil {
		// A pure node's attempt: it gets its span, and its node one, once the node has
		// something to tell.
		i := u.nr.idx
		if t.runSpan == nil || !t.pure(i) ||
			t.nodeSpans[i] == nil && status == dag.NodePassed && a.valid && len(a.violations) == 0 {
			return
		}
		t.openNode(context.Background(), i, t.res.Nodes[i].Started)
		_, u.span = t.tr.Start(trace.ContextWithSpan(context.Background(), t.nodeSpans[i]), "seam.attempt",
			trace.WithTimestamp(a.started), trace.WithAttributes(attemptAttrs(u)...))
	}
	span := u.span
	u.span = nil
	span.SetAttributes(attribute.String("seam.status", string(status)))
	for _, v := range a.violations {
		span.AddEvent("contract.violation", trace.WithTimestamp(a.ended), trace.WithAttributes(
			attribute.String("seam.pointer", v.Pointer),
			attribute.String("seam.keyword", v.Keyword),
			attribute.String("seam.message", clip(v.Message)),
		))
	}
	switch {
	case a.reason != "":
		span.SetAttributes(attribute.String("seam.error", clip(a.reason)))
		span.SetStatus(codes.Error, clip(a.reason))
	case a.canceled:
		span.SetStatus(codes.Error, "canceled")
	case !a.valid:
		span.SetStatus(codes.Error, "output breaks its contract")
	}
	span.End(trace.WithTimestamp(a.ended))
}

// clip bounds s for an attribute.
func clip(s string) string {
	if len(s) <= maxAttrLen {
		return s
	}
	cut := maxAttrLen
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// approval traces the question an answer closes: a seam.approval span under the run's, from
// when node i's question opened to when the answer was given (in another process, often
// long before this one resumed the run), saying who decided what through which channel;
// never the answer's fields, which are the person's and may be sensitive.
func (t *tracer) approval(i int32, ans *dag.ApprovalRecord) {
	if t.runSpan == nil || ans.Opened.IsZero() {
		return
	}
	decision, _ := ans.Answer["decision"].(string)
	_, span := t.tr.Start(trace.ContextWithSpan(context.Background(), t.runSpan), "seam.approval",
		trace.WithTimestamp(ans.Opened), trace.WithAttributes(
			attribute.String("seam.run_id", t.res.ID),
			attribute.String("seam.node", t.d.Nodes[i].ID),
			attribute.String("seam.decision", clip(decision)),
			attribute.String("seam.through", ans.Through),
			attribute.Int("seam.round", max(ans.Round, 1)),
			attribute.String("seam.evidence_hash", ans.EvidenceHash),
		))
	end := ans.At
	if end.Before(ans.Opened) {
		end = ans.Opened // a clock that moved back between the two processes
	}
	span.End(trace.WithTimestamp(end))
}
