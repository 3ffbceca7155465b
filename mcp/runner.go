package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

// Why a run this server started was canceled; the engine records the run as canceled.
var (
	errCanceledByClient = errors.New("canceled by cancel_run")
	errServerClosing    = errors.New("the MCP server is shutting down")
	errRunPanicked      = errors.New("the run panicked")
)

// runner tracks the runs this server started that are still going, so that cancel_run can
// stop them (whichever session asks) and Close can wait until each is recorded.
type runner struct {
	log    *slog.Logger
	mu     sync.Mutex
	active map[string]context.CancelCauseFunc
	closed bool
	wg     sync.WaitGroup
}

func newRunner(log *slog.Logger) *runner {
	return &runner{log: log, active: map[string]context.CancelCauseFunc{}}
}

// start runs fn on a goroutine of its own under id, with a context derived from ctx that
// cancel_run and close cancel. It returns false, without running fn, once close was called.
// A panic in fn must not take the server down with every other run: it is logged with its
// stack and handed to crashed, which records the run as failed; the run counts as going
// until crashed has returned.
func (r *runner) start(ctx context.Context, id string, fn func(ctx context.Context), crashed func(ctx context.Context, p any)) bool {
	ctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		cancel(errServerClosing)
		return false
	}
	r.active[id] = cancel
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.active, id)
			r.mu.Unlock()
			cancel(nil)
		}()
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("mcp: panic in a run; the run is recorded failed, the server goes on",
					"run", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				cancel(errRunPanicked) // what the run started must stop
				crashed(context.WithoutCancel(ctx), p)
			}
		}()
		fn(ctx)
	}()
	return true
}

// cancel cancels the run id; false when this server is not running it.
func (r *runner) cancel(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.active[id]
	if ok {
		c(errCanceledByClient)
	}
	return ok
}

// running reports whether this server is running the run id.
func (r *runner) running(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.active[id]
	return ok
}

// close cancels every run still going and waits for them to return.
func (r *runner) close() {
	r.mu.Lock()
	r.closed = true
	for _, c := range r.active {
		c(errServerClosing)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// began wraps a run's recorder to tell when the run is in the store: run_dag without wait
// returns then, so that get_run finds the run at once.
type began struct {
	dag.Recorder
	ch chan struct{}
}

func (b *began) BeginRun(ctx context.Context, run dag.RunRecord) error {
	if err := b.Recorder.BeginRun(ctx, run); err != nil {
		return err
	}
	close(b.ch)
	return nil
}

// Sub records the sub-runs of dag nodes as the wrapped recorder does, if it does.
func (b *began) Sub(d *dag.DAG) dag.Recorder {
	if sr, ok := b.Recorder.(dag.SubRecorder); ok {
		return sr.Sub(d)
	}
	return nil
}

// progressQueue is how many notifications wait for a slow client; past it steps are dropped
// (the next one carries the count), since the engine must never wait for a client.
const progressQueue = 256

// progress sends a client progress notifications for a run it waits on: one per finished
// node, and one per finished foreach item.
type progress struct {
	total    int
	lang     i18n.Lang // of the notifications' messages
	finished int
	last     float64
	ch       chan *sdk.ProgressNotificationParams
	done     chan struct{}
}

// newProgress starts sending req's progress notifications, their messages in lang; it returns
// nil when the client asked for none. Call stop before answering, so that every notification
// precedes the answer.
func newProgress(ctx context.Context, req *sdk.CallToolRequest, total int, lang i18n.Lang) *progress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	p := &progress{total: total, lang: lang, ch: make(chan *sdk.ProgressNotificationParams, progressQueue), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for n := range p.ch {
			n.ProgressToken = token
			// A client that went away only loses its progress; the run goes on.
			_ = req.Session.NotifyProgress(ctx, n)
		}
	}()
	return p
}

// Event is called on the engine's scheduler goroutine: it never blocks.
func (p *progress) Event(e engine.Event) {
	var msg message
	at := float64(p.finished)
	switch e.Kind {
	case engine.NodeFinished:
		p.finished++
		at = float64(p.finished)
		msg = msgf("%s %s (%d/%d nodes)", e.Node.ID, e.Node.Status, p.finished, p.total)
		if why := e.Node.Reason; why != "" {
			msg = msgf("%s %s (%d/%d nodes): %s", e.Node.ID, e.Node.Status, p.finished, p.total, why)
		}
	case engine.NodeProgress:
		if e.Node.Items == 0 {
			return
		}
		at += float64(e.Node.ItemsDone) / float64(e.Node.Items+1) // stays below the node's finish
		msg = msgf("%s: %d/%d items", e.Node.ID, e.Node.ItemsDone, e.Node.Items)
	default:
		return
	}
	if at <= p.last { // progress must grow: parallel foreach nodes may report less
		return
	}
	p.last = at
	select {
	case p.ch <- &sdk.ProgressNotificationParams{Progress: at, Total: float64(p.total), Message: msg.text(p.lang)}:
	default:
	}
}

// stop waits until the notifications queued are sent.
func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.ch)
	<-p.done
}
