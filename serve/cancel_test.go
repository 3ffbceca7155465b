package serve

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestServeCancelElsewhere: the run page offers Cancel only for a run this server's service
// reaches; for a run another process or Temporal runs it says who runs it and where to stop
// it, and a cancel posted from an old page answers 409 saying why.
func TestServeCancelElsewhere(t *testing.T) {
	f := newFixture(t, Options{})
	here := f.start("slow.yaml", nil, false)
	t.Cleanup(func() { _ = f.svc.Cancel(t.Context(), here) })
	record := func(id string, pid int, host string) string {
		run := runs.Run{ID: id, DAG: "broken", File: filepath.Join(f.root, "broken.yaml"), Status: dag.RunRunning,
			Started: time.Now(), PID: pid, Host: host, LeaseOwner: host + "/42/ab", LeaseUntil: time.Now().Add(time.Hour)}
		if err := f.st.CreateRun(t.Context(), run); err != nil {
			t.Fatal(err)
		}
		return id
	}
	tests := []struct {
		name, id string
		cancel   bool   // the page offers Cancel
		says     string // what the page says instead
		lang     string
	}{
		{"run by this server", here, true, "", "en"},
		{"run by a process on another host", record("20260101T000000.000-e15e0001", 42, "another-host"), false,
			"Another process runs this run (pid 42 on another-host): this server cannot cancel it; stop that process (Ctrl-C where it runs).", "en"},
		{"the same, in Japanese", "20260101T000000.000-e15e0001", false,
			"この実行は別のプロセス（another-host の pid 42）が実行しています: このサーバーからはキャンセルできません。", "ja"},
		{"run on Temporal, not reached", record("20260101T000000.000-e15e0002", -1, runs.HostTemporal), false,
			"This run runs on Temporal, which this server does not reach: cancel it with seam runs cancel 20260101T000000.000-e15e0002, from any machine that reaches Temporal.", "en"},
	}
	c := jarClient(t, f)
	_, page := f.get(c, "/login")
	csrf := csrfOf(t, page)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, f.http.URL+"/runs/"+tt.id, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Language", tt.lang)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			if got := strings.Contains(body, `id="cancel"`); got != tt.cancel {
				t.Errorf("the page offers Cancel: %v, want %v", got, tt.cancel)
			}
			if tt.says == "" {
				if strings.Contains(body, `id="run-elsewhere"`) {
					t.Errorf("the page of a run this server runs says another runs it:\n%s", body)
				}
				return
			}
			if !strings.Contains(body, tt.says) {
				t.Errorf("the page does not say %q:\n%s", tt.says, body)
			}
			if tt.lang != "en" {
				return
			}
			resp, body = post(t, c, f.http.URL+"/runs/"+tt.id+"/cancel", url.Values{"csrf": {csrf}})
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "is recorded as running but not by this process") {
				t.Errorf("POST cancel: %d, want 409 saying another process runs it:\n%s", resp.StatusCode, body)
			}
		})
	}
}
