package service

import (
	"context"

	"github.com/seam-dag/seam/runs"
)

// Output returns the output an attempt of run id stored under hash (runs.Attempt.OutputHash):
// the run store masks secrets before it keeps one, so a front end may show it as it is.
func (s *Service) Output(ctx context.Context, id, hash string) ([]byte, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	return runs.RunOutput(ctx, st, id, hash)
}

// AttemptOutput returns the output of an attempt Show returned (runs.AttemptOutput).
func (s *Service) AttemptOutput(ctx context.Context, a *runs.Attempt) ([]byte, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	return runs.AttemptOutput(ctx, st, a)
}

// NodeOutput returns the output node recorded in run id ("latest" for the newest), or with
// item ≥ 0 that of its foreach item (runs.NodeOutput).
func (s *Service) NodeOutput(ctx context.Context, id, node string, item int) ([]byte, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, as, err := s.get(ctx, st, id)
	if err != nil {
		return nil, err
	}
	return runs.NodeOutput(ctx, st, r, as, node, item, s.opts.Lang)
}
