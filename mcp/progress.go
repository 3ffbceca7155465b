package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

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
