package main

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// touchDAG is a DAG whose node leaves a file behind: a side effect that shows it ran.
const touchDAG = `version: 1
name: touch
nodes:
  touch:
    type: exec
    with:
      command: 'touch made && echo "{\"status\":\"pass\",\"summary\":\"made\"}"'
      shell: true
`

// seamIn runs the seam executable in dir and returns its combined output and exit code.
func seamIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	seam, err := exec.LookPath("seam") // testscript.Main put the test binary on PATH as seam
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(seam, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SEAM_LANG=en")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestDamagedStoreRefusesRun damages a page of a real store: seam run refuses it before any
// node runs, and says what to do.
func TestDamagedStoreRefusesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "touch.yaml"), []byte(touchDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 { // enough runs for several pages
		if out, code := seamIn(t, dir, "run", "--store", "s.db", "touch.yaml"); code != 0 {
			t.Fatalf("seam run: exit %d\n%s", code, out)
		}
	}
	if err := os.Remove(filepath.Join(dir, "made")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.db")
	// The last page of the tables (not of the schema's list of them, which the store reads
	// to open at all) holds the newest attempts and outputs: damaged, the store still opens,
	// and its check refuses the run before the node runs.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pageno int
	err = db.QueryRowContext(t.Context(), `SELECT max(pageno) FROM dbstat WHERE name <> 'sqlite_schema'`).Scan(&pageno)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // SQLite's default page size
	last := (pageno - 1) * page
	copy(b[last:last+64], strings.Repeat("\xff", 64))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	out, code := seamIn(t, dir, "run", "--store", "s.db", "touch.yaml")
	if code != 2 || !strings.HasPrefix(out, "seam: check store s.db: the store is damaged: ") ||
		!strings.Contains(out, "\n  fix: nothing ran; move the file aside (mv s.db s.db.damaged) for a new store, or recover its runs with sqlite3's .recover; --no-store runs without one\n") {
		t.Errorf("seam run on a damaged store: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Errorf("the node ran on a damaged store")
	}
}

// TestReadOnlyStoreDir reads a store whose directory cannot be written: seam runs list,
// runs show and explain work. Root writes anywhere, so as root the directory is made
// read-only by a read-only bind mount in a mount namespace of its own (unshare -m).
func TestReadOnlyStoreDir(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dir := t.TempDir()
	stores := filepath.Join(dir, "stores")
	if err := os.Mkdir(stores, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "touch.yaml"), []byte(touchDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := seamIn(t, dir, "run", "--store", "stores/s.db", "touch.yaml"); code != 0 {
		t.Fatalf("seam run: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"runs", "list", "--store", "stores/s.db"},
		{"runs", "show", "latest", "--store", "stores/s.db"},
		{"explain", "latest", "touch", "--store", "stores/s.db"},
	} {
		var out string
		var code int
		if os.Geteuid() == 0 {
			unshare, err := exec.LookPath("unshare")
			if err != nil {
				t.Skip("as root only a read-only mount makes a directory read-only, and unshare is missing")
			}
			seam, _ := exec.LookPath("seam")
			script := `mount --bind stores stores && mount -o remount,ro,bind stores stores || exit 99; exec "$0" "$@"`
			cmd := exec.Command(unshare, append([]string{"-m", "sh", "-c", script, seam}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SEAM_LANG=en")
			b, _ := cmd.CombinedOutput()
			out, code = string(b), cmd.ProcessState.ExitCode()
			if code == 99 {
				t.Skipf("as root only a read-only mount makes a directory read-only, and mounting failed: %s", out)
			}
		} else {
			if err := os.Chmod(stores, 0o555); err != nil {
				t.Fatal(err)
			}
			out, code = seamIn(t, dir, args...)
			os.Chmod(stores, 0o755)
		}
		if code != 0 || !strings.Contains(out, "touch") {
			t.Errorf("seam %s in a read-only directory: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
}
