package serve

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// TestSchedulesPages: /schedules lists each trigger with its DAG, kind, next times and
// pause; /schedules/{dag}/{trigger} shows its decisions (started with the run's link, skipped,
// missed, with why), and an operator pauses it with a note and resumes it there.
func TestSchedulesPages(t *testing.T) {
	f := hookFixture(t, false)
	ctx := context.Background()
	d, err := f.srv.files.Load(ctx, filepath.Join(f.root, "hooked.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	day := func(n int) time.Time { return time.Date(2026, 1, n, 2, 0, 0, 0, time.UTC) }
	fired, err := f.svc.Backfill(ctx, d, "nightly", day(1), day(1), time.Now())
	if err != nil || len(fired) != 1 {
		t.Fatalf("backfill: %v %v", fired, err)
	}
	fires := f.st.(runs.Fires)
	for _, fr := range []runs.Fire{
		{DAG: "hooked", Trigger: "nightly", Scheduled: day(2), Decision: runs.FireSkipped, At: day(2), Note: "1 run of the trigger is still going"},
		{DAG: "hooked", Trigger: "nightly", Scheduled: day(3), Decision: runs.FireMissed, At: day(3), Note: "seen 1h0m0s late, outside the 1m0s window"},
	} {
		if err := fires.RecordFire(ctx, fr); err != nil {
			t.Fatal(err)
		}
	}
	page := func(tok, path string) string {
		t.Helper()
		resp, body := bearerDo(t, f, http.MethodGet, path, tok, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, body)
		}
		return body
	}
	list := page(viewerTok, "/schedules")
	for _, want := range []string{`id="nav-schedules" class="here"`, `<a href="/schedules/hooked/nightly" class="trigger">nightly</a>`,
		"cron <code>0 2 * * *</code>", `<a href="/schedules/hooked/push" class="trigger">push</a>`, `webhook`} {
		if !strings.Contains(list, want) {
			t.Errorf("/schedules lacks %q:\n%s", want, list)
		}
	}
	if n := strings.Count(list, "T02:00:00Z</time>"); n != listedNext {
		t.Errorf("/schedules shows %d next times of nightly, want %d", n, listedNext)
	}
	one := page(viewerTok, "/schedules/hooked/nightly")
	for _, want := range []string{
		`<tr class="fire started"><td><time>2026-01-01T02:00:00Z</time></td><td>started</td><td><a href="/runs/` + fired[0].RunID + `">`,
		`<tr class="fire skipped"><td><time>2026-01-02T02:00:00Z</time></td><td>skipped</td><td></td><td>1 run of the trigger is still going</td>`,
		`<tr class="fire missed"><td><time>2026-01-03T02:00:00Z</time></td><td>missed</td><td></td><td>seen 1h0m0s late, outside the 1m0s window</td>`,
	} {
		if !strings.Contains(one, want) {
			t.Errorf("the trigger's page lacks %q:\n%s", want, one)
		}
	}
	if strings.Contains(one, `id="pause"`) {
		t.Errorf("a viewer is offered to pause")
	}
	if !strings.Contains(page(operatorTok, "/schedules/hooked/nightly"), `id="pause"`) {
		t.Errorf("an operator is not offered to pause")
	}

	steps := []struct {
		name, path, tok, note string
		code                  int
		body                  string // a part of the answer
	}{
		{"a viewer may not", "/schedules/hooked/nightly/pause", viewerTok, "n", http.StatusForbidden, "grafana may not"},
		{"no note", "/schedules/hooked/nightly/pause", operatorTok, "", http.StatusBadRequest, "say why the trigger is paused: the note is kept with its missed times"},
		{"no such DAG", "/schedules/nope/nightly/pause", operatorTok, "n", http.StatusNotFound, "no DAG named nope under the root"},
		{"no such trigger", "/schedules/hooked/nope/pause", operatorTok, "n", http.StatusNotFound, `DAG hooked has no trigger &#34;nope&#34; (it has: nightly, push, unset)`},
		{"pause", "/schedules/hooked/nightly/pause", operatorTok, "warehouse migration", http.StatusSeeOther, ""},
	}
	for _, s := range steps {
		resp, body := bearerDo(t, f, http.MethodPost, s.path, s.tok, url.Values{"note": {s.note}})
		if resp.StatusCode != s.code || !strings.Contains(body, s.body) {
			t.Errorf("%s: %d, want %d with %q:\n%s", s.name, resp.StatusCode, s.code, s.body, body)
		}
	}
	paused := page(operatorTok, "/schedules/hooked/nightly")
	if !strings.Contains(paused, `<span id="paused-by">ci-bot</span>: <span id="note">warehouse migration</span>`) || !strings.Contains(paused, `id="resume"`) {
		t.Errorf("paused page:\n%s", paused)
	}
	if !strings.Contains(page(viewerTok, "/schedules"), `<span class="st-warned paused">by ci-bot: warehouse migration</span>`) {
		t.Errorf("/schedules does not say the pause")
	}
	if resp, body := bearerDo(t, f, http.MethodPost, "/schedules/hooked/nightly/resume", operatorTok, url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("resume: %d\n%s", resp.StatusCode, body)
	}
	if strings.Contains(page(viewerTok, "/schedules/hooked/nightly"), `id="paused"`) {
		t.Errorf("still paused after resume")
	}
}

// TestSchedulesPagesJapanese: the pages speak the request's language, decisions included.
func TestSchedulesPagesJapanese(t *testing.T) {
	f := hookFixture(t, true)
	ctx := context.Background()
	if err := f.st.(runs.Fires).RecordFire(ctx, runs.Fire{DAG: "hooked", Trigger: "nightly", Scheduled: time.Date(2026, 1, 2, 2, 0, 0, 0, time.UTC),
		Decision: runs.FireSkipped, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, f.http.URL+"/schedules/hooked/nightly", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Language", "ja")
	req.Header.Set("Authorization", "Bearer "+operatorTok)
	resp, err := f.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	for _, want := range []string{">スケジュール</a>", "<td>スキップ</td>", "次の時刻"} {
		if !strings.Contains(body, want) {
			t.Errorf("Japanese page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `id="pause"`) {
		t.Errorf("a read-only server offers to pause")
	}
	if resp, body := bearerDo(t, f, http.MethodPost, "/schedules/hooked/nightly/pause", operatorTok, url.Values{"note": {"n"}}); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "this server is read-only (seam serve --read-only)") {
		t.Errorf("read-only pause: %d\n%s", resp.StatusCode, body)
	}
}
