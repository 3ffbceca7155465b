package serve

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// webTexts are the words of the run page's rerun buttons and timeline, and of the DAG
// pages' history.
func webTexts() []i18n.Message {
	return []i18n.Message{
		i18n.M("Rerun from here"),
		i18n.M("Timeline"),
		i18n.M("The timeline spans"),
		i18n.M("Bars drawn thick in blue are the critical path: the chain of attempts, each waiting for the one before it, that decided how long the run took."),
		i18n.M("Recent runs"),
		i18n.M("Success rate"),
		i18n.M("median duration"),
		i18n.M("over the last runs that ended:"),
		i18n.M("Started by"),
		i18n.M("All runs of this DAG →"),
		i18n.M("Last run"),
		i18n.M("nodes settled"),
	}
}

// HistorySize is how many of a DAG's latest runs its page lists, and reckons its success
// rate and median duration over.
const HistorySize = 20

// dagHistory is what a DAG's page says of its latest runs.
type dagHistory struct {
	Runs []runs.Run
	// Ended counts the runs listed that have ended; Rate is the share of them that
	// succeeded (warnings included) and Median their median duration, "" when none ended.
	Ended        int
	Rate, Median string
}

// history reads the latest runs of the DAG named name (sub-runs included: a DAG run by a
// dag node is run all the same) and reckons their success rate and median duration.
func (s *Server) history(ctx context.Context, name string) (*dagHistory, error) {
	list, _, err := s.opts.Service.List(ctx, runs.Filter{DAG: name, Limit: HistorySize})
	if err != nil {
		return nil, err
	}
	h := &dagHistory{Runs: list}
	now := time.Now()
	var durations []time.Duration
	ok := 0
	for i := range h.Runs {
		r := &h.Runs[i]
		r.Status = r.DisplayStatus(now)
		if r.Ended.IsZero() {
			continue
		}
		durations = append(durations, r.Ended.Sub(r.Started))
		if r.Status == dag.RunSuccess || r.Status == dag.RunWarn {
			ok++
		}
	}
	if h.Ended = len(durations); h.Ended > 0 {
		h.Rate = fmt.Sprintf("%d%%", (100*ok+h.Ended/2)/h.Ended)
		h.Median = took(median(durations))
	}
	return h, nil
}

// median is the median of ds, which it sorts; of an even count, the mean of the middle two.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// lastRun is the newest run of the DAG named name, nil when it has none (or the store
// cannot say: the DAGs page lists the files all the same).
func (s *Server) lastRun(ctx context.Context, name string) *runs.Run {
	list, _, err := s.opts.Service.List(ctx, runs.Filter{DAG: name, Limit: 1})
	if err != nil || len(list) == 0 {
		return nil
	}
	r := &list[0]
	r.Status = r.DisplayStatus(time.Now())
	return r
}

// progress says how many of the nodes of a running run have settled, of how many its DAG
// file has now ("3/7"); "" when the file cannot be read or loaded.
func (s *Server) progress(ctx context.Context, run *runs.Run, l i18n.Lang) string {
	if run.File == "" {
		return ""
	}
	p, err := s.resolve(run.File, l)
	if err != nil {
		return ""
	}
	src, err := s.files.ReadFile(p)
	if err != nil {
		return ""
	}
	row := s.cachedRow(ctx, p, src, l) // the DAGs page's cache: loaded and linted once
	if row.Nodes == 0 {
		return ""
	}
	_, as, err := s.opts.Service.Show(ctx, run.ID)
	if err != nil {
		return ""
	}
	settled := 0
	for _, n := range runs.Summarize(as) {
		if n.Status().Done() {
			settled++
		}
	}
	return fmt.Sprintf("%d/%d", settled, row.Nodes)
}
