package service

import "context"

// Output returns the stored output whose hash an attempt names (runs.Attempt.OutputHash):
// the run store masks secrets before it keeps one, so a front end may show it as it is.
func (s *Service) Output(ctx context.Context, hash string) ([]byte, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	return st.Output(ctx, hash)
}
