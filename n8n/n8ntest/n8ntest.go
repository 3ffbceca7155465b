// Package n8ntest gives tests the real n8n server that scripts/test.sh starts: its address,
// a client, and workflows made for tests that are deleted when the test ends.
package n8ntest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/n8n"
)

// Env returns the server's URL and API key from N8N_URL and N8N_API_KEY. With go test -short
// the test is skipped (short tests need no server); without the variables it is skipped when
// SEAM_SKIP_N8N=1, and fails otherwise: n8n tests run everywhere the test command runs, CI
// included.
func Env(t testing.TB) (url, key string) {
	t.Helper()
	if testing.Short() {
		t.Skip("n8n tests skipped: go test -short (run without -short, as scripts/test.sh does, for them)")
	}
	url, key = os.Getenv(n8n.EnvURL), os.Getenv(n8n.EnvAPIKey)
	if url != "" && key != "" {
		return url, key
	}
	if os.Getenv("SEAM_SKIP_N8N") == "1" {
		t.Skip("n8n tests skipped: SEAM_SKIP_N8N=1 and no N8N_URL/N8N_API_KEY")
	}
	t.Fatal("N8N_URL and N8N_API_KEY are not set: run ./scripts/test.sh, which starts n8n, " +
		"or start one with scripts/n8n-server.sh and export them; set SEAM_SKIP_N8N=1 to skip the n8n tests")
	return "", ""
}

// Getenv is os.Getenv limited to what the n8n types read, for hermetic command tests.
func Getenv(t testing.TB) func(string) string {
	url, key := Env(t)
	return func(k string) string {
		switch k {
		case n8n.EnvURL:
			return url
		case n8n.EnvAPIKey:
			return key
		}
		return ""
	}
}

// Client returns a client of the test server.
func Client(t testing.TB) *n8n.Client {
	t.Helper()
	url, key := Env(t)
	c, err := n8n.New(n8n.Config{URL: url, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Unique returns prefix with a random suffix: paths and names that no other test, or an
// earlier run against the same server, uses.
func Unique(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func webhookNode(path string) map[string]any {
	return map[string]any{
		"id": uuid(), "name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2,
		"position":  []int{0, 0},
		"webhookId": uuid(),
		"parameters": map[string]any{
			"httpMethod": "POST", "path": path, "responseMode": "onReceived", "options": map[string]any{},
		},
	}
}

func chain(name, path string, second map[string]any) *n8n.Workflow {
	return &n8n.Workflow{
		Name:  name,
		Nodes: []map[string]any{webhookNode(path), second},
		Connections: map[string]any{
			"Webhook": map[string]any{"main": []any{[]any{map[string]any{"node": second["name"], "type": "main", "index": 0}}}},
		},
		Settings: map[string]any{"executionOrder": "v1"},
	}
}

// GreetWorkflow is Webhook (POST path) → Set, which emits {greeting: "hello " + body.name}.
func GreetWorkflow(name, path string) *n8n.Workflow {
	return chain(name, path, map[string]any{
		"id": uuid(), "name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 3.4,
		"position": []int{200, 0},
		"parameters": map[string]any{
			"mode": "manual",
			"assignments": map[string]any{"assignments": []any{map[string]any{
				"id": uuid(), "name": "greeting", "value": "={{ 'hello ' + $json.body.name }}", "type": "string",
			}}},
			"options": map[string]any{},
		},
	})
}

// ThrowWorkflow is Webhook (POST path) → Code, which throws an Error with message.
func ThrowWorkflow(name, path, message string) *n8n.Workflow {
	return CodeWorkflow(name, path, fmt.Sprintf("throw new Error(%q);", message))
}

// CheckWorkflow is Webhook (POST path) → Code, which throws an Error with message when the
// request body has "fail": true, and otherwise emits {ok: true, check: body.check}.
func CheckWorkflow(name, path, message string) *n8n.Workflow {
	return CodeWorkflow(name, path, fmt.Sprintf(`const body = $input.first().json.body || {};
if (body.fail) { throw new Error(%q); }
return [{ json: { ok: true, check: body.check ?? null } }];`, message))
}

// CodeWorkflow is Webhook (POST path) → Code running js once for all items.
func CodeWorkflow(name, path, js string) *n8n.Workflow {
	return chain(name, path, map[string]any{
		"id": uuid(), "name": "Code", "type": "n8n-nodes-base.code", "typeVersion": 2,
		"position":   []int{200, 0},
		"parameters": map[string]any{"jsCode": js},
	})
}

// PipelineWorkflow is Webhook (POST path) → Prepare (Set: {step: "prepared"}) → Check (Code:
// throws an Error with message when the request body has "fail": true, else emits two items)
// → Done (Set: {done: true} per item). A failing call fails in Check, a middle node, and
// Done does not run.
func PipelineWorkflow(name, path, message string) *n8n.Workflow {
	set := func(name string, x int, field, value string) map[string]any {
		return map[string]any{
			"id": uuid(), "name": name, "type": "n8n-nodes-base.set", "typeVersion": 3.4,
			"position": []int{x, 0},
			"parameters": map[string]any{
				"mode": "manual", "includeOtherFields": true,
				"assignments": map[string]any{"assignments": []any{map[string]any{
					"id": uuid(), "name": field, "value": value, "type": "string",
				}}},
				"options": map[string]any{},
			},
		}
	}
	check := map[string]any{
		"id": uuid(), "name": "Check", "type": "n8n-nodes-base.code", "typeVersion": 2,
		"position": []int{400, 0},
		"parameters": map[string]any{"jsCode": fmt.Sprintf(`const body = $input.first().json.body || {};
if (body.fail) { throw new Error(%q); }
return [{ json: { ok: true, n: 1 } }, { json: { ok: true, n: 2 } }];`, message)},
	}
	link := func(to string) map[string]any {
		return map[string]any{"main": []any{[]any{map[string]any{"node": to, "type": "main", "index": 0}}}}
	}
	return &n8n.Workflow{
		Name:        name,
		Nodes:       []map[string]any{webhookNode(path), set("Prepare", 200, "step", "prepared"), check, set("Done", 600, "done", "yes")},
		Connections: map[string]any{"Webhook": link("Prepare"), "Prepare": link("Check"), "Check": link("Done")},
		Settings:    map[string]any{"executionOrder": "v1"},
	}
}

// Create creates w, activates it when activate, and deletes it when the test ends.
func Create(t testing.TB, c *n8n.Client, w *n8n.Workflow, activate bool) *n8n.Workflow {
	t.Helper()
	ctx := context.Background()
	created, err := c.CreateWorkflow(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := c.DeleteWorkflow(context.Background(), created.ID); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	if activate {
		if created, err = c.ActivateWorkflow(ctx, created.ID); err != nil {
			t.Fatal(err)
		}
	}
	return created
}

// Trigger calls the production webhook at path with body n times, without waiting for the
// executions.
func Trigger(t testing.TB, path string, body string, n int) {
	t.Helper()
	url, _ := Env(t)
	for range n {
		resp, err := http.Post(url+"/webhook/"+path, "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /webhook/%s: HTTP %d", path, resp.StatusCode)
		}
	}
}

// TriggerMany is Trigger with 8 calls at a time, for tests that need many executions (n8n
// answers an onReceived webhook before the execution ends, so the calls are cheap).
func TriggerMany(t testing.TB, path string, body string, n int) {
	t.Helper()
	url, _ := Env(t)
	jobs := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range jobs {
				resp, err := http.Post(url+"/webhook/"+path, "application/json", bytes.NewReader([]byte(body)))
				if err != nil {
					errs <- err
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("POST /webhook/%s: HTTP %d", path, resp.StatusCode)
				}
			}
		})
	}
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// WaitFinished waits until workflow id has at least n finished executions.
func WaitFinished(t testing.TB, c *n8n.Client, id n8n.ID, n int) []n8n.Execution {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := c.ListExecutions(context.Background(), n8n.ExecutionFilter{WorkflowID: id, All: true, Limit: 250})
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, e := range p.Data {
			if n8n.Done(e.Status) {
				done++
			}
		}
		if done >= n {
			return p.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("workflow %s: %d of %d executions finished after 60s", id, done, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TriageFixture makes what dags/n8n-triage.yaml needs: an active CheckWorkflow with failed
// executions. It returns the workflow's id and its webhook path.
func TriageFixture(t testing.TB, failures int) (id n8n.ID, path string) {
	t.Helper()
	c := Client(t)
	path = Unique("triage")
	wf := Create(t, c, CheckWorkflow(path, path, "payment API answered 503"), true)
	Trigger(t, path, `{"fail": true}`, failures)
	WaitFinished(t, c, wf.ID, failures)
	return wf.ID, path
}
