package lint

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRulesDocumented checks docs/errors.md against the rule table: its list of lint codes
// holds exactly the table's rules, in order, with their names and texts; every lint code it
// has a section for is in the table; and each section's fix is the rule's.
func TestRulesDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, r := range Rules() {
		want = append(want, fmt.Sprintf("| [%s](#%s) | %s | %s |", r.Code, strings.ToLower(r.Code), r.Name, r.Doc))
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\| \[SEAM-[EW]3.*$`).FindAllString(doc, -1) {
		got = append(got, m)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/errors.md lists the lint codes\n%s\nwant (from Rules)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	fixes := map[string]string{}
	for _, sec := range strings.Split(doc, "\n## ")[1:] {
		code, body, _ := strings.Cut(sec, "\n")
		if !regexp.MustCompile(`^SEAM-[EW]3\d\d$`).MatchString(code) {
			continue
		}
		fix := regexp.MustCompile(`(?s)\*\*Fix:\*\* (.*?)(?:\n\n|\z)`).FindStringSubmatch(body)
		if fix == nil {
			t.Errorf("%s: its section has no **Fix:**", code)
			continue
		}
		fixes[code] = strings.Join(strings.Fields(fix[1]), " ")
	}
	if len(fixes) != len(Rules()) {
		t.Errorf("docs/errors.md has sections for %d lint codes, Rules %d", len(fixes), len(Rules()))
	}
	for _, r := range Rules() {
		if fixes[r.Code] != r.Fix {
			t.Errorf("%s: docs/errors.md says to fix it\n  %q\nRules\n  %q", r.Code, fixes[r.Code], r.Fix)
		}
	}
}

// TestRules checks the table itself: codes unique and in order, each rule complete, its
// severity the one its code's letter says.
func TestRules(t *testing.T) {
	rs := Rules()
	for i, r := range rs {
		if i > 0 && r.Code <= rs[i-1].Code {
			t.Errorf("%s after %s: codes must be unique and in order", r.Code, rs[i-1].Code)
		}
		if r.Name == "" || r.Doc == "" || r.Fix == "" {
			t.Errorf("%s: incomplete rule %+v", r.Code, r)
		}
		if want := map[byte]string{'E': SeverityError, 'W': SeverityWarning}[r.Code[len("SEAM-")]]; r.Severity != want {
			t.Errorf("%s: severity %q, want %q", r.Code, r.Severity, want)
		}
	}
}
