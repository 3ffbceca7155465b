package service

import (
	"errors"
	"fmt"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/runs"
)

// ErrNoStore is returned by what needs the run store when the Service has none.
var ErrNoStore = errors.New("no run store")

// ErrShuttingDown is returned by Start and Resume once Close was called.
var ErrShuttingDown = errors.New("the service is shutting down")

// NotFoundError says there is no run ID in the store (errors.Is runs.ErrNotFound).
type NotFoundError struct {
	ID    string
	Store string // where the store is (runs.Store.Path)
	lang  i18n.Lang
}

func (e *NotFoundError) Error() string {
	return i18n.Sprintf(e.lang, "no run %s in %s; `seam runs list` shows the runs", e.ID, e.Store)
}

func (e *NotFoundError) Unwrap() error { return runs.ErrNotFound }

// NoRunsError says "latest" names no run: the store has none yet.
type NoRunsError struct {
	Store string
	lang  i18n.Lang
}

func (e *NoRunsError) Error() string { return i18n.Sprintf(e.lang, "no runs in %s yet", e.Store) }

// LintError says lint found errors in the DAG, so it was not run. Findings holds them all,
// warnings too, in the file's order.
type LintError struct {
	File             string
	Findings         []lint.Finding
	Errors, Warnings int
	lang             i18n.Lang
}

func (e *LintError) Error() string {
	if e.Errors == 1 {
		return i18n.Sprintf(e.lang, "%s: not run: lint found 1 error (--no-lint runs it anyway)", e.File)
	}
	return i18n.Sprintf(e.lang, "%s: not run: lint found %d errors (--no-lint runs it anyway)", e.File, e.Errors)
}

// Refusal says why a run cannot be resumed.
type Refusal int

// Why a run cannot be resumed.
const (
	// NoStore: the resume was asked without a run store to read the run from.
	NoStore Refusal = iota + 1
	// ParamsGiven: params were given; a resume runs with those the run started with.
	ParamsGiven
	// Finished: the run succeeded or warned; there is nothing to resume.
	Finished
	// StillRunning: a process (this one, or another still alive) is running it.
	StillRunning
	// NoFile: no DAG file was recorded with the run and none was given.
	NoFile
	// MissingFile: the DAG file cannot be read (Err says why).
	MissingFile
	// OtherDAG: the DAG file now defines another DAG (Defines).
	OtherDAG
	// NoSuchNode: a rerun from a node names a node the DAG does not have (Node).
	NoSuchNode
)

// NotResumableError says why run ID cannot be resumed.
type NotResumableError struct {
	Why Refusal
	ID  string
	// Run is the stored run, when it was read (not for NoStore and ParamsGiven).
	Run *runs.Run
	// File is the DAG file the resume would run (MissingFile, OtherDAG).
	File string
	// Defines is the name of the DAG File defines (OtherDAG).
	Defines string
	// Node is the node a rerun was asked to start from (NoSuchNode).
	Node string
	// Err is why File cannot be read (MissingFile).
	Err  error
	lang i18n.Lang
}

func (e *NotResumableError) Error() string {
	l := e.lang
	switch e.Why {
	case NoStore:
		return i18n.Sprintf(l, "--resume reads the run from the store: it cannot be combined with --no-store")
	case ParamsGiven:
		return i18n.Sprintf(l, "--resume runs with the params run %s started with: drop -p and --params-file", e.ID)
	case Finished:
		return i18n.Sprintf(l, "run %s finished with %s: there is nothing to resume", e.ID, runs.StatusText(l, e.Run.Status))
	case StillRunning:
		return i18n.Sprintf(l, "run %s is still running (process %d on %s); resume it once that process has stopped", e.ID, e.Run.PID, e.Run.Host)
	case NoFile:
		return i18n.Sprintf(l, "run %s has no DAG file recorded: give it, `seam run --resume %s FILE`", e.ID, e.ID)
	case MissingFile:
		return i18n.Errorf(l, "resume run %s: its DAG file: %w; if it moved, give it: `seam run --resume %s FILE`", e.ID, e.Err, e.ID).Error()
	case OtherDAG:
		return i18n.Sprintf(l, "run %s ran DAG %q, but %s defines %q: resume it with its own DAG file", e.ID, e.Run.DAG, e.File, e.Defines)
	case NoSuchNode:
		return i18n.Sprintf(l, "run %s of DAG %q has no node %q to rerun from", e.ID, e.Run.DAG, e.Node)
	}
	return fmt.Sprintf("run %s cannot be resumed", e.ID)
}

func (e *NotResumableError) Unwrap() error { return e.Err }

// NotRunningError says Cancel found run ID not running in this process.
type NotRunningError struct {
	ID string
	// Status is the run's recorded status: running when another process runs it (or ran it
	// and died), else how it ended.
	Status dag.RunStatus
	lang   i18n.Lang
}

func (e *NotRunningError) Error() string {
	if e.Status == dag.RunRunning {
		return i18n.Sprintf(e.lang, "run %s is recorded as running but not by this process: stop it where it runs", e.ID)
	}
	return i18n.Sprintf(e.lang, "run %s has already finished: %s", e.ID, runs.StatusText(e.lang, e.Status))
}

// ChangedWarning says the DAG file a run is resumed from changed since the run: the nodes
// whose definition or input changed run again. A resume goes on; its Warn hears of it.
type ChangedWarning struct {
	File string // as the resume was given it
	ID   string
	lang i18n.Lang
}

func (w *ChangedWarning) Error() string {
	return i18n.Sprintf(w.lang, "%s changed since run %s: nodes whose definition or input changed run again", w.File, w.ID)
}

// PanicError says the run panicked outside what the engine recovers; the run is recorded
// failed if it was recorded at all.
type PanicError struct {
	ID    string
	Value any
	lang  i18n.Lang
}

func (e *PanicError) Error() string {
	return i18n.Sprintf(e.lang, "internal error in %s: %s", "run "+e.ID, fmt.Sprint(e.Value))
}
