package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// writeFiles writes files (by slash path, a trailing "*" on the name making it executable)
// under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptsDAG runs a script beside the DAG file, one in a folder beside it (dir:) that reads a
// file of that folder, and a script that is not executable, given to sh.
const scriptsDAG = `version: 1
name: scripts
nodes:
  classify:
    type: exec
    input: {title: app crashes on login}
    with: {command: [./classify.sh]}
  count:
    type: exec
    with: {command: [./count.sh], dir: tools}
  greet:
    type: exec
    with: {command: [sh, greet.sh, "${{ nodes.classify.output.data.label }}"]}
`

var scripts = map[string]string{
	"classify.sh*":      "#!/bin/sh\ngrep -q crash && l=bug || l=other\necho '{\"status\":\"pass\",\"summary\":\"classified\",\"data\":{\"label\":\"'$l'\"}}'\n",
	"tools/count.sh*":   "#!/bin/sh\necho '{\"status\":\"pass\",\"summary\":\"'$(wc -l < words.txt)' words\"}'\n",
	"tools/words.txt":   "one\ntwo\nthree\n",
	"tools/empty/.keep": "",
	"greet.sh":          "echo '{\"status\":\"pass\",\"summary\":\"hello '$1'\"}'\n",
}

// TestBundleShipsScripts: the scripts exec nodes run beside the DAG file travel in the
// bundle, executable as they were, with the folder a node runs in, so that the run on
// Temporal gives what the embedded engine gives.
func TestBundleShipsScripts(t *testing.T) {
	path := writeDAG(t, scriptsDAG)
	writeFiles(t, filepath.Dir(path), scripts)
	p := runPair(t, path, pairOptions{})
	p.same(t)
	if _, got := p.ran(t); got.Status != dag.RunSuccess || node(t, got, "count").Summary != "3 words" || node(t, got, "greet").Summary != "hello bug" {
		t.Errorf("run %s: %+v", got.Status, got.Nodes)
	}
	if want := []string{"classify.sh", "tools/count.sh"}; !slices.Equal(p.bundle.Exec, want) {
		t.Errorf("executable %v, want %v", p.bundle.Exec, want)
	}
	if want := []string{"tools", "tools/empty"}; !slices.Equal(p.bundle.Dirs, want) {
		t.Errorf("dirs %v, want %v", p.bundle.Dirs, want)
	}
	if _, ok := p.bundle.Files["greet.sh"]; !ok {
		t.Errorf("greet.sh, an argument, is not in the bundle: %v", p.bundle.Files)
	}
	fi, err := os.Stat(filepath.Join(p.workerDir, p.bundle.Hash, "classify.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("classify.sh on the worker: %v, %v", fi, err)
	}
}

// filesType is a node type, not exec, whose nodes use the files its with names: the bundle
// ships what a type names (nodes.LocalFiles), whatever the type.
type filesType struct{}

func (filesType) Name() string         { return "files" }
func (filesType) Doc() string          { return "Uses with.paths and with.dir." }
func (filesType) ConfigSchema() []byte { return []byte(`{"type": "object"}`) }
func (filesType) OutputSchema() []byte { return nil }
func (filesType) Run(context.Context, *nodes.Call) (*nodes.Result, error) {
	return nil, errors.New("not run")
}

func (filesType) LocalFiles(with map[string]any) []nodes.LocalFile {
	files := []nodes.LocalFile{{Path: with["dir"].(string), Written: with["dir"].(string), Dir: true}}
	for _, p := range with["paths"].([]any) {
		files = append(files, nodes.LocalFile{Path: p.(string), Written: p.(string)})
	}
	return files
}

// TestBundleShipsLocalFiles: the files and folders a node type names travel in the bundle,
// and only those, under the bundle's rules (a missing file is left to fail on the worker).
func TestBundleShipsLocalFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"dag.yaml":      "version: 1\nname: f\nnodes:\n  a: {type: files, with: {dir: data, paths: [run.sh, missing.txt]}}\n",
		"run.sh*":       "#!/bin/sh\n",
		"data/rows.csv": "a,b\n",
		"unrelated.txt": "not named\n",
	})
	reg := types()
	reg.Add(filesType{})
	d, err := dag.Load(context.Background(), filepath.Join(dir, "dag.yaml"), dag.LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBundle(d, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	files := slices.Sorted(maps.Keys(b.Files))
	if want := []string{"dag.yaml", "data/rows.csv", "run.sh"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if want := []string{"run.sh"}; !slices.Equal(b.Exec, want) {
		t.Errorf("executable %v, want %v", b.Exec, want)
	}
	if want := []string{"data"}; !slices.Equal(b.Dirs, want) {
		t.Errorf("dirs %v, want %v", b.Dirs, want)
	}
}

// TestBundleShipsAbsoluteSubDAG: a sub-DAG named by its absolute path, in a folder of its
// own, runs on Temporal as on the embedded engine, with the script beside it.
func TestBundleShipsAbsoluteSubDAG(t *testing.T) {
	lib := t.TempDir()
	writeFiles(t, lib, map[string]string{
		"child.yaml":   "version: 1\nname: child\nnodes:\n  s:\n    type: exec\n    with: {command: [./child.sh]}\noutputs:\n  said: \"${{ nodes.s.output.summary }}\"\n",
		"child.sh*":    "#!/bin/sh\necho '{\"status\":\"pass\",\"summary\":\"child ran\"}'\n",
		"unrelated.sh": "not shipped: no node names it\n",
	})
	path := writeDAG(t, fmt.Sprintf("version: 1\nname: parent\nnodes:\n  sub:\n    type: dag\n    with: {file: %s}\n", filepath.Join(lib, "child.yaml")))
	p := runPair(t, path, pairOptions{})
	p.same(t)
	if _, got := p.ran(t); got.Status != dag.RunSuccess {
		t.Errorf("run %s: %+v", got.Status, got.Nodes)
	}
	for n := range p.bundle.Files {
		if strings.HasSuffix(n, "unrelated.sh") {
			t.Errorf("%s is in the bundle", n)
		}
	}
}

// TestSubDAGNotInBundle: a `dag` node whose file its run's bundle lacks fails saying so, in
// the run's language.
func TestSubDAGNotInBundle(t *testing.T) {
	path := writeDAG(t, "version: 1\nname: parent\nnodes:\n  sub:\n    type: dag\n    with: {file: child.yaml}\n")
	writeFiles(t, filepath.Dir(path), map[string]string{"child.yaml": "version: 1\nname: child\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n"})
	d, err := dag.Load(context.Background(), path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	// The host of a run whose bundle holds the DAG file alone starts the node's sub-run.
	start := func(ctx workflow.Context, lang i18n.Lang) (string, error) {
		in := RunInput{RunID: "r1", File: path, Bundle: &Bundle{Main: "dag.yaml", Files: map[string][]byte{"dag.yaml": nil}}}
		h := newHost(ctx, in, d)
		h.startSub(engine.AttemptRequest{Node: "sub", Index: 0, Item: -1, Attempt: 1, With: []byte(`{"file": "child.yaml"}`), Lang: lang})
		return h.Wait().Outcome.Reason, nil
	}
	for _, tc := range []struct {
		lang i18n.Lang
		want string
	}{
		{"en", "dag child.yaml: not in the run's bundle"},
		{"ja", "dag child.yaml: 実行のバンドルにありません"},
	} {
		var s testsuite.WorkflowTestSuite
		s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
		env := s.NewTestWorkflowEnvironment()
		env.RegisterWorkflow(start)
		env.ExecuteWorkflow(start, tc.lang)
		var got string
		if err := env.GetWorkflowResult(&got); err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.lang, got, err, tc.want)
		}
	}
}

// TestBundleRefuses: what an exec node names that cannot travel with the run is refused by
// Engine.Start before it asks Temporal anything, in the run's language, with the fix.
func TestBundleRefuses(t *testing.T) {
	many := map[string]string{}
	for i := range MaxBundleFiles {
		many[fmt.Sprintf("many/f%d", i)] = ""
	}
	dagOf := func(with string) string {
		return "version: 1\nname: s\nnodes:\n  a:\n    type: exec\n    with: " + with + "\n"
	}
	big := "#!/bin/sh\n#" + strings.Repeat("x", MaxBundle)
	size := len(dagOf("{command: [./big.sh]}")) + len(big)
	for _, tc := range []struct {
		name, with string
		files      map[string]string // beside the DAG file's folder (dags/), by slash path
		lang       i18n.Lang
		want       string
	}{
		{"dir outside", "{command: [./x.sh], dir: ../tools}", map[string]string{"tools/x.sh*": "#!/bin/sh\n"}, "en",
			"run s on Temporal: node a: dir ../tools is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or give an absolute path that exists on every worker"},
		{"dir outside, ja", "{command: [./x.sh], dir: ../tools}", map[string]string{"tools/x.sh*": "#!/bin/sh\n"}, "ja",
			"Temporal で s を実行できません: ノード a: dir ../tools は DAG ファイルのフォルダーの外にあるため、Temporal での実行に同梱できません。DAG ファイルのそばに移すか、すべてのワーカーに存在する絶対パスを指定してください"},
		{"script outside", "{command: [../tools/x.sh]}", map[string]string{"tools/x.sh*": "#!/bin/sh\n"}, "en",
			"run s on Temporal: node a: ../tools/x.sh is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or install it on every worker and name it by an absolute path"},
		{"argument outside, ja", "{command: [python3, ../tools/x.py]}", map[string]string{"tools/x.py": "print(1)\n"}, "ja",
			"Temporal で s を実行できません: ノード a: ../tools/x.py は DAG ファイルのフォルダーの外にあるため、Temporal での実行に同梱できません。DAG ファイルのそばに移すか、すべてのワーカーにインストールして絶対パスで指定してください"},
		{"too large", "{command: [./big.sh]}", map[string]string{"dags/big.sh*": big}, "en",
			fmt.Sprintf("run s on Temporal: node a: with DIR/dags/big.sh, the files of the run hold %d bytes, more than the 1048576 a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths", size)},
		{"too large, ja", "{command: [./big.sh]}", map[string]string{"dags/big.sh*": big}, "ja",
			fmt.Sprintf("Temporal で s を実行できません: ノード a: DIR/dags/big.sh を加えると実行のファイルは %d バイトになり、Temporal での実行が運べる 1048576 バイトを超えます（docs/limits.md）。実行するものだけを含む dir をノードに指定するか、ファイルをすべてのワーカーにインストールして絶対パスで指定してください", size)},
		{"too many files", "{command: [ls], dir: many}", prefix("dags/", many), "en",
			"run s on Temporal: node a: with DIR/dags/many/FILE, the run has more than the 1000 files a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths"},
		{"absolute paths stay as they are", "{command: [/bin/true], dir: /}", nil, "en", ""},
		{"a dir a reference computes: paths are not known before the run", "{command: [../tools/x.sh], dir: \"${{ run.name }}\"}", map[string]string{"tools/x.sh*": "#!/bin/sh\n"}, "en", ""},
		{"a missing script fails as on the embedded engine", "{command: [./missing.sh]}", nil, "en", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			writeFiles(t, dir, map[string]string{"dags/dag.yaml": dagOf(tc.with)})
			ctx := context.Background()
			path := filepath.Join(dir, "dags", "dag.yaml")
			if tc.want == "" {
				if _, err := newBundle(ctx, path); err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
			if err != nil {
				t.Fatal(err)
			}
			e := &Engine{} // no client: nothing may reach Temporal
			_, err = e.Start(ctx, d, engine.RunOptions{RunID: "r1", Lang: tc.lang})
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir, "DIR")
				got = manyFile.ReplaceAllString(got, "many/FILE")
			}
			if got != tc.want {
				t.Errorf("Start:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// manyFile is the file of many/ that went past the count in TestBundleRefuses's message.
var manyFile = regexp.MustCompile(`many/f\d+`)

func prefix(p string, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[p+k] = v
	}
	return out
}

// TestBundleLimits: a file a node runs over the file size limit, and files the DAG's loading
// reads that hold more than MaxBundle, are refused by NewBundle in the load's language.
func TestBundleLimits(t *testing.T) {
	large := "version: 1\nname: s\ndescription: " + strings.Repeat("x", MaxBundle) + "\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		maxFile int64
		lang    i18n.Lang
		want    string
	}{
		{"a script over the file limit", map[string]string{
			"dag.yaml": "version: 1\nname: s\nnodes:\n  a:\n    type: exec\n    with: {command: [./big.sh]}\n",
			"big.sh*":  "#!/bin/sh\n#" + strings.Repeat("x", 300),
		}, 200, "en", "node a: a file it runs: DIR/big.sh: 311 bytes is over the 200 bytes limit (SEAM_MAX_FILE_SIZE)"},
		{"a script over the file limit, ja", map[string]string{
			"dag.yaml": "version: 1\nname: s\nnodes:\n  a:\n    type: exec\n    with: {command: [./big.sh]}\n",
			"big.sh*":  "#!/bin/sh\n#" + strings.Repeat("x", 300),
		}, 200, "ja", "ノード a: 実行するファイル: DIR/big.sh: 311 bytes is over the 200 bytes limit (SEAM_MAX_FILE_SIZE)"},
		{"a DAG file over the bundle's limit", map[string]string{
			"dag.yaml": large,
		}, 0, "en", fmt.Sprintf("bundle DIR/dag.yaml: its files hold %d bytes, more than the %d a bundle may (docs/limits.md)", len(large), MaxBundle)},
		{"a DAG file over the bundle's limit, ja", map[string]string{"dag.yaml": large}, 0, "ja",
			fmt.Sprintf("バンドル DIR/dag.yaml: ファイルの合計が %d バイトあり、バンドルの上限 %d バイトを超えています（docs/limits.md）", len(large), MaxBundle)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			d, err := dag.Load(context.Background(), filepath.Join(dir, "dag.yaml"), dag.LoadOptions{Types: types(), MaxFileSize: tc.maxFile, Lang: tc.lang})
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewBundle(d, tc.lang, tc.maxFile)
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir, "DIR")
			}
			if got != tc.want {
				t.Errorf("NewBundle:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
