package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		name, src string
		lang      i18n.Lang
		err       string // "" for none
	}{
		{name: "empty", src: ""},
		{name: "full", src: "accept:\n  - {fingerprint: 0123456789abcdef, reason: billing moved to v2}\nseverity: {SEAM-W305: error, newly-unknown: off}\n"},
		{name: "unknown key", src: "acept: []\n", err: "field acept not found"},
		{name: "bad fingerprint", src: "accept:\n  - {fingerprint: 0123, reason: r}\n", err: `accept[0]: fingerprint "0123" is not 16 hexadecimal digits`},
		{name: "no reason", src: "accept:\n  - {fingerprint: 0123456789abcdef}\n", err: "accept[0]: say why the break is accepted (reason)"},
		{name: "consumer", src: "consumers:\n  - {repo: file:///r, ref: main, dir: dags, mount: vendor/p}\n"},
		{name: "consumer mount outside", src: "consumers:\n  - {repo: file:///r, ref: main, mount: ../p}\n",
			err: `consumers[0]: mount "../p" must be a path inside the consumer's repository`},
		{name: "consumer timeout", src: "consumers:\n  - {repo: file:///r, ref: main, mount: p, timeout: 30s}\n"},
		{name: "consumer timeout too long", src: "consumers:\n  - {repo: file:///r, ref: main, mount: p, timeout: 2h}\n",
			err: `consumers[0]: timeout "2h": want a duration from 1s to 1h (default 2m0s)`},
		{name: "consumer timeout not a duration", src: "consumers:\n  - {repo: file:///r, ref: main, mount: p, timeout: soon}\n",
			err: `consumers[0]: timeout "soon": want a duration from 1s to 1h (default 2m0s)`},
		{name: "bad severity", src: "severity: {SEAM-E301: fatal}\n", err: `severity of SEAM-E301: want error, warning, info or off, not "fatal"`},
		{name: "bad severity, Japanese", src: "severity: {SEAM-E301: fatal}\n", lang: i18n.Japanese,
			err: `ポリシーファイル: SEAM-E301 の重大度は error、warning、info、off のいずれかです（"fatal" ではありません）`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tt.src), tt.lang)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("ParsePolicy: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("ParsePolicy: %v, want %q", err, tt.err)
			}
		})
	}
}

func TestPolicyApply(t *testing.T) {
	fs := []Finding{
		{Severity: SeverityError, Code: CodeRequired, Change: ChangeBroken, Fingerprint: "0123456789abcdef", Message: "m1"},
		{Severity: SeverityError, Code: CodeType, Change: ChangeBroken, Fingerprint: "1111111111111111", Message: "m2"},
		{Severity: SeverityWarning, Code: CodeUnknown, Change: ChangeUnknown, Fingerprint: "2222222222222222", Message: "m3"},
		{Severity: SeverityWarning, Code: CodeWeakened, Change: ChangeWeakened, Fingerprint: "3333333333333333", Message: "m4"},
	}
	p, err := ParsePolicy([]byte("accept:\n  - {fingerprint: 0123456789abcdef, reason: consumers migrated}\n"+
		"severity: {SEAM-W305: error, newly-unknown: off, SEAM-E302: warning}\n"), i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Apply(fs, i18n.English)
	want := []struct{ sev, change, msg string }{
		{SeverityInfo, ChangeAccepted, "m1 (accepted: consumers migrated)"},
		{SeverityWarning, ChangeBroken, "m2"},
		{SeverityError, ChangeWeakened, "m4"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings %v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Severity != w.sev || got[i].Change != w.change || got[i].Message != w.msg {
			t.Errorf("finding %d: %s %s %q, want %s %s %q", i, got[i].Severity, got[i].Change, got[i].Message, w.sev, w.change, w.msg)
		}
	}
}

// TestAcceptIn: a plain lint finding is fingerprinted as the gate fingerprints it, by the
// DAG file's path in its git repository, and an accepted error becomes a note.
func TestAcceptIn(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(repo, "dags", "pipe.yaml")
	brk := Finding{Severity: SeverityError, Code: "SEAM-E302", Consumer: "c", Producers: []string{"p"}, subject: "input", at: "/x", Message: "m"}
	other := brk
	other.at = "/y"
	warn := Finding{Severity: SeverityWarning, Code: CodeNoContract, Message: "w"}
	fp := fingerprint("dags/pipe.yaml", brk)
	tests := []struct {
		name   string
		file   string
		accept string
		want   []string // severities of brk, other, warn
	}{
		{name: "accepted in the repository", file: file, accept: fp, want: []string{SeverityInfo, SeverityError, SeverityWarning}},
		{name: "another fingerprint", file: file, accept: "0123456789abcdef", want: []string{SeverityError, SeverityError, SeverityWarning}},
		{name: "outside a repository, by the name alone", file: filepath.Join(t.TempDir(), "pipe.yaml"), accept: fingerprint("pipe.yaml", brk),
			want: []string{SeverityInfo, SeverityError, SeverityWarning}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{Accept: []Accepted{{Fingerprint: tt.accept, Reason: "v2"}}}
			got := p.AcceptIn(tt.file, []Finding{brk, other, warn}, "en")
			for i, f := range got {
				if f.Severity != tt.want[i] {
					t.Errorf("finding %d: %s, want %s", i, f.Severity, tt.want[i])
				}
			}
			if got[0].Severity == SeverityInfo && (got[0].Message != "m (accepted: v2)" || got[0].Change != ChangeAccepted) {
				t.Errorf("the accepted break: %q, %q", got[0].Message, got[0].Change)
			}
		})
	}
}
