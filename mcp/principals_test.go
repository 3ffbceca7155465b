package mcp

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/i18n"
)

// principals is a principals file with one principal per role, as a Source.
func principals(t *testing.T) auth.Source {
	t.Helper()
	path := filepath.Join(t.TempDir(), "principals.yaml")
	body := "principals:\n"
	for _, p := range []struct{ name, role string }{{"grafana", "viewer"}, {"ci-bot", "operator"}, {"alice", "approver"}, {"root", "admin"}} {
		body += "  " + p.name + ": {token_sha256: \"" + auth.Hash(p.name+"-token-0123456789") + "\", roles: [" + p.role + "]}\n"
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	who, err := auth.Open(path, auth.FileOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	return who
}

// TestMCPPrincipalRoles connects a real client session per principal over streamable HTTP:
// each reads; run_dag needs operator, and a viewer's or an approver's call is refused with
// code forbidden and the role named, in English and in Japanese; a token not in the file
// opens no session.
func TestMCPPrincipalRoles(t *testing.T) {
	root := testRoot(t)
	who := principals(t)
	cases := []struct {
		name  string // principal, whose token is name-token-0123456789
		lang  i18n.Lang
		run   bool // run_dag allowed
		roles string
	}{
		{"grafana", i18n.English, false, "viewer"},
		{"alice", i18n.Japanese, false, "approver"},
		{"ci-bot", i18n.English, true, "operator"},
		{"root", i18n.English, true, "admin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, err := NewServer(Options{Root: root, Types: testTypes, Lang: c.lang, Local: auth.OS("nobody", nil), Store: tempStore(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{Principals: who}))
			defer ts.Close()
			cs, err := connectHTTP(t, t.Context(), ts.URL+HTTPPath, c.name+"-token-0123456789")
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if r := call(t, cs, "lint_dag", map[string]any{"path": "dags/lint-compatible.yaml"}); r.res.IsError {
				t.Errorf("lint_dag: %v", r.env)
			}
			r := call(t, cs, "run_dag", map[string]any{"path": "dags/hello.yaml", "wait": true})
			if c.run {
				if r.res.IsError {
					t.Fatalf("run_dag: %v", r.env)
				}
				// get_run says who started it: the token's principal, not the server's user.
				if got := call(t, cs, "get_run", map[string]any{"id": "latest"}); got.data()["started_by"] != c.name {
					t.Errorf("get_run: started_by = %v, want %s", got.data()["started_by"], c.name)
				}
				got := call(t, cs, "get_run", map[string]any{"id": "latest", "raw": true})
				if run, _ := got.data()["run"].(map[string]any); run["started_by"] != c.name {
					t.Errorf("get_run raw: started_by = %v, want %s", run["started_by"], c.name)
				}
				return
			}
			e, _ := r.env["error"].(map[string]any)
			details, _ := e["details"].(map[string]any)
			want := i18n.Sprintf(c.lang, "%s may not call %s: it needs the role %s (or admin), and %s has %s; an admin can add the role in the principals file",
				c.name, "run_dag", "operator", c.name, c.roles)
			if !r.res.IsError || e["code"] != CodeForbidden || details["role"] != "operator" || r.env["message"] != want {
				t.Errorf("run_dag by a %s: want forbidden naming operator, %q; got %v", c.roles, want, r.env)
			}
			if c.lang == i18n.Japanese && !strings.Contains(want, "ロール operator") {
				t.Errorf("the Japanese message: %q", want)
			}
		})
	}
	t.Run("unknown token", func(t *testing.T) {
		srv := newTestServer(t, root)
		ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{Principals: who}))
		defer ts.Close()
		if cs, err := connectHTTP(t, t.Context(), ts.URL+HTTPPath, "mallory-token-0123456789"); err == nil {
			cs.Close()
			t.Error("a session opened with a token no principal has")
		}
	})
}

// TestMCPToolRoles: every tool that changes something needs more than a viewer, and every
// read-only tool needs only a viewer: toolRole is kept in step with the annotations.
func TestMCPToolRoles(t *testing.T) {
	cs := connect(t, testRoot(t), false)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range append(tools.Tools, &sdk.Tool{Name: "create_workflow"}, &sdk.Tool{Name: "update_workflow"}) {
		readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if got := toolRole(tool.Name); readOnly != (got == auth.Viewer) {
			t.Errorf("%s: read-only %v, role %s", tool.Name, readOnly, got)
		}
	}
}

// TestMCPStdioPrincipal: without a transport that names someone, a call is Local's; a Local
// without a role is refused like anyone else.
func TestMCPStdioPrincipal(t *testing.T) {
	cs := connectWith(t, Options{Root: testRoot(t), Local: &auth.Principal{Name: "os:guest", Roles: []auth.Role{auth.Viewer}}})
	r := call(t, cs, "cancel_run", map[string]any{"run": "latest"})
	if msg, _ := r.env["message"].(string); !r.res.IsError || !strings.HasPrefix(msg, "os:guest may not call cancel_run: it needs the role operator") {
		t.Errorf("cancel_run by a viewer on stdio: %v", r.env)
	}
}
