package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/i18n"
)

// recoverPanics is the server's outermost receiving middleware: a panic while handling one
// request (a tool, a resource, anything the SDK dispatches to seam's handlers) becomes that
// request's failure, with the stack in the log, and the server goes on serving every client.
// A tool call gets the envelope (code internal), as any failing tool does; other requests
// get a JSON-RPC internal error.
func recoverPanics(log *slog.Logger, lang i18n.Lang) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				what := method
				if c, ok := req.(*sdk.CallToolRequest); ok && c.Params != nil {
					what = "tool " + c.Params.Name
				}
				log.Error("mcp: panic in a request handler; the request failed, the server goes on",
					"method", method, "handler", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				te := internalError(what, p)
				if method != "tools/call" {
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: te.msg.text(lang)}
					return
				}
				res, err = envelopeResult(lang, what, te)
			}()
			return next(ctx, method, req)
		}
	}
}

// envelopeResult is a tool call's failure te as the envelope, outside the tool's handler.
func envelopeResult(lang i18n.Lang, what string, te *toolError) (*sdk.CallToolResult, error) {
	r, env := respond(lang, false, message{}, nil, te)
	b, err := json.Marshal(env)
	if err != nil { // the envelope holds only strings: never
		return nil, fmt.Errorf("%s: marshal the answer: %w", what, err)
	}
	r.StructuredContent = json.RawMessage(b)
	r.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
	return r, nil
}

// internalError is the failure a panic in what becomes.
func internalError(what string, p any) *toolError {
	return &toolError{code: CodeInternal, msg: msgf("internal error in %s: %v (the server logged the stack and goes on serving)", what, fmt.Sprint(p))}
}
