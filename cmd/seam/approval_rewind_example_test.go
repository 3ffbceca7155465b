package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestApprovalRewindExample answers dags/approval-rewind.yaml as docs/approvals.md shows: a
// reject runs draft again with the answer in $SEAM_REVIEW and asks again on new evidence (its
// hash differs, the answer is in it); then an approve sends the new reply, or a second reject,
// the last round's, fails the approval.
func TestApprovalRewindExample(t *testing.T) {
	file := filepath.Join("..", "..", "dags", "approval-rewind.yaml")
	tests := []struct {
		name   string
		second []string
		code   int
		stdout []string
		sent   string
	}{
		{"approved in round 2", []string{"approve", "latest", "review"}, 0,
			[]string{"✓ review  passed", "✓ send    passed", "sent: Thanks for your patience, ann"},
			"Thanks for your patience, ann: we are on it and will write again by Friday."},
		{"rejected in round 2", []string{"reject", "latest", "review", "--comment", "still cold"}, 1,
			[]string{"✗ review  failed", "- send    skipped"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "seam.db")
			getenv := func(k string) string {
				return map[string]string{"SEAM_LANG": "en", "SEAM_STORE": store}[k]
			}
			seam := func(want int, args ...string) string {
				t.Helper()
				var stdout, stderr bytes.Buffer
				if code := run(args, strings.NewReader(""), &stdout, &stderr, getenv); code != want {
					t.Fatalf("seam %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, &stdout, &stderr)
				}
				return stdout.String()
			}
			hash := regexp.MustCompile(`(?m)^evidence   sha256 (\w+)$`)
			seam(3, "run", file)
			first := hash.FindStringSubmatch(seam(0, "approvals", "show", "latest", "review"))
			out := seam(3, "reject", "latest", "review", "--comment", "warmer, please")
			if !strings.Contains(out, "✓ draft   passed") || !strings.Contains(out, "drafted the reply to ann again") {
				t.Errorf("the reject did not draft again:\n%s", out)
			}
			show := seam(0, "approvals", "show", "latest", "review")
			again := hash.FindStringSubmatch(show)
			if first == nil || again == nil || first[1] == again[1] {
				t.Errorf("evidence %v, then %v: want two hashes that differ", first, again)
			}
			for _, line := range []string{`"comment": "warmer, please",`, `"round": 1,`, "round 1    evidence " + first[1][:12] + ": reject by "} {
				if !strings.Contains(show, line) {
					t.Errorf("approvals show lacks %q:\n%s", line, show)
				}
			}
			out = seam(tt.code, tt.second...)
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			var res struct {
				Status  string
				Outputs map[string]any
			}
			if err := json.Unmarshal([]byte(seam(0, "runs", "show", "--json", "latest")), &res); err != nil {
				t.Fatal(err)
			}
			if sent, _ := res.Outputs["sent"].(string); sent != tt.sent {
				t.Errorf("run %s, sent %q; want %q", res.Status, sent, tt.sent)
			}
		})
	}
}
