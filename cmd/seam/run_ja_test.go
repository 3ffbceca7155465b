package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestExamplesJapanese runs every example DAG in dags/ in Japanese (SEAM_LANG=ja), then shows
// each run (seam runs show, seam runs list) and explains each node that did not pass, all in
// Japanese, and fails on any English sentence left outside names and values: what remains of
// the output once the nodes' own words (their summaries, outputs and logs, read from the same
// run with --json), quoted and JSON values, file names, numbers, durations, run ids and codes
// are taken out must hold no run of two English words.
func TestExamplesJapanese(t *testing.T) {
	files, err := filepath.Glob("../../dags/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal("no example DAGs in dags/", err)
	}
	store := filepath.Join(t.TempDir(), "seam.db")
	getenv := func(k string) string {
		switch k {
		case "SEAM_LANG":
			return "ja"
		case "SEAM_STORE":
			return store
		}
		return ""
	}
	setups := exampleSetups()
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			args, env := exampleRun(t, setups, file, getenv)
			seam := func(args ...string) string {
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader(""), &stdout, &stderr, env)
				out := stdout.String() + stderr.String()
				t.Logf("seam %s (exit %d):\n%s", strings.Join(args, " "), code, out)
				return out
			}
			var values []string
			if doc := seam(append(args, "--json", "--no-store")...); strings.HasPrefix(doc, "{") {
				values = nodeWords(t, doc)
			}
			out := seam(args...)
			checkJapanese(t, out, values)
			id := runIDPattern.FindString(out)
			if id == "" {
				return // it did not run: lint stopped it (its findings are lint's, checked by lint_ja.txtar)
			}
			show := seam("runs", "show", "--lang", "ja", id)
			checkJapanese(t, show, values)
			for _, m := range regexp.MustCompile(`(?m)^[✗!-] (\S+) `).FindAllStringSubmatch(show, -1) {
				checkJapanese(t, seam("explain", id, m[1]), values)
			}
			checkJapanese(t, seam("runs", "list", "--lang", "ja", "--limit", "3"), values)
		})
	}
}

// runIDPattern matches a run id (engine.NewRunID).
var runIDPattern = regexp.MustCompile(`\d{8}T\d{6}\.\d{3}-[0-9a-f]{8}`)

// notWords are the parts of the output that are names and values, not sentences.
var notWords = []*regexp.Regexp{
	regexp.MustCompile(`"(?:[^"\\]|\\.)*"`),                 // quoted values, JSON strings
	regexp.MustCompile(`'[^']*'`),                           // quoted names
	regexp.MustCompile("`[^`]*`"),                           // commands
	regexp.MustCompile(`(?m)^ *\| .*$`),                     // a node's log (stderr of its script)
	regexp.MustCompile(`(?m)\bstderr: .*$`),                 // exec's excerpt of it in a reason
	regexp.MustCompile(`(?m)^ +\d+ \| .*$`),                 // lines of the DAG file
	regexp.MustCompile(`https?://\S+`),                      // URLs
	regexp.MustCompile(`\$\{\{.*?\}\}`),                     // references
	regexp.MustCompile(`\$[A-Z_]+`),                         // environment variables
	regexp.MustCompile(`--[a-z-]+`),                         // flags
	regexp.MustCompile(`SEAM-[A-Z]\d+`),                     // codes
	regexp.MustCompile(`\S+\.(?:yaml|yml|json|db|py|sh)\b`), // files
	regexp.MustCompile(`(?:/[\w~.-]+)+`),                    // JSON pointers, paths
	regexp.MustCompile(`\bseam (?:explain|run|runs|lint)\b`),
	regexp.MustCompile(`\d+(?:\.\d+)?(?:µs|ms|s|m\d+s)?`), // numbers and durations
}

// nodeTypeWords are names a reason gives in English: the node type and the program it ran
// ("exec sh -c: 終了コード 75").
var nodeTypeWords = []string{"exec sh"}

// checkJapanese fails when out, the nodes' own words (values) and names taken out, holds two
// English words in a row.
func checkJapanese(t *testing.T, out string, values []string) {
	t.Helper()
	// Run ids first: a short value (an execution id, "1") replaced inside one would leave its
	// hex tail and the next name to read as words.
	rest := runIDPattern.ReplaceAllString(out, " ¦ ")
	for _, v := range values {
		rest = strings.ReplaceAll(rest, v, " ¦ ")
	}
	for _, re := range notWords {
		rest = re.ReplaceAllString(rest, " ¦ ") // a value ends a run of words
	}
	for _, m := range englishRun.FindAllString(rest, -1) {
		m = strings.Join(strings.Fields(m), " ")
		if !slices.Contains(nodeTypeWords, m) {
			t.Errorf("English %q in:\n%s", m, out)
		}
	}
}

// englishRun is two or more English words in a row.
var englishRun = regexp.MustCompile(`[A-Za-z][A-Za-z'_-]*(?:[ \t]+[A-Za-z][A-Za-z'_-]*)+`)

// nodeWords are the strings the nodes of a run said themselves (doc is seam run --json): the
// summaries of the nodes that are not seam's own (a foreach node's, a dag node's), every string
// in their outputs and in the DAG's outputs, their logs; longest first.
func nodeWords(t *testing.T, doc string) []string {
	t.Helper()
	var res struct {
		Nodes []struct {
			Type    string `json:"type"`
			Items   int    `json:"items"`
			Summary string `json:"summary"`
			Output  any    `json:"output"`
			Log     string `json:"log"`
		} `json:"nodes"`
		Outputs any `json:"outputs"`
	}
	// The document, then what seam said on stderr.
	if err := json.NewDecoder(strings.NewReader(doc)).Decode(&res); err != nil {
		t.Fatalf("seam run --json: %v\n%s", err, doc)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, n := range res.Nodes {
		if n.Type == "dag" || n.Items > 0 {
			continue
		}
		out = append(out, n.Summary, n.Log)
		if o, ok := n.Output.(map[string]any); ok {
			walk(o["data"])
		}
	}
	walk(res.Outputs)
	out = slices.DeleteFunc(out, func(s string) bool { return strings.TrimSpace(s) == "" })
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
