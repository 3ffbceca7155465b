package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTermText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ümlaut, 日本語", "plain text, ümlaut, 日本語"},
		{"lines\n\tand tabs\n", "lines\n\tand tabs\n"},
		{"\x1b]0;pwned\x07\x1b[31mred", `\x1b]0;pwned\x07\x1b[31mred`},
		{"over\rwrite\x00\x7f", `over\x0dwrite\x00\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"not utf-8 \xff\xfe", `not utf-8 \xff\xfe`},
	}
	for _, tt := range tests {
		if got := termText(tt.in); got != tt.want {
			t.Errorf("termText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// pwnedDAG's nodes print a window title and a colour change: in a summary, in stderr and in
// the error that quotes it, and in the summary of an output that fails (its reason).
const pwnedDAG = `version: 1
name: pwned
nodes:
  title:
    type: exec
    with: {command: 'printf "\033]0;pwned\007\033[31m"', shell: true, output: text}
  fails:
    type: exec
    with: {command: 'printf "\033]0;pwned\007\033[31m" >&2; exit 1', shell: true}
  says:
    type: exec
    with: {command: [echo, '{"status":"fail","summary":"\u001b]0;pwned\u0007\u001b[31m"}']}
`

// TestTerminalEscapesNodeText runs a DAG whose nodes print terminal escapes, then explains
// a failed one and shows and watches the run, as seam does on a terminal (e.terminal) and
// elsewhere: on a terminal, nothing a node printed reaches it raw; elsewhere (a pipe, a file)
// it is left as it is.
func TestTerminalEscapesNodeText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pwned.yaml")
	if err := os.WriteFile(file, []byte(pwnedDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "s.db")
	for _, tt := range []struct {
		terminal bool
		want     string
	}{
		{true, `\x1b]0;pwned\x07\x1b[31m`},
		{false, "\x1b]0;pwned\x07\x1b[31m"},
	} {
		for _, args := range [][]string{{"run", "--store", store, file}, {"explain", "--store", store, "latest", "fails"},
			{"runs", "show", "--store", store, "latest"}, {"runs", "watch", "--store", store, "latest"}} {
			var out bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: func(k string) string {
				if k == "SEAM_LANG" {
					return "en"
				}
				return ""
			}, terminal: func(io.Writer) bool { return tt.terminal }}
			root := newRootCmd(e)
			root.SetArgs(args)
			root.ExecuteContext(t.Context()) // the run fails
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("seam %s (terminal %v) does not show %q:\n%s", strings.Join(args[:2], " "), tt.terminal, tt.want, out.String())
			}
			if tt.terminal && strings.ContainsAny(out.String(), "\x1b\x07") {
				t.Errorf("seam %s wrote a node's escapes to a terminal raw:\n%q", strings.Join(args[:2], " "), out.String())
			}
		}
	}
}

// TestTerminalEscapesOutputs: the DAG's outputs that `seam run` prints as JSON hold DEL and
// a C1 control (CSI) from a node, which encoding/json writes raw: on a terminal they are
// shown as \u escapes, elsewhere as recorded.
func TestTerminalEscapesOutputs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.yaml")
	dag := "version: 1\nname: out\nnodes:\n  n:\n    type: exec\n    with: {command: [printf, 'a\\302\\23331m\\177'], output: text}\n" +
		"outputs:\n  said: \"${{ nodes.n.output.data.text }}\"\n"
	if err := os.WriteFile(file, []byte(dag), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		terminal bool
		want     string
	}{
		{true, `said: "a\u009b31m\u007f"`},
		{false, "said: \"a\u009b31m\x7f\""},
	} {
		var out bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: func(string) string { return "" },
			terminal: func(io.Writer) bool { return tt.terminal }}
		root := newRootCmd(e)
		root.SetArgs([]string{"run", "--store", filepath.Join(filepath.Dir(file), "s.db"), file})
		if err := root.ExecuteContext(t.Context()); err != nil {
			t.Fatalf("seam run: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("seam run (terminal %v) does not show %q:\n%q", tt.terminal, tt.want, out.String())
		}
	}
}

// TestTerminalEscapesRunsList: a DAG's name is the DAG file's to choose, escapes included;
// `seam runs list` shows it escaped on a terminal, as recorded elsewhere.
func TestTerminalEscapesRunsList(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "named.yaml")
	src := "version: 1\nname: \"x\\e]0;pwned\\a\"\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: ok}}}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "s.db")
	for _, tt := range []struct {
		terminal bool
		want     string
	}{
		{true, `x\x1b]0;pwned\x07`},
		{false, "x\x1b]0;pwned\x07"},
	} {
		var out bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: func(string) string { return "" },
			terminal: func(io.Writer) bool { return tt.terminal }}
		for _, args := range [][]string{{"run", "--store", store, file}, {"runs", "list", "--store", store}} {
			out.Reset()
			root := newRootCmd(e)
			root.SetArgs(args)
			if err := root.ExecuteContext(t.Context()); err != nil {
				t.Fatalf("seam %s: %v\n%s", strings.Join(args, " "), err, out.String())
			}
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("runs list (terminal %v) does not show %q:\n%s", tt.terminal, tt.want, out.String())
		}
		if tt.terminal && strings.ContainsAny(out.String(), "\x1b\x07") {
			t.Errorf("runs list wrote a DAG name's escapes to a terminal raw:\n%q", out.String())
		}
	}
}
