package mcp

import (
	"context"
	"errors"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/lint/gate"
	"github.com/seam-dag/seam/runs"
)

// maxGateStoreRuns bounds store_runs, as seam lint --against-store's N: each run read is a
// GetRun.
const maxGateStoreRuns = 1000

func (s *server) addGateTools(srv *sdk.Server) error {
	return addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "lint_against",
		Description: "Judge a change to DAG files and contracts against a git revision (seam lint --against): every edge is " +
			"proved now and at the revision, and only a move is reported: newly incompatible (an error, with a witness), " +
			"newly unknown (a warning), fixed (a note), and a weakened output guarantee. Each finding has a fingerprint " +
			"a policy file can accept. Run it before committing a contract change.",
		Annotations: readOnlyTool("Judge a change against a revision"),
	}, s.lintAgainst)
}

// LintAgainstInput are lint_against's arguments.
type LintAgainstInput struct {
	Against string   `json:"against" jsonschema:"the git revision the change is judged against (main, origin/main, a commit), or REV:path where the one path was at REV"`
	Paths   []string `json:"paths" jsonschema:"DAG files or directories under the root; a directory's DAG files are taken, and the sub-DAG files they run"`
	Policy  string   `json:"policy,omitempty" jsonschema:"a policy file under the root: accepted fingerprints and severity overrides"`
	// StoreRuns is seam lint --against-store's N.
	StoreRuns int `json:"store_runs,omitempty" jsonschema:"validate what each node whose output contract changed delivered in the last N successful runs of its DAG in the run store (1 to 1000)"`
	Common
}

// gateResult is lint_against's data.
type gateResult struct {
	Against  string        `json:"against"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Notes    int           `json:"notes"`
	Findings []gateFinding `json:"findings"`
	// NotJudged are the files the gate could not judge; their errors are findings too.
	NotJudged []brokenEntry `json:"not_judged,omitempty"`
}

type gateFinding struct {
	finding
	Change      string `json:"change,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

type minimalGate struct {
	Against     string        `json:"against"`
	Errors      int           `json:"errors"`
	Warnings    int           `json:"warnings"`
	Notes       int           `json:"notes"`
	First       []problem     `json:"first,omitempty"` // errors first, then warnings
	Suggestions []string      `json:"suggestions,omitempty"`
	NotJudged   []brokenEntry `json:"not_judged,omitempty"`
}

func (g gateResult) minimal() any {
	m := minimalGate{Against: g.Against, Errors: g.Errors, Warnings: g.Warnings, Notes: g.Notes}
	for _, sev := range []string{lint.SeverityError, lint.SeverityWarning} {
		for _, f := range g.Findings {
			if f.problem.Severity != sev {
				continue
			}
			if len(m.First) < minimalErrors {
				m.First = append(m.First, f.problem)
			}
			if f.Hint != "" && len(m.Suggestions) < minimalSuggestions {
				m.Suggestions = append(m.Suggestions, f.Hint)
			}
		}
	}
	for _, b := range first(g.NotJudged, minimalErrors) {
		m.NotJudged = append(m.NotJudged, brokenEntry{Path: b.Path, Message: b.Message})
	}
	return m
}

func (s *server) lintAgainst(ctx context.Context, _ *sdk.CallToolRequest, in LintAgainstInput) (message, any, error) {
	if len(in.Paths) == 0 {
		return message{}, nil, fail(CodeInvalidArgument, nil, "paths is empty: name DAG files or directories under the root")
	}
	cfg := gate.Config{Against: in.Against, Load: s.root.files.LoadWith, ReadFile: s.root.readFile,
		MaxFileSize: s.root.files.MaxFileSize(), Lang: s.opts.Lang}
	for _, p := range in.Paths {
		real, err := s.root.resolve(p)
		if err != nil {
			return message{}, nil, err
		}
		cfg.Paths = append(cfg.Paths, real)
	}
	if in.Policy != "" {
		real, err := s.root.resolve(in.Policy)
		if err != nil {
			return message{}, nil, err
		}
		b, err := s.root.readFile(real)
		if err != nil {
			return message{}, nil, failVerbatim(CodeInvalidArgument, err)
		}
		if cfg.Policy, err = lint.ParsePolicy(b, s.opts.Lang); err != nil {
			return message{}, nil, failVerbatim(CodeInvalidArgument, err)
		}
		if len(cfg.Policy.Consumers) > 0 {
			// Fetching other repositories is not reading files under the root.
			return message{}, nil, fail(CodeInvalidArgument, nil, "the policy file names consumers in other repositories, which lint_against does not fetch: judge them with seam lint --against")
		}
	}
	if in.StoreRuns != 0 {
		if in.StoreRuns < 1 || in.StoreRuns > maxGateStoreRuns {
			return message{}, nil, fail(CodeInvalidArgument, nil, "store_runs: want a number of runs from 1 to %d, not %d", maxGateStoreRuns, in.StoreRuns)
		}
		st, err := s.store()
		if err != nil {
			return message{}, nil, err
		}
		n := in.StoreRuns
		cfg.Stored = func(ctx context.Context, dagName string, nodes []string, each func(string, []byte)) error {
			return runs.EachDecidedOutput(ctx, st, dagName, nodes, n, s.opts.Lang, each)
		}
	}
	rep, err := gate.Run(ctx, cfg)
	if err != nil {
		return message{}, nil, failVerbatim(CodeInvalidArgument, err)
	}
	res := s.gateResult(in.Against, rep)
	errs, warns, notes := howMany(res.Errors, "error"), howMany(res.Warnings, "warning"), howMany(res.Notes, "note")
	if n := len(res.NotJudged); n > 0 {
		// Never a clean result: the files not judged fail the call, with all that was found.
		return message{}, nil, fail(CodeInvalidDAG, res, "against %s: %v could not be judged (not_judged says why); %v, %v, %v",
			in.Against, howMany(n, "file"), errs, warns, notes)
	}
	return msgf("against %s: %v, %v, %v", in.Against, errs, warns, notes), res, nil
}

// gateResult is lint_against's data about the gate's report, paths relative to the root.
func (s *server) gateResult(against string, rep *gate.Report) gateResult {
	res := gateResult{Against: against, Findings: []gateFinding{}}
	for _, f := range rep.All {
		switch f.Severity {
		case lint.SeverityError:
			res.Errors++
		case lint.SeverityWarning:
			res.Warnings++
		default:
			res.Notes++
		}
		fd := gateFinding{finding: finding{
			problem:   problem{Severity: f.Severity, Code: f.Code, Node: f.Consumer, At: posString(s.root, f.Pos), Message: f.Message},
			Producers: f.Producers,
			Hint:      f.Hint,
		}, Change: f.Change, Fingerprint: f.Fingerprint}
		if f.HasWitness {
			fd.Witness = f.Witness
		}
		res.Findings = append(res.Findings, fd)
	}
	for _, f := range rep.Failures {
		path, msg := s.root.rel(f.File), verbatim(f.Err.Error())
		var ds dag.Diagnostics
		if errors.As(f.Err, &ds) { // the diagnostics are findings already
			msg = msgf("%s does not load: %v", path, howMany(len(ds), "error"))
		}
		res.NotJudged = append(res.NotJudged, brokenEntry{Path: path, Message: msg.text(s.opts.Lang)})
	}
	return res
}
