package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
)

// loadDAG loads the DAG file at path through the CLI's workspace. When the file is wrong it
// prints every diagnostic on stderr, in lang, and returns a usage error (exit 2) that counts
// them.
func loadDAG(ctx context.Context, e *env, path string, lang i18n.Lang) (*dag.DAG, error) {
	w, err := openWorkspace(e, "", lang)
	if err != nil {
		return nil, err
	}
	d, err := w.Load(ctx, path)
	if err != nil {
		return nil, loadFailed(e, path, lang, err)
	}
	return d, nil
}

// loadFailed prints the diagnostics of a DAG file that did not load (err from a workspace's Load) on
// stderr and returns the usage error (exit 2) that counts them, in lang.
func loadFailed(e *env, path string, lang i18n.Lang, err error) error {
	var ds dag.Diagnostics
	if !errors.As(err, &ds) {
		return usage(err)
	}
	for _, diag := range ds {
		fmt.Fprintln(e.stderr, diag)
	}
	return usage(errors.New(i18n.Plural(lang, len(ds), "%s: %d error", "%s: %d errors", path, len(ds))))
}

// readFile reads a file the user named: a regular file within $SEAM_MAX_FILE_SIZE (see
// userfile), so that /dev/zero or a named pipe fails instead of hanging the command.
func (e *env) readFile(path string) ([]byte, error) {
	limit, err := userfile.MaxSize(e.getenv)
	if err != nil {
		return nil, err
	}
	return userfile.Read(path, limit)
}

// readInput reads a document the user named: the file, or stdin for "-", within the same
// limit.
func (e *env) readInput(name string) ([]byte, error) {
	if name != "-" {
		return e.readFile(name)
	}
	limit, err := userfile.MaxSize(e.getenv)
	if err != nil {
		return nil, err
	}
	return userfile.ReadAll(e.stdin, "stdin", limit)
}

// catalogUsage describes --catalog, which validate and compat share.
const catalogUsage = "a folder of vendored schemas that $refs by absolute URL resolve to: DIR, or PREFIX=DIR (https://json.schemastore.org/=vendor/schemastore); repeatable"

// compiler returns a schema compiler that reads schema files as readFile does.
func (e *env) compiler(opts contract.Options) (*contract.Compiler, error) {
	opts.ReadFile = e.readFile
	return contract.NewCompiler(opts)
}
