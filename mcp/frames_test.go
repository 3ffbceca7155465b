package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestFrameReader checks where lines end and what the cap counts: a line of exactly max
// bytes passes (with \n or \r\n after it), one byte more is skipped to its end and
// reported, and the stream goes on after it; a last line needs no newline.
func TestFrameReader(t *testing.T) {
	const max = 8
	in := "12345678\n" + "12345678\r\n" + "123456789\n" + strings.Repeat("y", 100<<10) + "\n" + "\n" + "last"
	fr := newFrameReader(strings.NewReader(in), max)
	want := []string{"12345678", "12345678", "!", "!", "", "last"}
	for i, w := range want {
		line, err := fr.next()
		got := string(line)
		if errors.Is(err, errFrameTooLong) {
			got = "!"
		} else if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got != w {
			t.Errorf("line %d: %q, want %q", i, got, w)
		}
	}
	if _, err := fr.next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

// TestCheckFrame checks the frames that pass to the SDK and a blank line, which is skipped;
// the bad ones are in cmd/seam's TestMCPStdioBadFrames, through the process.
func TestCheckFrame(t *testing.T) {
	tests := []struct {
		frame  string
		method string // "" for a response
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "ping"},
		{`  {"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}  `, "tools/list"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, "notifications/initialized"},
		{`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping","params":[]}`, "ping"},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, ""},
	}
	for _, tc := range tests {
		msg, bad := checkFrame([]byte(tc.frame))
		if bad != nil {
			t.Errorf("%s: %s", tc.frame, bad.msg)
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.Method != tc.method {
				t.Errorf("%s: method %q", tc.frame, m.Method)
			}
		case *jsonrpc.Response:
			if tc.method != "" {
				t.Errorf("%s: a response", tc.frame)
			}
		default:
			t.Errorf("%s: %T", tc.frame, msg)
		}
	}
	if msg, bad := checkFrame([]byte(" \t\r")); msg != nil || bad != nil {
		t.Errorf("a blank line: %v, %v; want it skipped", msg, bad)
	}
}

// FuzzFrameReader feeds the stdio connection any stream: it must never panic, every good
// frame goes to Read, and everything it writes back is one JSON-RPC 2.0 error per line,
// -32700 or -32600.
func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"not json\n\x00\n[]\n[{}]\n42\n",
		`{"jsonrpc":"1.0","id":{"a":1},"method":7,"params":3}` + "\n",
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}` + "\r\n" + `{"jsonrpc":"2.0","id":"\"","method":"ping"}`,
		strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"` + strings.Repeat("b", 80) + `"}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		var out bytes.Buffer
		tr := &StdioTransport{Reader: bytes.NewReader(stream), Writer: &out, MaxFrame: 64, Lang: "en"}
		c, err := tr.Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := c.Read(t.Context())
			if err != nil {
				if err != io.EOF {
					t.Fatalf("read: %v", err)
				}
				break
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("a frame passed on does not encode: %v", err)
			}
		}
		c.Close()
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var rep struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil || rep.JSONRPC != "2.0" || rep.ID == nil || rep.Error == nil ||
				rep.Error.Code != jsonrpc.CodeParseError && rep.Error.Code != jsonrpc.CodeInvalidRequest || rep.Error.Message == "" {
				t.Fatalf("answer %s (%v)", sc.Bytes(), err)
			}
		}
	})
}
