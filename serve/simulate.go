package serve

import (
	"context"
	"net/http"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/simulate"
)

// simulateQuery is the query key of the DAG page's Simulate button (GET
// /dags/FILE?simulate=1): a simulation runs nothing with a side effect and records
// nothing, so it is a GET, open to viewers and to a read-only server, and its answer a
// page that can be reloaded and linked to.
const simulateQuery = "simulate"

// simView is the DAG page's simulation: the report simulate.WriteText writes, in its lines
// and tables, with file positions relative to the root.
type simView struct {
	Summary  string
	Paths    []simulate.Path
	Notes    []string // per path: the run it replays, why its nodes failed
	Branches []simBranch
	Unknown  []simulate.Unknown
	Bound    string
	Error    string // why the simulation could not run; the rest is then empty
}

// simBranch is one when or foreach of the branch report.
type simBranch struct {
	Heading string
	Lines   []string
}

// simulation simulates d with generated params (varied where a when reads them), as seam
// run --simulate does without -p, and says the report in l.
func (s *Server) simulation(ctx context.Context, d *dag.DAG, l i18n.Lang) *simView {
	rep, err := simulate.Simulate(ctx, d, simulate.Options{Lang: l})
	if err != nil {
		return &simView{Error: i18n.Sprintf(l, "the simulation could not run: %v", s.hidePaths(err.Error()))}
	}
	rep.File = s.rel(rep.File)
	v := &simView{Summary: simulate.Summary(rep, l), Paths: rep.Paths, Unknown: rep.Unknown}
	for _, p := range rep.Paths {
		for _, n := range simulate.PathNotes(p, l) {
			v.Notes = append(v.Notes, s.hidePaths(n))
		}
	}
	for _, b := range rep.Branches {
		b.Pos.File = s.rel(b.Pos.File)
		for _, nv := range []*lint.Never{b.NeverTrue, b.NeverFalse} {
			if nv != nil {
				nv.Pos.File = s.rel(nv.Pos.File)
			}
		}
		v.Branches = append(v.Branches, simBranch{Heading: simulate.BranchHeading(b), Lines: simulate.BranchLines(b, l)})
	}
	for i := range v.Unknown {
		v.Unknown[i].Reason = s.hidePaths(v.Unknown[i].Reason)
	}
	if rep.Bound != "" {
		v.Bound = i18n.Sprintf(l, "bound reached: %s; the combinations not tried are not reported", rep.Bound)
	}
	return v
}

// wantsSimulation reports whether the DAG page was asked for its simulation.
func wantsSimulation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get(simulateQuery) != ""
}
