package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser returns a chromedp context driving a real headless Chromium ($SEAM_CHROMIUM, which
// scripts/test.sh installs and sets). The tests skip only when SEAM_SKIP_BROWSER=1 or when
// SEAM_CHROMIUM is unset.
func browser(t *testing.T) context.Context {
	t.Helper()
	if os.Getenv("SEAM_SKIP_BROWSER") == "1" {
		t.Skip("SEAM_SKIP_BROWSER=1: the browser tests of the web view are skipped")
	}
	bin := os.Getenv("SEAM_CHROMIUM")
	if bin == "" {
		t.Skip("SEAM_CHROMIUM is not set: scripts/test.sh installs Chromium (scripts/chromium.sh) and sets it; SEAM_SKIP_BROWSER=1 skips these tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		// Chromium refuses to run as root with its sandbox on; the tests run as root in CI
		// containers, and load only the pages of the server under test.
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("lang", "en-US"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium %s: %v", bin, err)
	}
	return ctx
}

// tab drives one browser tab: each step fails the test at its first error.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func (p tab) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatal(err)
	}
}

func (p tab) text(sel string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

func (p tab) attr(sel, name string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		p.t.Fatalf("%s of %s: %v", name, sel, err)
	}
	return v.Value
}

func (p tab) eval(js string) int {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// TestServeBrowserFailedRun: the runs page lists a failed run with its failing node; on the
// run's page, clicking the failing node in the graph shows the violation, the value and the
// contract line, as seam explain says.
func TestServeBrowserFailedRun(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("broken.yaml", nil, true)
	p.do(chromedp.Navigate(f.http.URL+"/runs"), chromedp.WaitVisible(css(`table.runs`)))
	if failing := p.text(`table.runs tbody tr:first-child td:last-child`); failing != "classify" {
		t.Errorf("failing node on the runs page: %q, want classify", failing)
	}
	p.do(
		chromedp.Click(css(`a[href="/runs/`+id+`"]`)),
		chromedp.WaitVisible(css(`svg g.node[data-node="classify"]`)),
		chromedp.Click(css(`svg g.node[data-node="classify"] a rect`)),
		chromedp.WaitVisible(css(`#panel .violation`)),
	)
	violation := p.text(`#panel .violation`)
	for _, want := range []string{"/data/label", "field 'data.label' is required", "(missing)", "classify's own output"} {
		if !strings.Contains(violation, want) {
			t.Errorf("violation %q does not say %q", violation, want)
		}
	}
	contract := p.text(`#panel .violation .contract`)
	for _, want := range []string{"broken.yaml:18", "required: [label, confidence]"} {
		if !strings.Contains(contract, want) {
			t.Errorf("contract %q does not say %q", contract, want)
		}
	}
	if os.Getenv("SEAM_SCREENSHOTS") == "1" {
		screenshot(t, p.ctx, "serve-run.png")
	}
}

// TestServeBrowserRunForm: the run form of a DAG starts a run; its page shows a node turn
// green while the run still runs (SSE, no reload), then the run succeed.
func TestServeBrowserRunForm(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	p.do(
		chromedp.Navigate(f.http.URL+"/dags/greet.yaml"),
		chromedp.WaitVisible(css(`#run-form`)),
		chromedp.SendKeys(css(`input[name="p.name"]`), "Ada"),
		chromedp.Click(css(`#run-submit`)),
		chromedp.WaitVisible(css(`#run[data-live="1"]`)),
	)
	if before := p.attr(`svg g.node[data-node="hello"]`, "class"); strings.Contains(before, "st-passed") {
		t.Fatalf("hello was already passed when the page loaded (%q): nothing was seen live", before)
	}
	// hello passes after first's second; last sleeps four more: the run is still running.
	p.do(chromedp.WaitVisible(css(`svg g.node.st-passed[data-node="hello"]`)))
	if st := p.text(`#run-status`); st != "running" {
		t.Errorf("run status %q when hello passed, want running (the page was updated live, not reloaded)", st)
	}
	p.do(chromedp.WaitVisible(css(`#run-status.st-success`)))
	if st := p.text(`#run-status`); st != "success" {
		t.Errorf("final run status %q", st)
	}
}

// TestServeBrowserCancel: the cancel button cancels a running run.
func TestServeBrowserCancel(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("slow.yaml", nil, false)
	p.do(
		chromedp.Navigate(f.http.URL+"/runs/"+id),
		chromedp.WaitVisible(css(`#cancel`)),
		chromedp.Click(css(`#cancel`)),
		chromedp.WaitVisible(css(`#run-status.st-canceled`)),
	)
	if st := p.text(`#run-status`); st != "canceled" {
		t.Errorf("status %q, want canceled", st)
	}
	r, _, err := f.svc.Show(context.Background(), id)
	if err != nil || r.Status != "canceled" {
		t.Errorf("stored run: %v, %v; want canceled", r, err)
	}
}

// TestServeBrowserScriptOutput: an output holding <script> shows as text: no script of it
// runs and no element of it is in the page.
func TestServeBrowserScriptOutput(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("script.yaml", nil, true)
	p.do(chromedp.Navigate(f.http.URL+"/runs/"+id+"?node=evil"), chromedp.WaitVisible(css(`#output`)))
	if out := p.text(`#output`); !strings.Contains(out, "<script>document.title='pwned'</script>") {
		t.Errorf("the output does not show the script as text: %q", out)
	}
	scripts, imgs := p.eval(`document.scripts.length`), p.eval(`document.images.length`)
	title, err := chromedp.Run(p.ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if scripts != 1 || imgs != 0 || title == "pwned" {
		t.Errorf("the output was rendered as HTML: %d scripts (want seam.js only), %d images, title %q", scripts, imgs, title)
	}
}

// TestServeBrowserDAGPage: the DAG page draws the graph with an incompatible edge and lists
// lint's finding; with SEAM_SCREENSHOTS=1 it is saved to docs/.
func TestServeBrowserDAGPage(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	src, err := os.ReadFile("../dags/lint-incompatible.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "lint-incompatible.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	p.do(
		chromedp.Navigate(f.http.URL+"/dags"),
		chromedp.Click(css(`a[href="/dags/lint-incompatible.yaml"]`)),
		chromedp.WaitVisible(css(`ul.findings`)),
	)
	bad := p.eval(`document.querySelectorAll("path.edge.e-incompatible").length`)
	findings := p.text(`ul.findings`)
	if bad != 1 || !strings.Contains(findings, "SEAM-E301") || !strings.Contains(findings, "witness:") {
		t.Errorf("%d incompatible edges (want 1), findings %q", bad, findings)
	}
	if os.Getenv("SEAM_SCREENSHOTS") == "1" {
		screenshot(t, p.ctx, "serve-dag.png")
	}
}

// screenshot saves the page ctx shows to docs/name.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 is PNG; below, JPEG
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeBrowserRunsLive: the runs page follows a running run's row: once the run is
// canceled elsewhere, its row says so without the user reloading.
func TestServeBrowserRunsLive(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("slow.yaml", nil, false)
	row := `tr[data-live="` + id + `"] [data-status]`
	p.do(chromedp.Navigate(f.http.URL+"/runs"), chromedp.WaitVisible(css(row)))
	if st := p.text(row); st != "running" {
		t.Fatalf("row status %q, want running", st)
	}
	if err := f.svc.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.WaitVisible(css(`table.runs tbody tr:first-child .status.st-canceled`)))
}

// TestServeBrowserRunningNode: a plain exec node that runs shows running (blue, dashed) on the
// run's page, updated live: once first has passed, hang, which sleeps after it, turns running
// within a second, without a reload.
func TestServeBrowserRunningNode(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("relay.yaml", nil, false)
	t.Cleanup(func() { f.svc.Cancel(context.Background(), id) })
	p.do(chromedp.Navigate(f.http.URL+"/runs/"+id), chromedp.WaitVisible(css(`#run[data-live="1"]`)))
	if st := p.attr(`svg g.node[data-node="hang"]`, "class"); strings.Contains(st, "st-running") {
		t.Fatalf("hang was running when the page loaded (%q): nothing is seen live", st)
	}
	p.do(chromedp.WaitVisible(css(`svg g.node.st-passed[data-node="first"]`)))
	ctx, cancel := context.WithTimeout(p.ctx, time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`svg g.node.st-running[data-node="hang"]`))); err != nil {
		t.Fatalf("hang is not shown running within 1s of first passing (class %q): %v", p.attr(`svg g.node[data-node="hang"]`, "class"), err)
	}
	if st := p.text(`#run-status`); st != "running" {
		t.Errorf("run status %q while hang runs, want running (the page was updated live, not reloaded)", st)
	}
}

// TestServeBrowserLiveLog: the panel of an exec node opened before the node starts shows
// what it prints (stderr, and stdout for output: text) once it runs, without a reload:
// seam.js draws the log when the first line comes (the engine masks it before the store:
// engine.TestRunRecordsLiveLogs).
func TestServeBrowserLiveLog(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	gate := filepath.Join(t.TempDir(), "gate")
	id := f.start("talk.yaml", map[string]any{"gate": gate}, false)
	t.Cleanup(func() { f.svc.Cancel(context.Background(), id) })
	// talk waits for hold, which waits for the gate: the page is loaded before talk runs.
	p.do(chromedp.Navigate(f.http.URL+"/runs/"+id+"?node=talk#panel"), chromedp.WaitVisible(css(`#panel`)))
	if n := p.eval(`document.querySelectorAll("pre#log").length`); n != 0 {
		t.Fatalf("the panel of talk, which has not started, has %d logs", n)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.WaitVisible(css(`pre#log`)))
	// The first event may carry the first line alone: wait for two of each stream.
	for !strings.Contains(p.text(`pre#log`), "line 1") || !strings.Contains(p.text(`pre#log`), "out 1") {
		if p.ctx.Err() != nil {
			t.Fatalf("the log on the panel stayed %q", p.text(`pre#log`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if log := p.text(`pre#log`); !strings.HasPrefix(log, "line 0\n") && !strings.HasPrefix(log, "out 0\n") {
		t.Errorf("the live log %q does not start with the node's first line", log)
	}
	if href := p.attr(`#log-download`, "href"); href != "/runs/"+id+"/nodes/talk/log" {
		t.Errorf("the log's download link is %q", href)
	}
	if st := p.text(`#run-status`); st != "running" {
		t.Errorf("run status %q, want running: the node has not ended", st)
	}
}
