package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"seam": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) },
	})
}

// TestScript runs the CLI end to end: testdata/script/*.txtar.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// SEAM_UPDATE_SCRIPTS=1 rewrites the files a script compares with (cmp, diff) to what
		// seam printed: read the diff before committing it.
		UpdateScripts: os.Getenv("SEAM_UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			// Messages default to English whatever the machine's locale.
			env.Setenv("SEAM_LANG", "en")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"httpserve": httpserve,
			"expand":    expand,
		},
	})
}

// httpserve DIR serves the files under DIR over HTTP until the script ends, at $SERVER: for
// seam schema vendor, the one command that fetches.
func httpserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpserve DIR")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
	ts.Defer(srv.Close)
	ts.Setenv("SERVER", srv.URL)
}

// expand FILE... replaces $SERVER in the files with its value: the server's port is known
// only once it runs.
func expand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, name := range args {
		b := strings.ReplaceAll(ts.ReadFile(name), "$SERVER", ts.Getenv("SERVER"))
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(b), 0o644))
	}
}
