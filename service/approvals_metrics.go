package service

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// The ages the gauge of open approvals counts them by (seam.age): what an operator watches
// is the approvals people have left for long.
var approvalAges = []struct {
	below time.Duration // 0: any age
	name  string
}{
	{time.Hour, "under_1h"},
	{24 * time.Hour, "under_1d"},
	{7 * 24 * time.Hour, "under_1w"},
	{0, "over_1w"},
}

// ObserveApprovals registers with meter the gauge seam.approvals.open: the approvals of the
// store's waiting runs open for an answer, by age (seam.age), read from the store at each
// collection with clock's now (nil: the wall clock). stop unregisters it.
func (s *Service) ObserveApprovals(meter metric.Meter, clock Clock) (stop func() error, err error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = SystemClock{}
	}
	gauge, err := meter.Int64ObservableGauge("seam.approvals.open", metric.WithUnit("{approval}"),
		metric.WithDescription("Approvals open for an answer in the run store, by how long they have been open."))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	reg, err := meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		counts, err := openApprovalAges(ctx, st, clock.Now())
		if err != nil {
			return err
		}
		for k, a := range approvalAges {
			o.ObserveInt64(gauge, counts[k], metric.WithAttributes(attribute.String("seam.age", a.name)))
		}
		return nil
	}, gauge)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return reg.Unregister, nil
}

// openApprovalAges counts the open approvals of st's waiting runs by approvalAges.
func openApprovalAges(ctx context.Context, st runs.Store, now time.Time) ([]int64, error) {
	counts := make([]int64, len(approvalAges))
	f := runs.Filter{Status: dag.RunWaiting}
	for {
		page, next, err := st.ListRuns(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("list the waiting runs: %w", err)
		}
		for _, r := range page {
			_, as, err := st.GetRun(ctx, r.ID)
			if err != nil {
				return nil, fmt.Errorf("read waiting run %s: %w", r.ID, err)
			}
			for _, node := range openNodes(as) {
				age := now.Sub(openQuestion(as, node).Opened)
				k := 0
				for approvalAges[k].below != 0 && age >= approvalAges[k].below {
					k++
				}
				counts[k]++
			}
		}
		if next == "" {
			return counts, nil
		}
		f.Cursor = next
	}
}
