package service

import (
	"context"
	"errors"
	"time"

	"github.com/seam-dag/seam/runs"
)

// Latest names the newest run that is not a sub-run, wherever a run id is taken.
const Latest = "latest"

// List returns the runs f selects, newest first, and the cursor of the next page ("" on the
// last).
func (s *Service) List(ctx context.Context, f runs.Filter) ([]runs.Run, string, error) {
	st, err := s.store()
	if err != nil {
		return nil, "", err
	}
	return st.ListRuns(ctx, f)
}

// Show returns run id ("latest" for the newest) and its attempts in the order they were
// recorded, those no longer running shown so (runs.SettleStarts); a *NotFoundError or *NoRunsError when there is no such run.
func (s *Service) Show(ctx context.Context, id string) (*runs.Run, []runs.Attempt, error) {
	st, err := s.store()
	if err != nil {
		return nil, nil, err
	}
	return s.get(ctx, st, id)
}

// Explain says why node of run id ("latest" for the newest) failed or rejected its input
// (runs.Explain; a *runs.UnknownNodeError when the run has no such node). opts.Lang is the
// Service's when empty.
func (s *Service) Explain(ctx context.Context, id, node string, opts runs.ExplainOptions) (*runs.Explanation, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, as, err := s.get(ctx, st, id)
	if err != nil {
		return nil, err
	}
	if opts.Lang == "" {
		opts.Lang = s.opts.Lang
	}
	return runs.Explain(ctx, st, r, as, node, opts)
}

// Watch calls fn with run id ("latest" for the newest) and its attempts now and each time
// they change, until the run ends (runs.Store.WatchRun), fn fails or ctx ends.
func (s *Service) Watch(ctx context.Context, id string, fn func(*runs.Run, []runs.Attempt) error) error {
	st, err := s.store()
	if err != nil {
		return err
	}
	r, _, err := s.get(ctx, st, id)
	if err != nil {
		return err
	}
	return st.WatchRun(ctx, r.ID, fn)
}

// get reads run id from st, "latest" the newest that is not a sub-run.
func (s *Service) get(ctx context.Context, st runs.Store, id string) (*runs.Run, []runs.Attempt, error) {
	if id == Latest {
		list, _, err := st.ListRuns(ctx, runs.Filter{TopLevel: true, Limit: 1})
		if err != nil {
			return nil, nil, err
		}
		if len(list) == 0 {
			return nil, nil, &NoRunsError{Store: st.Path(), lang: s.opts.Lang}
		}
		id = list[0].ID
	}
	r, as, err := st.GetRun(ctx, id)
	if errors.Is(err, runs.ErrNotFound) {
		return nil, nil, &NotFoundError{ID: id, Store: st.Path(), lang: s.opts.Lang}
	}
	if err != nil {
		return nil, nil, err
	}
	runs.SettleStarts(r, as, time.Now())
	return r, as, nil
}
