package main

import (
	"os"
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
	})
}
