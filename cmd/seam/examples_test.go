package main

import (
	"fmt"
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

// TestDocExamplesLint: what the README and docs/ show a new user lints clean: every DAG file
// they show in a yaml block (a top-level version and nodes), with the files such a block
// names from testdata/docs, and every file of dags/ they name, but those that exist to show
// an error (dags/lint-*.yaml, dags/tour/bad.yaml). A warning counts: a user's first lint of
// an example should say "no problems".
func TestDocExamplesLint(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "docs"))); err != nil {
		t.Fatal(err)
	}
	type example struct{ name, path string }
	var examples []example
	named := map[string]bool{}
	dagPath := regexp.MustCompile(`dags/[A-Za-z0-9_./-]+\.ya?ml`)
	showsError := regexp.MustCompile(`^dags/(lint-[^/]+|tour/bad)\.yaml$`)
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range dagPath.FindAllString(string(src), -1) {
			full := filepath.Join(root, filepath.FromSlash(p))
			if _, err := os.Stat(full); err == nil && !showsError.MatchString(p) && !named[p] {
				named[p] = true
				examples = append(examples, example{p, full})
			}
		}
		for line, block := range yamlBlocks(string(src)) {
			if !regexp.MustCompile(`(?m)^version:`).MatchString(block) || !regexp.MustCompile(`(?m)^nodes:`).MatchString(block) {
				continue
			}
			name := fmt.Sprintf("%s:%d", filepath.Base(doc), line)
			p := filepath.Join(dir, strings.NewReplacer(".", "-", ":", "-").Replace(name)+".yaml")
			if err := os.WriteFile(p, []byte(block), 0o644); err != nil {
				t.Fatal(err)
			}
			examples = append(examples, example{name, p})
		}
	}
	if len(examples) < 10 {
		t.Fatalf("found %d examples in the README and docs/; the extraction is broken", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			var out strings.Builder
			code := run([]string{"lint", "--lang", "en", ex.path}, strings.NewReader(""), &out, &out, func(string) string { return "" })
			if code != 0 || strings.TrimSpace(out.String()) != "no problems" {
				t.Errorf("seam lint %s: exit %d, want 0 and no problems:\n%s", ex.name, code, out.String())
			}
		})
	}
}

// yamlBlocks are the fenced ```yaml blocks of a Markdown text, by the line their content
// starts on, unindented as far as their fence is.
func yamlBlocks(md string) map[int]string {
	blocks := map[int]string{}
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(fence, "```yaml") {
			continue
		}
		indent := len(lines[i]) - len(fence)
		var b strings.Builder
		start := i + 2
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[i], " "), "```"); i++ {
			l := lines[i]
			l = l[min(indent, len(l)-len(strings.TrimLeft(l, " "))):]
			b.WriteString(l + "\n")
		}
		blocks[start] = b.String()
	}
	return blocks
}
