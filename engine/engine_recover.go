package engine

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// internalError is a panic recovered where seam runs code acting on a node's data (its type,
// validation, templates, the store): it fails that node, or that step, never the process.
type internalError struct {
	msg string // "internal error in <what>: <panic value>" in the run's language, secrets masked
}

func (e *internalError) Error() string { return e.msg }

// guard turns panics into internalErrors. It is immutable, so workers share it.
type guard struct {
	log *slog.Logger
	// secrets are masked in the panic value, which may quote a node's data.
	secrets []string
	lang    i18n.Lang // of the reason
}

// call calls f; a panic in it comes back as an *internalError naming what panicked.
func (g guard) call(what string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = g.recovered(what, p)
		}
	}()
	f()
	return nil
}

// recovered makes an *internalError of p, a value recover returned while in what, and logs it
// with the stack: the reason says what failed, the log says where. Call it from the deferred
// function that recovered, so that the stack still holds the panic's frames.
func (g guard) recovered(what string, p any) error {
	value := nodes.MaskString(fmt.Sprint(p), g.secrets)
	g.log.Error("internal error in "+what+": "+value, "stack", nodes.MaskString(string(debug.Stack()), g.secrets))
	// The reason is stored with the node and shown in lists: the log has the whole value.
	if len(value) > maxPanicValue {
		value = strings.ToValidUTF8(value[:maxPanicValue], "") + "…"
	}
	return &internalError{msg: i18n.Sprintf(g.lang, "internal error in %s: %s", g.what(what), value)}
}

// what says in the run's language what was running when a panic was recovered: the places
// guard.call and recovered are given (the log keeps the English).
func (g guard) what(what string) string {
	switch what {
	case "run store":
		return i18n.Format(g.lang, "run store")
	case "when":
		return i18n.Format(g.lang, "when")
	case "with or input":
		return i18n.Format(g.lang, "with or input")
	case "foreach":
		return i18n.Format(g.lang, "foreach")
	case "output validation":
		return i18n.Format(g.lang, "output validation")
	case "secret masking":
		return i18n.Format(g.lang, "secret masking")
	case "observer":
		return i18n.Format(g.lang, "observer")
	}
	if name, ok := strings.CutPrefix(what, "node type "); ok {
		return i18n.Sprintf(g.lang, "node type %s", name)
	}
	if name, ok := strings.CutPrefix(what, "output "); ok {
		return i18n.Sprintf(g.lang, "output %s", name)
	}
	return what
}

// maxPanicValue bounds the bytes of a panic's value quoted in a node's reason.
const maxPanicValue = 500
