package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestReadmeTour runs the README's tour (testdata/tour/readme.txtar) in the README's order,
// over copies of the repository's dags/ and schemas/, and checks what the README shows. The
// seam the script runs is this test binary: built once, as the tour builds it once.
func TestReadmeTour(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/tour",
		Setup: func(env *testscript.Env) error {
			env.Setenv("SEAM_LANG", "en")
			for _, dir := range []string{"dags", "schemas"} {
				if err := os.CopyFS(filepath.Join(env.WorkDir, dir), os.DirFS(filepath.Join("..", "..", dir))); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
