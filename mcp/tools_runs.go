package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/telemetry"
)

// maxMinimalOutputs bounds the DAG outputs (as JSON) a minimal run answer carries; larger
// outputs are named, and raw returns them.
const maxMinimalOutputs = 1024

// latest names the newest run wherever a tool takes a run id.
const latest = "latest"

func (s *server) addRunTools(srv *sdk.Server) error {
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "get_run",
		Description: "Show a recorded run by id (\"latest\" for the newest): its status, node counts by status and the " +
			"first problems (node, status, message). raw: true adds every attempt, its output, violations, logs and timings.",
		Annotations: readOnlyTool("Show a run"),
	}, s.getRun))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_runs",
		Description: "List recorded runs, newest first, optionally filtered by DAG name, status and start time. Pass " +
			"next_cursor back as cursor for the next page.",
		Annotations: readOnlyTool("List runs"),
	}, s.listRuns))
	if s.opts.ReadOnly {
		return errors.Join(errs...)
	}
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "run_dag",
		Description: "Run a DAG (a file under the root, or YAML given inline) with params, validating every node's output " +
			"against its contract, and record the run. The DAG is linted first and not run when lint finds errors " +
			"(no_lint skips that). By default it returns the run id at once: follow the run with get_run and stop it " +
			"with cancel_run. wait: true returns when the run has finished, with its status, node counts and the first " +
			"problems, sending a progress notification per finished node when the request has a progress token; " +
			"cancelling the request cancels the run. Nodes may run commands and call HTTP services.",
		Annotations: &sdk.ToolAnnotations{Title: "Run a DAG", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.runDAG))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "cancel_run",
		Description: "Cancel a run that run_dag started on this server and that is still going: running nodes are told " +
			"to stop, nodes not started are not run, and the run is recorded as canceled.",
		Annotations: &sdk.ToolAnnotations{Title: "Cancel a run", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.cancelRun))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "resume_run",
		Description: "Run a run that failed or was canceled again, under the same id, from its DAG file as it is now: " +
			"nodes that passed are reused when their definition and input are unchanged, the others run. Fix the " +
			"DAG file (explain_node says what broke), then resume. Returns at once like run_dag, or with wait: true " +
			"when the run has finished.",
		Annotations: &sdk.ToolAnnotations{Title: "Resume a run", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.resumeRun))
	return errors.Join(errs...)
}

// RunInput are run_dag's arguments.
type RunInput struct {
	Path   string         `json:"path,omitempty" jsonschema:"the DAG file, relative to the server's root"`
	YAML   string         `json:"yaml,omitempty" jsonschema:"a DAG written inline, instead of path; its relative paths resolve from the root"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the run's parameters, checked against the DAG's params schema (list_dags shows it)"`
	Wait   bool           `json:"wait,omitempty" jsonschema:"return when the run has finished, with its result, instead of at once with its id"`
	NoLint bool           `json:"no_lint,omitempty" jsonschema:"run even when lint finds errors"`
	Common
}

// nodeProblem is a node that did not pass, as minimal answers show it.
type nodeProblem struct {
	Node    string `json:"node"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Violations counts the contract violations when the message shows the first of several.
	Violations int `json:"violations,omitempty"`
}

// runMinimal is the minimal answer about a run, from run_dag and get_run.
type runMinimal struct {
	ID       string         `json:"id"`
	DAG      string         `json:"dag"`
	Status   string         `json:"status"`
	Nodes    map[string]int `json:"nodes"` // counts by status
	Problems []nodeProblem  `json:"problems,omitempty"`
	// Outputs are the DAG's outputs when small; OutputNames name them otherwise.
	Outputs     any      `json:"outputs,omitempty"`
	OutputNames []string `json:"output_names,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// addNode counts a node and keeps it among the first problems when it did not pass: why, in
// one line (its error, else its first violation, else its reason, else summary, what a warned
// node says why in).
func (m *runMinimal) addNode(node, status, errMsg, reason string, vs []contract.Violation, summary string) {
	m.Nodes[status]++
	if status == string(dag.NodePassed) || len(m.Problems) >= minimalErrors {
		return
	}
	p := nodeProblem{Node: node, Status: status, Message: cmp.Or(errMsg, reason, summary)}
	if errMsg == "" && len(vs) > 0 {
		p.Message = vs[0].Message
		if len(vs) > 1 {
			p.Violations = len(vs) // a count, not words, so that it reads in any language
		}
	}
	m.Problems = append(m.Problems, p)
}

func (m *runMinimal) setOutputs(outputs any, names []string) {
	if outputs == nil || len(names) == 0 {
		return
	}
	if b, err := json.Marshal(outputs); err == nil && len(b) <= maxMinimalOutputs {
		m.Outputs = outputs
		return
	}
	sort.Strings(names)
	m.OutputNames = names
}

// runResult is run_dag's data: the engine's record of the run.
type runResult struct{ *dag.RunResult }

func (r runResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.RunResult) }

func (r runResult) minimal() any {
	m := runMinimal{ID: r.ID, DAG: r.DAG, Status: string(r.Status), Nodes: map[string]int{}, Error: r.Error}
	for _, n := range r.Nodes {
		m.addNode(n.ID, string(n.Status), n.Error, n.Reason, n.Violations, n.Summary)
	}
	names := make([]string, 0, len(r.Outputs))
	for k := range r.Outputs {
		names = append(names, k)
	}
	if len(r.Outputs) > 0 {
		m.setOutputs(r.Outputs, names)
	}
	return m
}

// runStarted is run_dag's data when it returns at once.
type runStarted struct {
	ID    string `json:"id"`
	DAG   string `json:"dag"`
	Nodes int    `json:"nodes"`
}

// runOutcome is what engine.Run returned.
type runOutcome struct {
	res *dag.RunResult
	err error
}

func (s *server) runDAG(ctx context.Context, req *sdk.CallToolRequest, in RunInput) (message, any, error) {
	d, name, err := s.loadInput(ctx, in.Path, in.YAML)
	if err != nil {
		return message{}, nil, err
	}
	if !in.Wait && s.opts.Store == nil {
		return message{}, nil, fail(CodeNoStore, nil, "run_dag returns at once only with a run store to follow the run in: pass wait: true, or start the server with --store")
	}
	params, err := exactObject(req, "params")
	if err != nil {
		return message{}, nil, err
	}
	params = d.WithDefaults(params) // as the run does: a param with a default may be left out
	if d.Params != nil {
		if vs := d.Params.ValidateParams(params, s.opts.Lang); len(vs) > 0 {
			return message{}, nil, fail(CodeInvalidParams, violations(vs), "%s: the params break the DAG's params schema:%s", name, paramsBroken(vs))
		}
	}
	if !in.NoLint {
		if l := s.lint(ctx, d, params); l.Errors > 0 {
			return message{}, nil, fail(CodeLintFailed, l, "%s was not run: lint found %v (lint_dag shows them; no_lint: true runs it anyway)",
				name, howMany(l.Errors, "error"))
		}
	}
	opts := engine.RunOptions{RunID: engine.NewRunID(time.Now()), Params: params, Lang: s.opts.Lang, Getenv: s.opts.Getenv}
	rec := &began{ch: make(chan struct{})}
	if s.opts.Store != nil {
		rec.Recorder = runs.NewRecorder(s.opts.Store, d, runs.RecorderOptions{})
	}
	started := msgf("run %s of %s started: get_run shows how it goes, cancel_run stops it", opts.RunID, d.Name)
	return s.start(ctx, req, d, name, opts, rec, in.Wait, started)
}

// start runs d with opts, recorded by rec when it has a recorder, and answers: at once with
// the run's id (and started as the message) once the run is in the store, or, with wait,
// when the run has finished.
func (s *server) start(ctx context.Context, req *sdk.CallToolRequest, d *dag.DAG, name message, opts engine.RunOptions, rec *began, wait bool, started message) (message, any, error) {
	if rec.Recorder != nil {
		opts.Recorder = rec
	}
	opts.Logger = s.opts.Log // a panic the engine recovers is logged with the server's own
	if s.opts.Instrument != nil {
		s.opts.Instrument(&opts, d)
	}
	// A run the client waits for ends with its request; one it does not wait for outlives it.
	// Either is traced under the client's span when the request carries one.
	base := traceContext(ctx, req)
	var prog *progress
	if wait {
		prog = newProgress(ctx, req, len(d.Nodes), s.opts.Lang)
		if prog != nil {
			opts.Observer = prog
		}
	} else {
		base = context.WithoutCancel(base)
	}
	done := make(chan runOutcome, 1)
	ok := s.runs.start(base, opts.RunID, func(ctx context.Context) {
		res, err := engine.Run(ctx, d, opts)
		done <- runOutcome{res, err}
	}, func(ctx context.Context, p any) {
		done <- runOutcome{err: s.runCrashed(ctx, d, opts.RunID, rec, p)}
	})
	if !ok {
		return message{}, nil, fail(CodeUnavailable, nil, "%s was not run: the server is shutting down", name)
	}
	if !wait {
		select {
		case <-rec.ch:
		case out := <-done:
			// A run that never got into the store did not start: say why. One that did
			// and is already over answers as any other (select picks either when both are
			// ready).
			select {
			case <-rec.ch:
			default:
				return s.runAnswer(name, out)
			}
		}
		return started, runStarted{ID: opts.RunID, DAG: d.Name, Nodes: len(d.Nodes)}, nil
	}
	out := <-done
	prog.stop()
	return s.runAnswer(name, out)
}

// runCrashed records as failed the run id of d that panicked, if it got into the store, and
// returns the failure run_dag answers with.
func (s *server) runCrashed(ctx context.Context, d *dag.DAG, id string, rec *began, p any) error {
	te := internalError("run "+id, p)
	select {
	case <-rec.ch:
	default:
		return te // not in the store: nothing to record
	}
	res := &dag.RunResult{ID: id, DAG: d.Name, File: d.File, Status: dag.RunFailed, Ended: time.Now(), Error: te.msg.String()}
	if err := rec.Recorder.FinishRun(ctx, res); err != nil {
		s.opts.Log.Error("mcp: record the run that panicked as failed", "run", id, "error", err)
	}
	return te
}

// traceContext returns ctx under the span the request's _meta names (traceparent and
// tracestate, as W3C trace context), if any.
func traceContext(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req == nil || req.Params == nil {
		return ctx
	}
	meta := req.Params.GetMeta()
	tp, _ := meta["traceparent"].(string)
	ts, _ := meta["tracestate"].(string)
	if sc := telemetry.ParentFromHeaders(tp, ts); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

// runAnswer is run_dag's answer about a run that has returned.
func (s *server) runAnswer(name message, out runOutcome) (message, any, error) {
	var (
		pe *engine.ParamsError
		te *toolError
	)
	switch {
	case errors.As(out.err, &te):
		return message{}, nil, te
	case errors.As(out.err, &pe):
		return message{}, nil, fail(CodeInvalidParams, violations(pe.Violations), "%s: the params break the DAG's params schema:%s", name, paramsBroken(pe.Violations))
	case out.err != nil:
		return message{}, nil, fail(CodeInternal, nil, "run %s: %v", name, out.err)
	}
	res := out.res
	if res.Error != "" {
		return msgf("run %s of %s: %s: %s", res.ID, res.DAG, res.Status, res.Error), runResult{res}, nil
	}
	return msgf("run %s of %s: %s", res.ID, res.DAG, res.Status), runResult{res}, nil
}

// paramsBroken is the violations of a engine.ParamsError, a line each, for the message that
// says the params break the schema (engine.ParamsError's text would say it a second time).
func paramsBroken(vs []contract.Violation) string {
	var lines strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&lines, "\n  %s: %s", pointerOrRoot(v.Pointer), v.Message)
	}
	return lines.String()
}

// ResumeInput are resume_run's arguments.
type ResumeInput struct {
	ID   string `json:"id" jsonschema:"the run to resume (one that failed or was canceled), or \"latest\""`
	Wait bool   `json:"wait,omitempty" jsonschema:"return when the run has finished, with its result, instead of at once"`
	Common
}

func (s *server) resumeRun(ctx context.Context, req *sdk.CallToolRequest, in ResumeInput) (message, any, error) {
	st, err := s.store()
	if err != nil {
		return message{}, nil, err
	}
	r, _, err := findRun(ctx, st, "id", in.ID)
	if err != nil {
		return message{}, nil, err
	}
	switch {
	case r.Status == dag.RunSuccess || r.Status == dag.RunWarn:
		return message{}, nil, fail(CodeNotResumable, nil, "run %s finished with %s: there is nothing to resume (run_dag runs it again)", r.ID, r.Status)
	case r.Status == dag.RunRunning && (s.runs.running(r.ID) || !r.Interrupted()):
		return message{}, nil, fail(CodeNotResumable, nil, "run %s is still running: wait for it, or stop it with cancel_run, then resume it", r.ID)
	case r.File == "" || r.File == filepath.Join(s.root.dir, inlineName):
		return message{}, nil, fail(CodeNotResumable, nil, "run %s has no DAG file to resume from (an inline DAG): run_dag runs it again", r.ID)
	}
	path := s.root.rel(r.File)
	d, err := s.load(ctx, path)
	if err != nil {
		return message{}, nil, err
	}
	if d.Name != r.DAG {
		return message{}, nil, fail(CodeNotResumable, nil, "run %s ran the DAG %s, but %s now defines %s: run_dag runs it", r.ID, r.DAG, path, d.Name)
	}
	params, err := r.ParamsObject()
	if err != nil {
		return message{}, nil, failVerbatim(CodeInternal, err)
	}
	reuse, err := st.Reusable(ctx, r.ID)
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "read run %s: %v", r.ID, err)
	}
	// The run keeps its id and params; the store's resume check refuses a second resume at once.
	opts := engine.RunOptions{RunID: r.ID, Params: params, Reuse: reuse, Lang: s.opts.Lang, Getenv: s.opts.Getenv}
	rec := &began{ch: make(chan struct{}), Recorder: runs.NewRecorder(st, d, runs.RecorderOptions{Resume: true, Resumes: r.Resumes})}
	started := msgf("run %s of %s resumed: get_run shows how it goes, cancel_run stops it", r.ID, d.Name)
	return s.start(ctx, req, d, verbatim(path), opts, rec, in.Wait, started)
}

// CancelInput are cancel_run's arguments.
type CancelInput struct {
	ID string `json:"id" jsonschema:"the id of a run that run_dag started on this server"`
	Common
}

func (s *server) cancelRun(ctx context.Context, _ *sdk.CallToolRequest, in CancelInput) (message, any, error) {
	if in.ID == "" {
		return message{}, nil, fail(CodeInvalidArgument, nil, "id is empty: give the id run_dag returned (list_runs shows running runs with status: running)")
	}
	if s.runs.cancel(in.ID) {
		return msgf("run %s is being canceled: get_run shows it canceled once its running nodes have stopped", in.ID),
			struct {
				ID string `json:"id"`
			}{in.ID}, nil
	}
	st, err := s.store()
	if err != nil {
		return message{}, nil, fail(CodeNotRunning, nil, "run %s is not running on this server", in.ID)
	}
	r, _, err := st.GetRun(ctx, in.ID)
	switch {
	case errors.Is(err, runs.ErrNotFound):
		return message{}, nil, fail(CodeRunNotFound, nil, "no run %q in the run store (list_runs shows the runs)", in.ID)
	case err != nil:
		return message{}, nil, fail(CodeInternal, nil, "read run %s: %v", in.ID, err)
	case r.Status == dag.RunRunning:
		return message{}, nil, fail(CodeNotRunning, nil, "run %s is recorded as running but not by this server (another process runs it, or ran it and died): stop it there", in.ID)
	}
	return message{}, nil, fail(CodeNotRunning, nil, "run %s has already finished: %s", in.ID, r.Status)
}

// exactObject reads an object argument again from the request, keeping numbers exact (the
// typed input decodes them as float64).
func exactObject(req *sdk.CallToolRequest, name string) (map[string]any, error) {
	v, err := exactArg(req, name)
	if err != nil || v == nil {
		return map[string]any{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fail(CodeInvalidArgument, nil, "%s: want an object", name)
	}
	return m, nil
}

func exactArg(req *sdk.CallToolRequest, name string) (any, error) {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return nil, nil
	}
	all, err := contract.ParseJSON(req.Params.Arguments)
	if err != nil {
		return nil, fail(CodeInvalidArgument, nil, "arguments are not valid JSON: %v", err)
	}
	m, _ := all.(map[string]any)
	return m[name], nil
}

// outputSummary is the summary of a stored output, if it has one.
func outputSummary(out json.RawMessage) string {
	var o struct {
		Summary string `json:"summary"`
	}
	if json.Unmarshal(out, &o) != nil {
		return ""
	}
	return o.Summary
}

// GetRunInput are get_run's arguments.
type GetRunInput struct {
	ID string `json:"id" jsonschema:"the run's id, or \"latest\" for the newest run"`
	Common
}

// storedRun is get_run's data: the run and every attempt, with the outputs of final ones.
type storedRun struct {
	Run      runView         `json:"run"`
	Attempts []storedAttempt `json:"attempts"`
}

// runView is a recorded run as tools show it.
type runView struct {
	ID           string          `json:"id"`
	DAG          string          `json:"dag"`
	File         string          `json:"file,omitempty"`
	FileHash     string          `json:"file_hash,omitempty"`
	Params       json.RawMessage `json:"params,omitempty"`
	Status       dag.RunStatus   `json:"status"`
	Started      time.Time       `json:"started"`
	Ended        time.Time       `json:"ended,omitzero"`
	Resumes      int             `json:"resumes,omitempty"`
	PID          int             `json:"pid,omitempty"`
	Host         string          `json:"host,omitempty"`
	Outputs      json.RawMessage `json:"outputs,omitempty"`
	OutputErrors json.RawMessage `json:"output_errors,omitempty"`
	// Parent and ParentNode: the run and dag node a sub-run belongs to.
	Parent     string `json:"parent,omitempty"`
	ParentNode string `json:"parent_node,omitempty"`
}

func newRunView(r *runs.Run) runView {
	return runView{ID: r.ID, DAG: r.DAG, File: r.File, FileHash: r.FileHash, Params: r.Params, Status: r.Status,
		Started: r.Started, Ended: r.Ended, Resumes: r.Resumes, PID: r.PID, Host: r.Host, Outputs: r.Outputs, OutputErrors: r.OutputErrors,
		Parent: r.Parent, ParentNode: r.ParentNode}
}

// storedAttempt is a recorded attempt as get_run shows it.
type storedAttempt struct {
	Session    int                  `json:"session,omitempty"`
	Node       string               `json:"node"`
	Item       int                  `json:"item"` // -1: the node itself
	Type       string               `json:"type"`
	Attempt    int                  `json:"attempt"`
	Status     dag.NodeStatus       `json:"status"`
	Final      bool                 `json:"final,omitempty"`
	Repaired   bool                 `json:"repaired,omitempty"`
	Reused     bool                 `json:"reused,omitempty"`
	Reason     string               `json:"reason,omitempty"`
	OutputHash string               `json:"output_hash,omitempty"`
	Output     json.RawMessage      `json:"output,omitempty"` // final attempts only
	Violations []contract.Violation `json:"violations,omitempty"`
	Error      string               `json:"error,omitempty"`
	Log        string               `json:"log,omitempty"`
	Started    time.Time            `json:"started,omitzero"`
	Ended      time.Time            `json:"ended,omitzero"`
}

func newStoredAttempt(a runs.Attempt) storedAttempt {
	return storedAttempt{Session: a.Session, Node: a.Node, Item: a.Item, Type: a.Type, Attempt: a.Attempt, Status: a.Status,
		Final: a.Final, Repaired: a.Repaired, Reused: a.Reused, Reason: a.Reason, OutputHash: a.OutputHash,
		Violations: a.Violations, Error: a.Error, Log: a.Log, Started: a.Started, Ended: a.Ended}
}

func (r storedRun) minimal() any {
	m := runMinimal{ID: r.Run.ID, DAG: r.Run.DAG, Status: string(r.Run.Status), Nodes: map[string]int{}}
	// A node's status is its final attempt of the latest session (resumes add sessions).
	final := map[string]storedAttempt{}
	var order []string
	for _, a := range r.Attempts {
		if a.Item != -1 || !a.Final {
			continue
		}
		prev, seen := final[a.Node]
		if !seen {
			order = append(order, a.Node)
		}
		if !seen || a.Session >= prev.Session {
			final[a.Node] = a
		}
	}
	for _, n := range order {
		a := final[n]
		m.addNode(n, string(a.Status), a.Error, a.Reason, a.Violations, outputSummary(a.Output))
	}
	if len(r.Run.Outputs) > 0 {
		var outs map[string]any
		if json.Unmarshal(r.Run.Outputs, &outs) == nil {
			names := make([]string, 0, len(outs))
			for k := range outs {
				names = append(names, k)
			}
			m.setOutputs(outs, names)
		}
	}
	return m
}

func (s *server) store() (runs.Store, error) {
	if s.opts.Store == nil {
		return nil, fail(CodeNoStore, nil, "this server has no run store: start it with --store")
	}
	return s.opts.Store, nil
}

func (s *server) getRun(ctx context.Context, _ *sdk.CallToolRequest, in GetRunInput) (message, any, error) {
	st, err := s.store()
	if err != nil {
		return message{}, nil, err
	}
	r, as, err := findRun(ctx, st, "id", in.ID)
	if err != nil {
		return message{}, nil, err
	}
	id := r.ID
	data := storedRun{Run: newRunView(r), Attempts: make([]storedAttempt, len(as))}
	for i, a := range as {
		data.Attempts[i] = newStoredAttempt(a)
		// A minimal answer shows outputs only as the summary of a node that did not pass:
		// reading the others would be most of its cost.
		if a.OutputHash != "" && a.Final && (in.Raw || a.Status != dag.NodePassed) {
			out, err := st.Output(ctx, a.OutputHash)
			if err != nil {
				return message{}, nil, fail(CodeInternal, nil, "read run %s: output of %s: %v", id, a.Node, err)
			}
			if json.Valid(out) {
				data.Attempts[i].Output = out
			} else if b, err := json.Marshal(string(out)); err == nil {
				data.Attempts[i].Output = b
			}
		}
	}
	return msgf("run %s of %s: %s", r.ID, r.DAG, r.Status), data, nil
}

// findRun reads a run by the id a client gave as argument arg: a run id, or "latest".
func findRun(ctx context.Context, st runs.Store, arg, id string) (*runs.Run, []runs.Attempt, error) {
	if id == "" {
		return nil, nil, fail(CodeInvalidArgument, nil, "%s is empty: give a run id, or \"latest\" (list_runs shows the runs)", arg)
	}
	if id == latest {
		list, _, err := st.ListRuns(ctx, runs.Filter{TopLevel: true, Limit: 1}) // not a sub-run
		if err != nil {
			return nil, nil, fail(CodeInternal, nil, "read the run store: %v", err)
		}
		if len(list) == 0 {
			return nil, nil, fail(CodeRunNotFound, nil, "no runs recorded yet: run_dag records one")
		}
		id = list[0].ID
	}
	r, as, err := st.GetRun(ctx, id)
	if errors.Is(err, runs.ErrNotFound) {
		return nil, nil, fail(CodeRunNotFound, nil, "no run %q in the run store (list_runs shows the runs)", id)
	}
	if err != nil {
		return nil, nil, fail(CodeInternal, nil, "read run %s: %v", id, err)
	}
	return r, as, nil
}

// ListRunsInput are list_runs' arguments.
type ListRunsInput struct {
	DAG    string `json:"dag,omitempty" jsonschema:"only runs of the DAG of this name"`
	Status string `json:"status,omitempty" jsonschema:"only runs in this state"`
	Since  string `json:"since,omitempty" jsonschema:"only runs started at or after this time (RFC 3339, e.g. 2026-01-02T15:04:05Z)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size (default 20)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	Common
}

func (ListRunsInput) enums() map[string][]string { return map[string][]string{"status": runStates()} }

// runStates are the states a recorded run can be in, which list_runs filters by.
func runStates() []string {
	return []string{string(dag.RunRunning), string(dag.RunSuccess), string(dag.RunWarn), string(dag.RunFailed), string(dag.RunCanceled)}
}

type runList struct {
	Count      int       `json:"count"`
	Runs       []runView `json:"runs"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

type runBrief struct {
	ID     string `json:"id"`
	DAG    string `json:"dag"`
	Status string `json:"status"`
}

func (l runList) minimal() any {
	m := struct {
		Count      int        `json:"count"`
		Runs       []runBrief `json:"runs"`
		NextCursor string     `json:"next_cursor,omitempty"`
	}{Count: l.Count, Runs: make([]runBrief, len(l.Runs)), NextCursor: l.NextCursor}
	for i, r := range l.Runs {
		m.Runs[i] = runBrief{ID: r.ID, DAG: r.DAG, Status: string(r.Status)}
	}
	return m
}

// defaultListRuns is list_runs' page size when none is given: small, for a model's context.
const defaultListRuns = 20

func (s *server) listRuns(ctx context.Context, _ *sdk.CallToolRequest, in ListRunsInput) (message, any, error) {
	st, err := s.store()
	if err != nil {
		return message{}, nil, err
	}
	f := runs.Filter{DAG: in.DAG, Status: dag.RunStatus(in.Status), Limit: in.Limit, Cursor: in.Cursor}
	if f.Limit <= 0 {
		f.Limit = defaultListRuns
	}
	if in.Since != "" {
		t, err := time.Parse(time.RFC3339, in.Since)
		if err != nil {
			return message{}, nil, fail(CodeInvalidArgument, nil, "since %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z", in.Since)
		}
		f.Since = t
	}
	list, next, err := st.ListRuns(ctx, f)
	if err != nil {
		return message{}, nil, fail(CodeInvalidArgument, nil, "list runs: %v", err)
	}
	views := make([]runView, len(list))
	for i := range list {
		views[i] = newRunView(&list[i])
	}
	data := runList{Count: len(list), Runs: views, NextCursor: next}
	if next != "" {
		return msgf("%v; more with cursor: next_cursor", howMany(len(list), "run")), data, nil
	}
	return msgf("%v", howMany(len(list), "run")), data, nil
}
