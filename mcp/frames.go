package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/i18n"
)

// Limits of a JSON-RPC frame a client sends.
const (
	// DefaultMaxFrame is the default cap on one frame: a line on stdio, a request body over
	// HTTP (seam mcp --max-frame overrides it).
	DefaultMaxFrame = 16 << 20
	// MaxFrameDepth is how deeply a frame's JSON may nest.
	MaxFrameDepth = 1000
)

// StdioTransport serves MCP over newline-delimited JSON-RPC frames, as the SDK's
// IOTransport does, but one bad frame fails only itself: a line that is not JSON gets a
// -32700 parse error, one that is not a JSON-RPC 2.0 request (a batch, "jsonrpc":"1.0", an
// object id, nesting deeper than MaxFrameDepth, a line longer than MaxFrame) a -32600
// invalid request, answered here with id null unless the frame had a usable id; the
// connection goes on with the next line. Good frames go to the SDK. (The SDK's own
// connection ends at the first frame it cannot decode, and the server with it.)
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxFrame caps a line in bytes, its newline excluded; 0 is DefaultMaxFrame.
	MaxFrame int
	// Lang is the language of the errors' messages: "en" or "ja".
	Lang i18n.Lang
}

// Connect starts reading frames.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	max := t.MaxFrame
	if max <= 0 {
		max = DefaultMaxFrame
	}
	c := &frameConn{w: t.Writer, lang: t.Lang, msgs: make(chan jsonrpc.Message), closed: make(chan struct{})}
	go c.readLoop(newFrameReader(t.Reader, max))
	return c, nil
}

// frameConn is the connection StdioTransport makes.
type frameConn struct {
	lang i18n.Lang
	wmu  sync.Mutex // frames are written whole, by the SDK and the reader alike
	w    io.Writer

	msgs      chan jsonrpc.Message // good frames, in order
	closed    chan struct{}
	closeOnce sync.Once
	readErr   error // why reading ended, when it ended the connection; set only before closed is
}

// readLoop reads frames until the reader ends or the connection is closed. It may stay
// blocked in a read of stdin after Close, as the SDK's does: stdin cannot be interrupted.
func (c *frameConn) readLoop(fr *frameReader) {
	for {
		line, err := fr.next()
		var msg jsonrpc.Message
		switch {
		case errors.Is(err, errFrameTooLong):
			err = c.writeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				msgf("invalid request: the frame is longer than %d bytes (seam mcp --max-frame raises the limit)", fr.max))
		case err != nil:
		default:
			var bad *frameError
			msg, bad = checkFrame(line)
			if bad != nil {
				err = c.writeError(bad.id, bad.code, bad.msg)
			}
		}
		if err != nil {
			c.closeOnce.Do(func() {
				c.readErr = err
				close(c.closed)
			})
			return
		}
		if msg == nil {
			continue
		}
		select {
		case c.msgs <- msg:
		case <-c.closed:
			return
		}
	}
}

// Read returns the next good frame.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.msgs:
		return m, nil
	case <-c.closed:
		if c.readErr != nil {
			return nil, c.readErr
		}
		return nil, io.EOF
	}
}

// Write writes msg as one line.
func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp stdio: encode a message: %w", err)
	}
	return c.writeLine(b)
}

func (c *frameConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcp stdio: write: %w", err)
	}
	return nil
}

// writeError answers a bad frame. The SDK's encoder leaves out a null id, which JSON-RPC
// requires in these answers, so they are written here.
func (c *frameConn) writeError(id jsonrpc.ID, code int64, msg message) error {
	b, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: msg.text(c.lang)}})
	if err != nil {
		return fmt.Errorf("mcp stdio: encode an error: %w", err)
	}
	return c.writeLine(b)
}

// Close ends the connection; Read returns io.EOF (or the read error) from then on.
func (c *frameConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: a stdio connection is the only session.
func (c *frameConn) SessionID() string { return "" }

// errFrameTooLong is a line longer than the frame cap; the reader skipped it to its end.
var errFrameTooLong = errors.New("frame too long")

// frameReader splits a stream into lines of at most max bytes (newline and a CR before it
// excluded), holding no more than that in memory: a longer line is skipped to its end and
// reported as errFrameTooLong, and the next call reads the line after it.
type frameReader struct {
	r   *bufio.Reader
	max int
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line, io.EOF at the end of the stream, or errFrameTooLong.
func (f *frameReader) next() ([]byte, error) {
	var (
		line    []byte
		tooLong bool
	)
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			// The newline and a CR before it do not count; a line exactly at the cap
			// may hold both.
			if len(line) > f.max+2 || len(bytes.TrimRight(line, "\r\n")) > f.max {
				line, tooLong = nil, true
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil, errors.Is(err, io.EOF) && (tooLong || len(line) > 0):
			if tooLong {
				return nil, errFrameTooLong
			}
			return bytes.TrimRight(line, "\r\n"), nil
		default:
			return nil, err
		}
	}
}

// frameError is a bad frame's answer.
type frameError struct {
	id   jsonrpc.ID // zero: null
	code int64
	msg  message
}

// checkFrame decodes a line: the message, nil for a blank line, or the error to answer.
func checkFrame(line []byte) (jsonrpc.Message, *frameError) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	invalid := func(id jsonrpc.ID, m message) (jsonrpc.Message, *frameError) {
		return nil, &frameError{id: id, code: jsonrpc.CodeInvalidRequest, msg: m}
	}
	// Before parsing: the depth check is linear and needs no stack.
	if jsonDepth(line) > MaxFrameDepth {
		return invalid(jsonrpc.ID{}, msgf("invalid request: the frame nests deeper than %d levels", MaxFrameDepth))
	}
	if !json.Valid(line) {
		err := json.Unmarshal(line, new(json.RawMessage)) // says why
		return nil, &frameError{code: jsonrpc.CodeParseError, msg: msgf("parse error: the frame is not JSON: %v", err)}
	}
	switch line[0] {
	case '{':
	case '[':
		return invalid(jsonrpc.ID{}, msgf("invalid request: batches are not supported; send one JSON-RPC request per line"))
	default:
		return invalid(jsonrpc.ID{}, msgf("invalid request: want a JSON-RPC 2.0 request object"))
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(line, &fields) // a valid JSON object
	var id jsonrpc.ID
	if raw, ok := fields["id"]; ok {
		var v any
		_ = json.Unmarshal(raw, &v) // valid JSON: checked above
		switch v := v.(type) {
		case nil, string:
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return invalid(id, msgf("invalid request: id must be a string, an integer or null"))
			}
		default:
			return invalid(id, msgf("invalid request: id must be a string, an integer or null"))
		}
		id, _ = jsonrpc.MakeID(v) // one of MakeID's types
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return invalid(id, msgf(`invalid request: "jsonrpc" must be "2.0"`))
	}
	if raw, ok := fields["method"]; ok {
		var method string
		if json.Unmarshal(raw, &method) != nil {
			return invalid(id, msgf("invalid request: method must be a string"))
		}
	}
	if raw, ok := fields["params"]; ok {
		if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' && b[0] != '[' && !bytes.Equal(b, []byte("null")) {
			return invalid(id, msgf("invalid request: params must be an object or an array"))
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return invalid(id, msgf("invalid request: %v", err))
	}
	return msg, nil
}

// jsonDepth is how deeply data's arrays and objects nest, strings skipped; it is meaningful
// for JSON and harmless for anything else.
func jsonDepth(data []byte) int {
	var depth, deepest int
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}
