package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// TestWriteText checks the text format: findings, then the count, coloured when asked; and
// nothing, not "no problems", when a file did not load.
func TestWriteText(t *testing.T) {
	broken := Finding{Pos: dag.Pos{File: "a.yaml", Line: 3, Col: 5}, Severity: SeverityError, Code: CodeType, Message: "m",
		Witness: map[string]any{"x": ""}, HasWitness: true, Hint: "h", Fingerprint: "af08d52b2eed903f"}
	fixed := Finding{Pos: dag.Pos{File: "a.yaml", Line: 4, Col: 1}, Severity: SeverityInfo, Code: CodeType, Message: "n"}
	tests := []struct {
		name string
		fs   []Finding
		o    TextOptions
		want string
	}{
		{"clean", nil, TextOptions{}, "no problems\n"},
		{"clean after a load failure", nil, TextOptions{LoadFailed: true}, ""},
		{"error", []Finding{broken}, TextOptions{},
			"a.yaml:3:5: error SEAM-E302 m\n  witness: {\"x\":\"\"}\n  fix: h\n  fingerprint: af08d52b2eed903f\n1 error, 0 warnings\n"},
		{"note", []Finding{fixed}, TextOptions{}, "a.yaml:4:1: info SEAM-E302 n\n0 errors, 0 warnings, 1 note\n"},
		{"colour", []Finding{fixed}, TextOptions{Colour: true},
			"\x1b[1ma.yaml:4:1:\x1b[0m \x1b[2minfo\x1b[0m \x1b[1mSEAM-E302\x1b[0m n\n0 errors, 0 warnings, 1 note\n"},
		{"japanese", []Finding{broken}, TextOptions{Lang: "ja"},
			"a.yaml:3:5: error SEAM-E302 m\n  witness: {\"x\":\"\"}\n  fix: h\n  fingerprint: af08d52b2eed903f\nエラー 1 件、警告 0 件\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, tt.fs, tt.o); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

// TestLoadFindings checks that a file that does not load gives its diagnostics, and one that
// cannot be read one CodeUnreadable finding on the file, with no line.
func TestLoadFindings(t *testing.T) {
	ds := dag.Diagnostics{{Pos: dag.Pos{File: "a.yaml", Line: 2, Col: 3}, Code: dag.CodeUnknownType, Message: "m", Hint: "h"}}
	got := LoadFindings("a.yaml", ds)
	if len(got) != 1 || got[0].Code != dag.CodeUnknownType || got[0].Pos.Line != 2 || got[0].Hint != "h" || got[0].Severity != SeverityError {
		t.Errorf("diagnostics: %+v", got)
	}
	got = LoadFindings("b.yaml", errors.New("open b.yaml: no such file"))
	if len(got) != 1 || got[0].Code != CodeUnreadable || got[0].Pos != (dag.Pos{File: "b.yaml"}) || got[0].Message != "open b.yaml: no such file" {
		t.Errorf("unreadable: %+v", got)
	}
}

// TestGitHubEscaping checks the escaping of workflow command messages and properties.
func TestGitHubEscaping(t *testing.T) {
	if got, want := ghData("50% a\nb\rc"), "50%25 a%0Ab%0Dc"; got != want {
		t.Errorf("ghData: %q, want %q", got, want)
	}
	if got, want := ghProperty("dir,a:b%.yaml"), "dir%2Ca%3Ab%25.yaml"; got != want {
		t.Errorf("ghProperty: %q, want %q", got, want)
	}
	if got, want := fileURI("dags/a b.yaml"), "dags/a%20b.yaml"; got != want {
		t.Errorf("fileURI: %q, want %q", got, want)
	}
}

// TestSARIFRules checks that SARIF describes every code docs/errors.md documents (load errors,
// which seam lint reports for files that do not load, and lint's findings), once.
func TestSARIFRules(t *testing.T) {
	doc, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, m := range regexp.MustCompile(`(?m)^## (SEAM-[EW]\d+)$`).FindAllStringSubmatch(string(doc), -1) {
		codes = append(codes, m[1])
	}
	if len(codes) < 20 {
		t.Fatalf("docs/errors.md documents %d codes: %v", len(codes), codes)
	}
	seen := map[string]bool{}
	rs := sarifRules()
	for _, r := range rs {
		if seen[r.Code] {
			t.Errorf("%s described twice", r.Code)
		}
		seen[r.Code] = true
		if r.Name == "" || r.Doc == "" || (r.Severity != "error" && r.Severity != "warning") {
			t.Errorf("%s: incomplete rule %+v", r.Code, r)
		}
	}
	for _, c := range codes {
		if !seen[c] {
			t.Errorf("%s has no SARIF rule", c)
		}
	}
	if len(rs) != len(codes) {
		t.Errorf("%d rules for %d codes", len(rs), len(codes))
	}
}

// TestSARIFUsesRules checks that the rules of the SARIF log are lint's rule table: each of
// Rules with its name, text and level, after the load errors, in the table's order.
func TestSARIFUsesRules(t *testing.T) {
	var out bytes.Buffer
	if err := WriteSARIF(&out, nil); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	got := log.Runs[0].Tool.Driver.Rules
	rules := Rules()
	if len(got) < len(rules) {
		t.Fatalf("%d SARIF rules, fewer than lint's %d", len(got), len(rules))
	}
	for i, r := range rules {
		s := got[len(got)-len(rules)+i]
		if s.ID != r.Code || s.Name != r.Name || s.ShortDescription.Text != r.Doc || s.DefaultConfiguration.Level != r.Severity {
			t.Errorf("SARIF rule %s %s %q %s, want %s %s %q %s", s.ID, s.Name, s.ShortDescription.Text, s.DefaultConfiguration.Level,
				r.Code, r.Name, r.Doc, r.Severity)
		}
	}
}
