// Command seam runs DAGs whose edges are guarded by output contracts.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/internal/buildinfo"
	"github.com/seam-dag/seam/internal/harden"
	"github.com/seam-dag/seam/internal/i18n"
)

func main() {
	_ = harden.NotDumpable() // best effort: a sandbox may refuse it, and seam runs all the same
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// exitError carries an exit code: 1 when a run or check failed, 2 for usage or input errors.
// Its message, when not empty, is printed to stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// failed reports that the run or check failed (exit 1) after its result was printed.
func failed() error { return &exitError{code: 1} }

// failedWith is a check that could not be made, said on stderr, with exit code 1.
func failedWith(err error) error { return &exitError{code: 1, err: err} }

// usage reports a usage or input error (exit 2).
func usage(err error) error { return &exitError{code: 2, err: err} }

// env is what commands read from the process environment, injectable for tests.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	tel    *runTelemetry // seam run's telemetry, once set up (telemetry.go)
	// terminal says whether a writer is a terminal, where node text is escaped (termText);
	// nil asks the terminal itself.
	terminal func(io.Writer) bool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := withSignals(context.Background())
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := newRootCmd(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	code := exitCode(cmd, err, stderr)
	// A command stopped by a signal has cleaned up (runs recorded canceled, children killed,
	// telemetry flushed) and exits as a process killed by it would: 128+n.
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		return 128 + int(se.sig)
	}
	return code
}

// exitCode prints the error of cmd, the command that ran, if any, and returns its exit code.
func exitCode(cmd *cobra.Command, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil {
			fmt.Fprintln(stderr, "seam:", xe.err)
		}
		return xe.code
	}
	// Cobra's own errors (unknown flag, wrong argument count) are usage errors; they say
	// what is wrong, the usage line says what is right.
	fmt.Fprintln(stderr, "seam:", err)
	if cmd != nil && cmd.Runnable() {
		fmt.Fprintf(stderr, "usage: %s (%s --help says more)\n", cmd.UseLine(), cmd.CommandPath())
	}
	return 2
}

// stopSignals are the signals that stop seam cleanly: Ctrl-C, and what systemd, Docker,
// Kubernetes and CI send (SIGTERM), and a closed terminal (SIGHUP).
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// signalError is the cause of the context a signal cancelled.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// withSignals returns a context that the first of stopSignals cancels, with a *signalError
// as its cause. That first signal also restores the default action, so that a second one
// stops the process the usual way instead of being swallowed while seam cleans up.
func withSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals()...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Reset(stopSignals()...)
			cancel(&signalError{sig: s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "seam",
		Short:         "Run DAGs whose edges are guarded by output contracts",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Short(),
	}
	root.SetVersionTemplate("seam {{.Version}}\n")
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.PersistentFlags().String("lang", "", "message language: en or ja (default: $SEAM_LANG, then the locale)")
	// --store names the store in use wherever $SEAM_STORE is read: runs mask its password.
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if f := cmd.Flags().Lookup("store"); f != nil && f.Value.String() != "" {
			getenv, loc := e.getenv, f.Value.String()
			e.getenv = func(k string) string {
				if k == "SEAM_STORE" {
					return loc
				}
				return getenv(k)
			}
		}
	}
	root.AddCommand(
		newRunCmd(e),
		newValidateCmd(e),
		newTypesCmd(e),
		newGraphCmd(e),
		newCompatCmd(e),
		newLintCmd(e),
		newSchemaCmd(e),
		newRunsCmd(e),
		newStoreCmd(e),
		newExplainCmd(e),
		newN8NCmd(e),
		newMCPCmd(e),
		newServeCmd(e),
		newWorkerCmd(e),
		newVersionCmd(e),
		newTokenCmd(e),
		newScheduleCmd(e),
		newSchedulerCmd(e),
		newAnswerCmd(e, "approve", "Approve a waiting approval of a run, with the form's fields, and continue the run"),
		newAnswerCmd(e, "reject", "Reject a waiting approval of a run, and continue the run"),
		newApprovalsCmd(e),
	)
	return root
}

// lang resolves the message language from --lang, $SEAM_LANG and the locale.
func lang(cmd *cobra.Command, e *env) (i18n.Lang, error) {
	flag, _ := cmd.Flags().GetString("lang")
	l, err := i18n.Resolve(flag, e.getenv)
	if err != nil {
		return "", usage(err)
	}
	return l, nil
}
