package mcp

import (
	"context"
	"errors"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/simulate"
)

func (s *server) addSimulateTool(srv *sdk.Server) error {
	return addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "simulate_dag",
		Description: "Simulate a DAG without side effects (seam run --simulate): exec, http and n8n nodes do not run, their " +
			"outputs are generated from their contracts; const and transform run for real. Every branch the contracts allow " +
			"is taken: returns the paths (nodes run, simulated, skipped, failed) and, per when, the paths where it was true " +
			"and false, or the proof that it never is. Records nothing, reads no secret.",
		Annotations: readOnlyTool("Simulate a DAG"),
	}, s.simulateDAG)
}

// SimulateInput are simulate_dag's arguments.
type SimulateInput struct {
	Path   string         `json:"path,omitempty" jsonschema:"the DAG file, relative to the server's root"`
	YAML   string         `json:"yaml,omitempty" jsonschema:"a DAG written inline, instead of path; its relative paths resolve from the root"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the run's parameters; without them they are generated from the params schema and varied"`
	Stubs  map[string]any `json:"stubs,omitempty" jsonschema:"outputs to pin, by node id; each must meet its node's contract"`
	Common
}

// simulation is simulate_dag's data: the report, shortened unless raw.
type simulation struct{ *simulate.Report }

// minimalSimulation leaves out the generated outputs and the DAG's outputs of each path.
type minimalSimulation struct {
	DAG      string             `json:"dag"`
	Paths    []minimalPath      `json:"paths"`
	Branches []simulate.Branch  `json:"branches"`
	Unknown  []simulate.Unknown `json:"unknown,omitempty"`
	Bound    string             `json:"bound,omitempty"`
}

type minimalPath struct {
	N         int      `json:"n"`
	Status    string   `json:"status"`
	Run       []string `json:"run"`
	Simulated []string `json:"simulated"`
	Skipped   []string `json:"skipped"`
	Failed    []string `json:"failed"`
}

func (r simulation) minimal() any {
	m := minimalSimulation{DAG: r.DAG, Paths: []minimalPath{}, Branches: r.Branches, Unknown: r.Unknown, Bound: r.Bound}
	for _, p := range r.Paths {
		m.Paths = append(m.Paths, minimalPath{N: p.N, Status: string(p.Status), Run: p.Run, Simulated: p.Simulated, Skipped: p.Skipped, Failed: p.Failed})
	}
	return m
}

func (s *server) simulateDAG(ctx context.Context, req *sdk.CallToolRequest, in SimulateInput) (message, any, error) {
	d, name, err := s.loadInput(ctx, in.Path, in.YAML)
	if err != nil {
		return message{}, nil, err
	}
	// Exact numbers, as JSON gives them (the SDK's decoding makes float64s).
	var params map[string]any
	if v, err := exactArg(req, "params"); err != nil {
		return message{}, nil, err
	} else if v != nil {
		if params, _ = v.(map[string]any); params == nil {
			return message{}, nil, fail(CodeInvalidArgument, nil, "%s: want an object", "params")
		}
	}
	stubs, err := exactObject(req, "stubs")
	if err != nil {
		return message{}, nil, err
	}
	rep, err := simulate.Simulate(ctx, d, simulate.Options{Params: params, Stubs: stubs, Lang: s.opts.Lang})
	var (
		se *simulate.StubError
		pe *engine.ParamsError
	)
	switch {
	case errors.As(err, &se):
		return message{}, nil, fail(CodeInvalidArgument, violations(se.Violations), "%s", se.Error())
	case errors.As(err, &pe):
		return message{}, nil, fail(CodeInvalidParams, violations(pe.Violations), "%s: the params break the DAG's params schema:%s", name, paramsBroken(pe.Violations))
	case err != nil:
		return message{}, nil, failVerbatim(CodeInternal, err)
	}
	// Paths as the client names them, relative to the root.
	rep.File = s.root.rel(rep.File)
	for i := range rep.Branches {
		b := &rep.Branches[i]
		b.Pos.File = s.root.rel(b.Pos.File)
		for _, nv := range []*lint.Never{b.NeverTrue, b.NeverFalse} {
			if nv != nil {
				nv.Pos.File = s.root.rel(nv.Pos.File)
			}
		}
	}
	return msgf("%s simulated: %v, %v tried", name, howMany(len(rep.Paths), "path"), howMany(rep.Tried, "combination")), simulation{rep}, nil
}
