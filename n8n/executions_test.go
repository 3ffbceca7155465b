package n8n_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestExecutionDetail runs the four-node pipeline through its webhook, once through and once
// failing in its middle node, and reads what each node did.
func TestExecutionDetail(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("pipeline")
	wf := n8ntest.Create(t, c, n8ntest.PipelineWorkflow(hook, hook, "stock check failed"), true)
	n8ntest.Trigger(t, hook, `{"item":"a"}`, 1)
	n8ntest.Trigger(t, hook, `{"fail":true}`, 1)
	ex := n8ntest.WaitFinished(t, c, wf.ID, 2) // newest first
	failed, ok := ex[0].ID, ex[1].ID
	ctx := context.Background()

	type node struct {
		name, status string
		items        int
		err          string
	}
	tests := []struct {
		name   string
		id     n8n.ID
		status string
		err    *n8n.ExecutionError
		nodes  []node // in the order they ran
		first  string // the minimal shape's first node
	}{
		{"through", ok, "success", nil, []node{
			{"Webhook", "success", 1, ""}, {"Prepare", "success", 1, ""}, {"Check", "success", 2, ""}, {"Done", "success", 2, ""},
		}, "Webhook"},
		{"failing in the middle", failed, "error", &n8n.ExecutionError{Node: "Check", Message: "stock check failed [line 2]"}, []node{
			{"Webhook", "success", 1, ""}, {"Prepare", "success", 1, ""}, {"Check", "error", 0, "stock check failed [line 2]"},
		}, "Check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := c.ExecutionDetail(ctx, tt.id, false)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != tt.status || d.WorkflowName != hook || d.WorkflowID != wf.ID || d.Mode != "webhook" ||
				d.ExecutionTime == nil || d.StartedAt == nil || d.StoppedAt == nil || d.Data != nil {
				t.Fatalf("summary %+v, data %d bytes", d.ExecutionSummary, len(d.Data))
			}
			if d.Settings["executionOrder"] != "v1" {
				t.Errorf("settings %v", d.Settings)
			}
			switch {
			case tt.err == nil && d.Error != nil:
				t.Errorf("error %+v on a success", d.Error)
			case tt.err != nil && (d.Error == nil || d.Error.Node != tt.err.Node || d.Error.Message != tt.err.Message):
				t.Errorf("error %+v, want %+v", d.Error, tt.err)
			}
			if len(d.NodeExecutions) != len(tt.nodes) {
				t.Fatalf("%d nodes ran: %+v", len(d.NodeExecutions), d.NodeExecutions)
			}
			for i, want := range tt.nodes {
				n := d.NodeExecutions[i]
				if n.NodeName != want.name || n.Status != want.status || n.ItemCount != want.items || n.HasData != (want.items > 0) ||
					n.Error != want.err || n.Runs != 1 {
					t.Errorf("node %d: %+v, want %+v", i, n, want)
				}
				if n.NodeID == "" || !strings.HasPrefix(n.NodeType, "n8n-nodes-base.") || n.StartTime == nil || n.EndTime == nil ||
					n.EndTime.Before(*n.StartTime) {
					t.Errorf("node %s: id %q, type %q, %v → %v", n.NodeName, n.NodeID, n.NodeType, n.StartTime, n.EndTime)
				}
			}
			m := d.Minimal()
			if m.Nodes[0].Name != tt.first || len(m.Nodes) != len(tt.nodes) || m.Workflow != hook {
				t.Errorf("minimal %+v", m)
			}
			withData, err := c.ExecutionDetail(ctx, tt.id, true)
			if err != nil || len(withData.Data) == 0 || len(withData.NodeExecutions) != len(tt.nodes) {
				t.Fatalf("with data: %v, %d bytes", err, len(withData.Data))
			}
		})
	}

	// The node type says the same: every node, the failed one named.
	out, err := runNode(t, "n8n.executions.get", map[string]any{"id": string(failed)})
	if err != nil {
		t.Fatal(err)
	}
	want := "execution " + string(failed) + " of workflow " + string(wf.ID) + ": error in "
	if s := out["summary"].(string); !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "ms, in node Check: stock check failed [line 2]") {
		t.Errorf("summary %q", s)
	}
	if path(out, "data", "execution", "errorNode") != "Check" || path(out, "data", "execution", "workflowName") != hook ||
		path(out, "data", "execution", "nodeExecutions", 2, "nodeName") != "Check" || path(out, "data", "execution", "executionData") != nil {
		t.Errorf("output %v", out)
	}
}

// TestExecutionDateRanges makes three batches of executions a second apart and lists them by
// date: a range between batches holds none, one batch fits one page or takes several, an open
// range runs to the newest or the oldest, and a list across workflows names each workflow.
// It counts the pages n8n is asked for: a range stops the reading past its start.
func TestExecutionDateRanges(t *testing.T) {
	c := n8ntest.Client(t)
	ctx := context.Background()
	hook := n8ntest.Unique("dates")
	wf := n8ntest.Create(t, c, n8ntest.PipelineWorkflow(hook, hook, "no"), true)
	other := n8ntest.Unique("dates-other")
	otherWF := n8ntest.Create(t, c, n8ntest.GreetWorkflow(other, other), true)
	sizes := []int{3, 5, 3} // A, B, C
	done := 0
	for i, n := range sizes {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond)
		}
		n8ntest.Trigger(t, hook, `{}`, n)
		if i == 1 {
			n8ntest.Trigger(t, other, `{"name":"b"}`, 1)
			n8ntest.WaitFinished(t, c, otherWF.ID, 1)
		}
		done += n
		n8ntest.WaitFinished(t, c, wf.ID, done)
	}
	all := n8ntest.WaitFinished(t, c, wf.ID, done) // newest first: C, B, A
	ids := func(es []n8n.Execution) []n8n.ID {
		out := []n8n.ID{}
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	c3, b, a := all[:3], all[3:8], all[8:]
	first := func(es []n8n.Execution) time.Time { return *es[len(es)-1].StartedAt } // the earliest
	last := func(es []n8n.Execution) time.Time { return *es[0].StartedAt }
	ms := time.Millisecond

	tests := []struct {
		name       string
		start, end time.Time
		limit      int
		want       []n8n.Execution
		calls      int // list calls until no cursor is left
		pages      int // n8n pages read in all
	}{
		// Pages of 2: C3 C2 | C1 B5 | B4 B3 | B2 B1 | A3 …: four newer than the range, and the
		// fifth starts before it.
		{"none, between batches", last(a).Add(ms), first(b).Add(-ms), 2, nil, 1, 5},
		{"one page", first(b), last(b), 10, b, 1, 1},
		{"several pages", first(b), last(b), 2, b, 4, 5},
		{"from a start on", first(c3), time.Time{}, 10, c3, 1, 1},
		{"up to an end", time.Time{}, last(a), 10, a, 2, 2}, // A3 A2 on the first page, A1 on the next
		{"after the newest", last(c3).Add(ms), time.Time{}, 10, nil, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []n8n.Execution
			cursor := ""
			calls, pages := 0, 0
			for {
				p, err := c.ExecutionList(ctx, n8n.ExecutionQuery{
					ExecutionFilter: n8n.ExecutionFilter{WorkflowID: wf.ID, Limit: tt.limit, Cursor: cursor}, Start: tt.start, End: tt.end,
				})
				if err != nil {
					t.Fatal(err)
				}
				calls++
				pages += p.Pages
				if len(p.Executions) > tt.limit {
					t.Fatalf("%d executions on a page of %d", len(p.Executions), tt.limit)
				}
				got = append(got, p.Executions...)
				if p.Names[wf.ID] != hook {
					t.Errorf("names %v", p.Names)
				}
				if cursor = p.NextCursor; cursor == "" || calls > 10 {
					break
				}
			}
			if !slices.Equal(ids(got), ids(tt.want)) {
				t.Errorf("listed %v, want %v", ids(got), ids(tt.want))
			}
			if calls != tt.calls || pages != tt.pages {
				t.Errorf("%d calls reading %d pages, want %d and %d", calls, pages, tt.calls, tt.pages)
			}
		})
	}

	// Across workflows, each execution carries its workflow's name (the other workflow ran
	// after batch B, before C).
	p, err := c.ExecutionList(ctx, n8n.ExecutionQuery{ExecutionFilter: n8n.ExecutionFilter{Limit: 100}, Start: first(b), End: first(c3).Add(-ms)})
	if err != nil {
		t.Fatal(err)
	}
	names := map[n8n.ID]string{}
	for _, s := range p.Summaries() {
		names[s.WorkflowID] = s.WorkflowName
	}
	if names[wf.ID] != hook || names[otherWF.ID] != other {
		t.Errorf("names %v, want %s and %s", names, hook, other)
	}
	for _, br := range n8n.Listing(p, "").Minimal().Executions {
		if br.Workflow == "" || br.StartedAt == nil {
			t.Errorf("minimal %+v: no workflow or start", br)
		}
	}

	// The node type filters the same way and says each execution's workflow and duration.
	out, err := runNode(t, "n8n.executions.list", map[string]any{
		"workflowId": string(wf.ID), "startDate": first(b).Format(time.RFC3339Nano), "endDate": last(b).Format(time.RFC3339Nano), "limit": 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "count") != float64(5) || path(out, "data", "executions", 0, "workflowName") != hook ||
		path(out, "data", "executions", 0, "executionTime") == nil || path(out, "data", "nextCursor") != nil {
		t.Errorf("output %v", out)
	}
}

// TestExecutionScanLimit: a range older than every execution, with pages of one, stops
// after n8n.MaxScanPages pages and hands back the cursor to read on from; reading on finds the
// end. Makes 101 executions; -short skips it.
func TestExecutionScanLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 101 n8n executions")
	}
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("scan")
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(hook, hook), true)
	before := time.Now().Add(-time.Minute)
	n8ntest.TriggerMany(t, hook, `{"name":"s"}`, n8n.MaxScanPages+1)
	n8ntest.WaitFinished(t, c, wf.ID, n8n.MaxScanPages+1)
	q := n8n.ExecutionQuery{ExecutionFilter: n8n.ExecutionFilter{WorkflowID: wf.ID, Limit: 1}, End: before}
	p, err := c.ExecutionList(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Executions) != 0 || p.Pages != n8n.MaxScanPages || p.NextCursor == "" {
		t.Fatalf("%d executions, %d pages, cursor %q: want none, %d pages and a cursor", len(p.Executions), p.Pages, p.NextCursor, n8n.MaxScanPages)
	}
	q.Cursor = p.NextCursor
	if p, err = c.ExecutionList(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if len(p.Executions) != 0 || p.NextCursor != "" || p.Pages > 2 {
		t.Fatalf("reading on: %d executions, %d pages, cursor %q: want none and the end", len(p.Executions), p.Pages, p.NextCursor)
	}
}
