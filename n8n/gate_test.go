package n8n_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/catalog"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestGate checks the gate every workflow writer shares, without n8n: an invalid workflow is
// refused with a *GateError carrying the whole validation, unless forced; a valid one passes.
func TestGate(t *testing.T) {
	var l catalog.Loader
	cat, err := l.Get()
	if err != nil {
		t.Fatal(err)
	}
	bad := &n8n.Workflow{
		Name: "bad",
		Nodes: []map[string]any{
			{"id": "1", "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": []any{0, 0}, "parameters": map[string]any{}},
			{"id": "2", "name": "Mystery", "type": "n8n-nodes-base.doesNotExist", "typeVersion": 1, "position": []any{200, 0}, "parameters": map[string]any{}},
		},
		Connections: map[string]any{"Start": map[string]any{"main": []any{[]any{map[string]any{"node": "Mystery", "type": "main", "index": 0}}}}},
	}
	good := n8ntest.GreetWorkflow("good", "good")
	tests := []struct {
		name    string
		w       *n8n.Workflow
		force   bool
		refused bool
		valid   bool
	}{
		{"invalid refused", bad, false, true, false},
		{"invalid forced", bad, true, false, false},
		{"valid", good, false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := n8n.Gate(context.Background(), i18n.English, cat, tc.w, tc.force)
			if res == nil {
				t.Fatalf("no result (error %v)", err)
			}
			if res.Valid != tc.valid || res.Profile != "runtime" {
				t.Errorf("valid %v profile %s, want %v runtime", res.Valid, res.Profile, tc.valid)
			}
			var ge *n8n.GateError
			if refused := errors.As(err, &ge); refused != tc.refused {
				t.Fatalf("error %v, want refused %v", err, tc.refused)
			}
			if !tc.refused {
				return
			}
			if ge.Result != res || len(ge.Result.Errors) != 1 {
				t.Errorf("the refusal does not carry the validation: %+v", ge.Result)
			}
			msg := err.Error()
			for _, want := range []string{"n8n would reject or break this workflow: 1 error; the first:", `node "Mystery"`, "set force: true to write it anyway"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

// TestInvalidIDError checks that an id refused before any request is told apart from n8n's
// answers, so that callers can report it as their caller's mistake.
func TestInvalidIDError(t *testing.T) {
	// Port 1 on loopback: nothing listens, and nothing must be asked.
	c, err := n8n.New(n8n.Config{URL: "http://127.0.0.1:1", APIKey: "k", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   n8n.ID
		want string
	}{
		{"", "get workflow: id is empty"},
		{"a/b", `get workflow: id "a/b" is not an n8n id`},
		{"..", `get workflow: id ".." is not an n8n id`},
	}
	for _, tc := range tests {
		_, err := c.GetWorkflow(context.Background(), tc.id)
		var ie *n8n.InvalidIDError
		if !errors.As(err, &ie) || err.Error() != tc.want {
			t.Errorf("id %q: error %v, want an InvalidIDError %q", tc.id, err, tc.want)
		}
	}
}
