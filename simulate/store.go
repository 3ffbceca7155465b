package simulate

import (
	"context"
	"fmt"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// Replay is the outputs one real run delivered, by node id: a simulation given replays runs
// one path per replay, the simulated nodes handing on these outputs instead of generated
// ones (seam run --simulate --from-store N).
type Replay struct {
	Run     string         `json:"run"`
	Outputs map[string]any `json:"-"`
}

// FromStore reads the outputs of the last n successful runs of d (top-level runs, newest
// first) from st: each node's final output that passed or warned, a resume's over the
// earlier session's. It records nothing.
func FromStore(ctx context.Context, st runs.Store, d *dag.DAG, n int, lang i18n.Lang) ([]Replay, error) {
	rs, _, err := st.ListRuns(ctx, runs.Filter{DAG: d.Name, Status: dag.RunSuccess, TopLevel: true, Limit: n})
	if err != nil {
		return nil, fmt.Errorf("list the runs of %s: %w", d.Name, err)
	}
	if len(rs) == 0 {
		return nil, i18n.Errorf(lang, "--from-store: the run store holds no successful run of %s", d.Name)
	}
	var out []Replay
	for _, r := range rs {
		_, atts, err := st.GetRun(ctx, r.ID)
		if err != nil {
			return nil, fmt.Errorf("read run %s: %w", r.ID, err)
		}
		rp := Replay{Run: r.ID, Outputs: map[string]any{}}
		for i := range atts {
			a := &atts[i]
			if !a.Final || a.Item != -1 || a.Status != dag.NodePassed && a.Status != dag.NodeWarned || d.ByID[a.Node] == nil {
				continue
			}
			b, err := runs.AttemptOutput(ctx, st, a)
			if err != nil {
				return nil, fmt.Errorf("read the output of %s in run %s: %w", a.Node, r.ID, err)
			}
			if v, err := contract.ParseJSON(b); err == nil && b != nil {
				rp.Outputs[a.Node] = v
			}
		}
		out = append(out, rp)
	}
	return out, nil
}
