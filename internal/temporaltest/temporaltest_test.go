package temporaltest

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
)

// TestServer dials the server with the SDK seam's engine uses: it answers health checks and
// has the namespace the tests run in.
func TestServer(t *testing.T) {
	addr := Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: "default"})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		t.Fatalf("check health of %s: %v", addr, err)
	}
	nc, err := client.NewNamespaceClient(client.Options{HostPort: addr})
	if err != nil {
		t.Fatalf("namespace client for %s: %v", addr, err)
	}
	defer nc.Close()
	ns, err := nc.Describe(ctx, "default")
	if err != nil {
		t.Fatalf("describe namespace default on %s: %v", addr, err)
	}
	if got := ns.GetNamespaceInfo().GetName(); got != "default" {
		t.Errorf("namespace default on %s describes itself as %q", addr, got)
	}
}

// TestCLI runs the CLI the server was started with: it is the pinned build. Built with go
// install, the CLI 1.5.1 calls itself 0.0.0-DEV, so the server it embeds names the pin.
func TestCLI(t *testing.T) {
	cli := CLI(t)
	out, err := exec.Command(cli, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", cli, err, out)
	}
	if !strings.Contains(string(out), "(Server 1.29.1,") {
		t.Errorf("%s --version = %q, want the CLI 1.5.1, which embeds Server 1.29.1", cli, out)
	}
}
