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
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
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
			"DAG file (explain_node says what broke), then resume. With from, rerun a finished run from that node: it " +
			"and every node downstream of it run again, the nodes upstream are reused. Either way the run gains a " +
			"session. Returns at once like run_dag, or with wait: true when the run has finished.",
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
	Engine string         `json:"engine,omitempty" jsonschema:"where the nodes run: embedded (this server, the default) or temporal (seam workers, when the server offers it)"`
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
	ID     string `json:"id"`
	DAG    string `json:"dag"`
	Status string `json:"status"`
	// StartedBy names who started a stored run (get_run).
	StartedBy string         `json:"started_by,omitempty"`
	Nodes     map[string]int `json:"nodes"` // counts by status
	Problems  []nodeProblem  `json:"problems,omitempty"`
	// Running names the nodes running now (the first few), which no final attempt shows.
	Running []string `json:"running,omitempty"`
	// Outputs are the DAG's outputs when small; OutputNames name them otherwise.
	Outputs     any      `json:"outputs,omitempty"`
	OutputNames []string `json:"output_names,omitempty"`
	// OutputErrors say why declared outputs could not be resolved (the run then failed).
	OutputErrors map[string]string `json:"output_errors,omitempty"`
	Error        string            `json:"error,omitempty"`
	// Warnings are what the service warned of before the run (a resume's changed file).
	Warnings []string `json:"warnings,omitempty"`
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

// runResult is run_dag's data: the engine's record of the run, and what the service warned
// of before it started.
type runResult struct {
	*dag.RunResult
	warnings []string
}

func (r runResult) MarshalJSON() ([]byte, error) {
	if len(r.warnings) == 0 {
		return json.Marshal(r.RunResult)
	}
	return json.Marshal(struct {
		*dag.RunResult
		Warnings []string `json:"warnings"`
	}{r.RunResult, r.warnings})
}

func (r runResult) minimal() any {
	m := runMinimal{ID: r.ID, DAG: r.DAG, Status: string(r.Status), Nodes: map[string]int{}, Error: r.Error, Warnings: r.warnings,
		OutputErrors: r.OutputErrors}
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
	ID       string   `json:"id"`
	DAG      string   `json:"dag"`
	Nodes    int      `json:"nodes"`
	Warnings []string `json:"warnings,omitempty"`
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
	eng, err := s.engine(in.Engine)
	if err != nil {
		return message{}, nil, err
	}
	started := func(id string) message {
		return msgf("run %s of %s started: get_run shows how it goes, cancel_run stops it", id, d.Name)
	}
	return s.start(ctx, req, d, name, in.Wait, service.Request{Params: params, NoLint: in.NoLint, Engine: eng}, started,
		func(ctx context.Context, sr service.Request) (*service.Run, error) { return s.svc.Start(ctx, d, sr) })
}

// engine is the engine run_dag's argument names: nil for this server's own.
func (s *server) engine(name string) (engine.Engine, error) {
	if name == "" || name == "embedded" {
		return nil, nil
	}
	if e, ok := s.opts.Engines[name]; ok {
		return e, nil
	}
	return nil, fail(CodeInvalidArgument, nil, "unknown engine %q: this server offers %s", name, strings.Join(service.Offered(s.opts.Engines), ", "))
}

// start starts the run of d with begin and answers: at once with the run's id (started says
// so) once the run is in the store, or, with wait, when the run has finished. What the
// service warned of before the run started is added to the answer.
func (s *server) start(ctx context.Context, req *sdk.CallToolRequest, d *dag.DAG, name message, wait bool, sr service.Request,
	started func(id string) message, begin func(context.Context, service.Request) (*service.Run, error)) (message, any, error) {
	// A run the client waits for ends with its request; one it does not wait for outlives it.
	// Either is traced under the client's span when the request carries one.
	base := traceContext(ctx, req)
	var prog *progress
	if wait {
		prog = newProgress(ctx, req, len(d.Nodes), s.opts.Lang)
		if prog != nil {
			sr.Observer = prog
		}
	} else {
		base = context.WithoutCancel(base)
	}
	var warnings []message
	sr.Warn = func(w error) {
		if m, ok := warning(w); ok {
			warnings = append(warnings, m)
		}
	}
	run, err := begin(base, sr)
	if err != nil {
		prog.stop()
		return s.notStarted(d, name, err)
	}
	if !wait {
		select {
		case <-run.Recorded():
		case <-run.Done():
			// A run that never got into the store did not start: say why. One that did
			// and is already over answers as any other (select picks either when both are
			// ready).
			select {
			case <-run.Recorded():
			default:
				return s.runAnswer(d, name, run, warnings)
			}
		}
		return withWarnings(started(run.ID), warnings),
			runStarted{ID: run.ID, DAG: d.Name, Nodes: len(d.Nodes), Warnings: texts(warnings, s.opts.Lang)}, nil
	}
	<-run.Done()
	prog.stop()
	return s.runAnswer(d, name, run, warnings)
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
func (s *server) runAnswer(d *dag.DAG, name message, run *service.Run, warnings []message) (message, any, error) {
	res, err := run.Wait()
	var pe *service.PanicError
	switch {
	case errors.As(err, &pe):
		return message{}, nil, internalError("run "+pe.ID, pe.Value)
	case err != nil:
		return s.notStarted(d, name, err)
	}
	data := runResult{RunResult: res, warnings: texts(warnings, s.opts.Lang)}
	if res.Error != "" {
		return withWarnings(msgf("run %s of %s: %s: %s", res.ID, res.DAG, res.Status, res.Error), warnings), data, nil
	}
	return withWarnings(msgf("run %s of %s: %s", res.ID, res.DAG, res.Status), warnings), data, nil
}

// notStarted is the answer about a run of d (name in messages) that did not start.
func (s *server) notStarted(d *dag.DAG, name message, err error) (message, any, error) {
	var (
		pe *engine.ParamsError
		le *service.LintError
		te *toolError
	)
	switch {
	case errors.As(err, &te):
		return message{}, nil, te
	case errors.As(err, &pe):
		return message{}, nil, fail(CodeInvalidParams, violations(pe.Violations), "%s: the params break the DAG's params schema:%s", name, paramsBroken(pe.Violations))
	case errors.As(err, &le):
		return message{}, nil, fail(CodeLintFailed, s.lintResult(d, le.Findings), "%s was not run: lint found %v (lint_dag shows them; no_lint: true runs it anyway)",
			name, howMany(le.Errors, "error"))
	case errors.Is(err, service.ErrShuttingDown):
		return message{}, nil, fail(CodeUnavailable, nil, "%s was not run: the server is shutting down", name)
	}
	return message{}, nil, fail(CodeInternal, nil, "run %s: %v", name, err)
}

// warning is what the run service warned of, as a message; false for a warning the answer
// leaves out (lint's warnings: lint_dag shows them).
func warning(w error) (message, bool) {
	var cw *service.ChangedWarning
	if errors.As(w, &cw) {
		return msgf("%s changed since run %s: nodes whose definition or input changed run again", cw.File, cw.ID), true
	}
	return message{}, false
}

// withWarnings adds the warnings to an answer's message.
func withWarnings(m message, warnings []message) message {
	if len(warnings) == 0 {
		return m
	}
	return msgf("%v (%v)", m, warnings)
}

// texts says each message in lang, for data; nil for none.
func texts(ms []message, lang i18n.Lang) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.text(lang))
	}
	return out
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
	ID     string `json:"id" jsonschema:"the run to resume (one that failed or was canceled), or \"latest\""`
	Wait   bool   `json:"wait,omitempty" jsonschema:"return when the run has finished, with its result, instead of at once"`
	NoLint bool   `json:"no_lint,omitempty" jsonschema:"resume even when lint finds errors in the DAG file"`
	From   string `json:"from,omitempty" jsonschema:"a node id: rerun the run, finished or not, from this node; it and its dependents run again, the rest is reused"`
	Engine string `json:"engine,omitempty" jsonschema:"where the nodes run, whichever engine the run ran on: embedded (the default) or temporal (when the server offers it)"`
	Common
}

func (s *server) resumeRun(ctx context.Context, req *sdk.CallToolRequest, in ResumeInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	if in.ID == "" {
		return message{}, nil, emptyID("id")
	}
	eng, err := s.engine(in.Engine)
	if err != nil {
		return message{}, nil, err
	}
	rs, err := s.svc.Resumable(ctx, in.ID, service.ResumeCheck{From: in.From})
	var nr *service.NotResumableError
	inline := filepath.Join(s.root.dir, inlineName) // recorded for an inline DAG, never written
	switch {
	case errors.As(err, &nr) && nr.Why == service.MissingFile && nr.File == inline:
		return message{}, nil, notResumable(&service.NotResumableError{Why: service.NoFile, ID: nr.ID, Run: nr.Run})
	case errors.As(err, &nr) && nr.Why == service.MissingFile:
		// The file is gone: say so as loading it says it, confined to the root.
		if _, err := s.load(ctx, s.root.rel(nr.File)); err != nil {
			return message{}, nil, err
		}
		return message{}, nil, notResumable(nr)
	case err != nil:
		return message{}, nil, runError(err, in.ID)
	case rs.File == inline:
		return message{}, nil, notResumable(&service.NotResumableError{Why: service.NoFile, ID: rs.Run.ID, Run: rs.Run})
	}
	path := s.root.rel(rs.File)
	d, err := s.load(ctx, path)
	if err != nil {
		return message{}, nil, err
	}
	started := func(id string) message {
		if in.From != "" {
			return msgf("run %s of %s rerun from node %s: get_run shows how it goes, cancel_run stops it", id, d.Name, in.From)
		}
		return msgf("run %s of %s resumed: get_run shows how it goes, cancel_run stops it", id, d.Name)
	}
	// The run keeps its id and params; the store's resume check refuses a second resume at once.
	return s.start(ctx, req, d, verbatim(path), in.Wait, service.Request{NoLint: in.NoLint, Engine: eng}, started,
		func(ctx context.Context, sr service.Request) (*service.Run, error) {
			run, err := s.svc.Resume(ctx, rs, d, sr)
			if errors.As(err, &nr) {
				return nil, notResumable(nr)
			}
			return run, err
		})
}

// notResumable is resume_run's answer about a run the service would not resume.
func notResumable(e *service.NotResumableError) error {
	switch e.Why {
	case service.Finished:
		return fail(CodeNotResumable, nil, "run %s finished with %s: there is nothing to resume (run_dag runs it again)", e.ID, e.Run.Status)
	case service.StillRunning:
		return fail(CodeNotResumable, nil, "run %s is still running: wait for it, or stop it with cancel_run, then resume it", e.ID)
	case service.NoFile:
		return fail(CodeNotResumable, nil, "run %s has no DAG file to resume from (an inline DAG): run_dag runs it again", e.ID)
	case service.OtherDAG:
		return fail(CodeNotResumable, nil, "run %s ran the DAG %s, but %s now defines %s: run_dag runs it", e.ID, e.Run.DAG, e.File, e.Defines)
	}
	return failVerbatim(CodeNotResumable, e)
}

// CancelInput are cancel_run's arguments.
type CancelInput struct {
	ID string `json:"id" jsonschema:"the id of a run that run_dag started on this server, or \"latest\" for the newest run"`
	Common
}

func (s *server) cancelRun(ctx context.Context, _ *sdk.CallToolRequest, in CancelInput) (message, any, error) {
	if in.ID == "" {
		return message{}, nil, fail(CodeInvalidArgument, nil, "id is empty: give the id run_dag returned (list_runs shows running runs with status: running)")
	}
	if in.ID == latest {
		r, _, err := s.findRun(ctx, "id", in.ID)
		if err != nil {
			return message{}, nil, err
		}
		in.ID = r.ID
	}
	var (
		nr *service.NotRunningError
		nf *service.NotFoundError
	)
	switch err := s.svc.Cancel(ctx, in.ID); {
	case err == nil:
		return msgf("run %s is being canceled: get_run shows it canceled once its running nodes have stopped", in.ID),
			struct {
				ID string `json:"id"`
			}{in.ID}, nil
	case errors.Is(err, service.ErrNoStore):
		return message{}, nil, fail(CodeNotRunning, nil, "run %s is not running on this server", in.ID)
	case errors.As(err, &nf):
		return message{}, nil, fail(CodeRunNotFound, nil, "no run %q in the run store (list_runs shows the runs)", in.ID)
	case errors.As(err, &nr) && nr.Status == dag.RunRunning:
		return message{}, nil, fail(CodeNotRunning, nil, "run %s is recorded as running but not by this server (another process runs it, or ran it and died): stop it there", in.ID)
	case errors.As(err, &nr):
		return message{}, nil, fail(CodeNotRunning, nil, "run %s has already finished: %s", in.ID, nr.Status)
	default:
		return message{}, nil, fail(CodeInternal, nil, "read run %s: %v", in.ID, err)
	}
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
	runs.WhoJSON
}

func newRunView(r *runs.Run) runView {
	// An agent polling a run whose owner is gone reads it interrupted, not running for ever.
	return runView{ID: r.ID, DAG: r.DAG, File: r.File, FileHash: r.FileHash, Params: r.Params, Status: r.DisplayStatus(time.Now()),
		Started: r.Started, Ended: r.Ended, Resumes: r.Resumes, PID: r.PID, Host: r.Host, Outputs: r.Outputs, OutputErrors: r.OutputErrors,
		Parent: r.Parent, ParentNode: r.ParentNode, WhoJSON: r.Who()}
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
	Output     json.RawMessage      `json:"output,omitempty"` // final attempts and, raw, foreach items
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
	m := runMinimal{ID: r.Run.ID, DAG: r.Run.DAG, Status: string(r.Run.Status), StartedBy: r.Run.StartedBy, Nodes: map[string]int{}}
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
	// A node without a final attempt that has one under way (its start is recorded) runs.
	running := map[string]bool{}
	for _, a := range r.Attempts {
		if _, decided := final[a.Node]; decided || running[a.Node] || a.Status != dag.NodeRunning {
			continue
		}
		running[a.Node] = true
		m.Nodes[string(dag.NodeRunning)]++
		if len(m.Running) < minimalErrors {
			m.Running = append(m.Running, a.Node)
		}
	}
	if len(r.Run.OutputErrors) > 0 {
		// Recorded as a JSON object by the run store; one that does not decode is left out.
		_ = json.Unmarshal(r.Run.OutputErrors, &m.OutputErrors)
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
	r, as, err := s.findRun(ctx, "id", in.ID)
	if err != nil {
		return message{}, nil, err
	}
	id := r.ID
	data := storedRun{Run: newRunView(r), Attempts: make([]storedAttempt, len(as))}
	for i, a := range as {
		data.Attempts[i] = newStoredAttempt(a)
		// A minimal answer shows outputs only as the summary of a node that did not pass:
		// reading the others would be most of its cost.
		// A foreach item's attempt is never final: raw shows its output too, which for an
		// item that failed says why.
		if a.OutputHash != "" && (a.Final && (in.Raw || a.Status != dag.NodePassed) || in.Raw && a.Item >= 0) {
			out, err := runs.AttemptOutput(ctx, st, &a)
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
	return msgf("run %s of %s: %s", r.ID, r.DAG, data.Run.Status), data, nil
}

// findRun reads a run by the id a client gave as argument arg: a run id, or "latest".
func (s *server) findRun(ctx context.Context, arg, id string) (*runs.Run, []runs.Attempt, error) {
	if _, err := s.store(); err != nil {
		return nil, nil, err
	}
	if id == "" {
		return nil, nil, emptyID(arg)
	}
	r, as, err := s.svc.Show(ctx, id)
	if err != nil {
		return nil, nil, runError(err, id)
	}
	return r, as, nil
}

func emptyID(arg string) error {
	return fail(CodeInvalidArgument, nil, "%s is empty: give a run id, or \"latest\" (list_runs shows the runs)", arg)
}

// runError is the answer to the service not finding a run, or failing to read it.
func runError(err error, id string) error {
	var (
		nf   *service.NotFoundError
		none *service.NoRunsError
		nr   *service.NotResumableError
	)
	switch {
	case errors.As(err, &none):
		return fail(CodeRunNotFound, nil, "no runs recorded yet: run_dag records one")
	case errors.As(err, &nf):
		return fail(CodeRunNotFound, nil, "no run %q in the run store (list_runs shows the runs)", nf.ID)
	case errors.As(err, &nr):
		return notResumable(nr)
	case id == service.Latest:
		return fail(CodeInternal, nil, "read the run store: %v", err)
	}
	return fail(CodeInternal, nil, "read run %s: %v", id, err)
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

func (ListRunsInput) enums() map[string][]string { return map[string][]string{"status": runs.States()} }

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
	if _, err := s.store(); err != nil {
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
	list, next, err := s.svc.List(ctx, f)
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
