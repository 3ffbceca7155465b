package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestGitHubActionsExample checks docs/examples/github-actions.yml as a user copies it: it
// sets Go up with actions/setup-go, installs a pinned seam (never @latest: a new seam changes
// verdicts), runs the gate with --policy, and every seam command it runs parses with this
// seam's commands and flags, so the example cannot drift from the CLI.
func TestGitHubActionsExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var uses, runs []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Uses != "" {
				uses = append(uses, s.Uses)
			}
			if s.Run != "" {
				runs = append(runs, strings.TrimSpace(s.Run))
			}
		}
	}
	pinned := regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	tests := []struct {
		name string
		ok   func() bool
	}{
		{"sets Go up with actions/setup-go", func() bool { return anyMatch(uses, `^actions/setup-go@v\d+$`) }},
		{"installs seam at a pinned version", func() bool {
			return pinned.MatchString(wf.Env["SEAM_VERSION"]) &&
				anyMatch(runs, `^go install "?github\.com/seam-dag/seam/cmd/seam@\$\{SEAM_VERSION\}"?$`)
		}},
		{"runs the gate with --policy", func() bool { return anyMatch(runs, `^seam lint --against .* --policy \S+`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok() {
				t.Errorf("the example does not: uses %q, runs %q, env %v", uses, runs, wf.Env)
			}
		})
	}
	for _, line := range runs {
		if !strings.HasPrefix(line, "seam ") {
			continue
		}
		t.Run(line, func(t *testing.T) {
			var args []string
			for _, f := range strings.Fields(line)[1:] {
				args = append(args, strings.Trim(f, `"'`))
			}
			root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
			cmd, rest, err := root.Find(args)
			if err != nil {
				t.Fatalf("seam does not know %q: %v", line, err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		})
	}
}

// anyMatch says whether one of lines matches the regular expression re.
func anyMatch(lines []string, re string) bool {
	for _, l := range lines {
		if regexp.MustCompile(re).MatchString(l) {
			return true
		}
	}
	return false
}
