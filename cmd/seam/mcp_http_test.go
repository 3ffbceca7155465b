package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpTestToken = "cli-tok-58d1e2b0-never-shown"

// TestMCPHTTPRefuses checks that `seam mcp --http` refuses to start, with exit 2 and a
// clear message, off loopback without SEAM_MCP_TOKEN or on an unusable address, and that
// the token never shows in what it prints.
func TestMCPHTTPRefuses(t *testing.T) {
	tests := []struct {
		name  string
		addr  string
		token string
		want  string
	}{
		{"all interfaces without token", "0.0.0.0:8765", "", `seam: mcp --http: listen address "0.0.0.0:8765" is not loopback: set SEAM_MCP_TOKEN to a bearer token clients must send, or listen on 127.0.0.1`},
		{"empty host without token", ":8765", "", `listen address ":8765" is not loopback: set SEAM_MCP_TOKEN`},
		{"blank token", "192.0.2.1:8765", "   ", `listen address "192.0.2.1:8765" is not loopback: set SEAM_MCP_TOKEN`},
		{"no port", "127.0.0.1", mcpTestToken, `seam: mcp --http: listen address "127.0.0.1": want HOST:PORT, e.g. 127.0.0.1:8765`},
		{"address not here", "192.0.2.1:8765", mcpTestToken, "seam: mcp --http: listen tcp 192.0.2.1:8765:"},
		{"short token off loopback", "192.0.2.1:8765", "short-tok", "seam: mcp --http: SEAM_MCP_TOKEN is 9 characters long: a token needs at least 16, e.g. one that openssl rand -hex 24 draws"},
		{"short token on loopback", "127.0.0.1:0", "short-tok", "SEAM_MCP_TOKEN is 9 characters long: a token needs at least 16"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			getenv := func(k string) string {
				if k == "SEAM_MCP_TOKEN" {
					return tc.token
				}
				return ""
			}
			args := []string{"mcp", "--http", tc.addr, "--root", t.TempDir(), "--store", filepath.Join(t.TempDir(), "s.db")}
			code := run(args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tc.want)
			}
			if tok := strings.TrimSpace(tc.token); tok != "" && strings.Contains(stderr.String()+stdout.String(), tok) {
				t.Errorf("the token is shown: %q", stderr.String())
			}
		})
	}
}

// bearerTransport adds the bearer token to every request of the client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTPCommand runs `seam mcp --http 127.0.0.1:0` with SEAM_MCP_TOKEN set: a real
// client reads the endpoint from stderr, connects with the token, lists the tools and runs
// a DAG; a request without the token gets 401; cancelling the context (as SIGINT does)
// stops the server cleanly.
func TestMCPHTTPCommand(t *testing.T) {
	dir := t.TempDir()
	dagFile := "version: 1\nname: one\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: done}}\n"
	if err := os.WriteFile(filepath.Join(dir, "one.yaml"), []byte(dagFile), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		switch k {
		case "SEAM_LANG":
			return "en"
		case "SEAM_MCP_TOKEN":
			return mcpTestToken
		}
		return ""
	}
	errR, errW := io.Pipe()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: errW, getenv: getenv}
	cmd := newRootCmd(e)
	cmd.SetArgs([]string{"mcp", "--http", "127.0.0.1:0", "--root", dir, "--store", filepath.Join(dir, "runs.db")})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(ctx)
		errW.Close()
	}()

	lines := make(chan string, 16)
	var stderr strings.Builder
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	var first string
	select {
	case first = <-lines:
	case err := <-done:
		t.Fatalf("seam mcp --http stopped: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no endpoint announced on stderr")
	}
	m := regexp.MustCompile(`^seam mcp: serving streamable HTTP at (http://127\.0\.0\.1:\d+/mcp) \(bearer token from SEAM_MCP_TOKEN required\)$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("stderr line %q does not announce the endpoint", first)
	}
	url := m[1]

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("without the token: status %d, WWW-Authenticate %q; want 401 and a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{mcpTestToken}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	if len(tools.Tools) == 0 {
		t.Error("no tools over HTTP")
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "run_dag", Arguments: map[string]any{"path": "one.yaml", "wait": true}})
	if err != nil {
		t.Fatalf("run_dag: %v", err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; res.IsError || !strings.Contains(text, "of one: success") {
		t.Errorf("run_dag over HTTP: %s", text)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("seam mcp --http after cancel: %v", err)
		}
	case <-time.After(mcpShutdownGrace + 5*time.Second):
		t.Fatal("seam mcp --http did not stop after the context was cancelled")
	}
	<-drained
	if strings.Contains(stderr.String(), mcpTestToken) {
		t.Errorf("stderr shows the token: %q", stderr.String())
	}
}
