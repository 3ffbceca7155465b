package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// A run's lease says that the process recording it still lives. The owner (a process of
// `seam run`, `seam serve`, `seam mcp`, or the Temporal worker hosting the run's workflow)
// renews it every LeaseRenew for LeaseFor from the renewal; once the owner dies nothing
// renews it, and within LeaseFor of its death the run reads interrupted to every reader, on
// any host (Run.InterruptedAt). The check of the recorded process stays beside it: on the
// owner's host a dead process is known at once.
const (
	// LeaseFor is how long a lease lasts from its last renewal: a run is interrupted at most
	// this long after its owner died (its clock and the reader's agreeing).
	LeaseFor = 30 * time.Second
	// LeaseRenew is how often an owner renews its leases: two renewals may fail (a store
	// slow or briefly unreachable) before the lease expires under a live owner.
	LeaseRenew = 10 * time.Second
)

// Leaser holds the leases of the runs one process records in a store.
type Leaser struct {
	s     Store
	owner string
	now   func() time.Time
}

// NewLeaser returns the leaser of this process in s: its owner name is the host and pid
// with a random suffix, so that a pid reused, here or on another host, never inherits a
// lease. now is its clock; nil is time.Now.
func NewLeaser(s Store, now func() time.Time) *Leaser {
	if now == nil {
		now = time.Now
	}
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand's documentation)
	return &Leaser{s: s, owner: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:])), now: now}
}

// Owner is the name the leaser's leases are held under.
func (l *Leaser) Owner() string { return l.owner }

// Until is when a lease taken or renewed now expires.
func (l *Leaser) Until() time.Time { return l.now().Add(LeaseFor) }

// Take gives the leaser the lease of run id (a resume, or a Temporal worker taking up a
// run whose workflow it now hosts).
func (l *Leaser) Take(ctx context.Context, id string) error {
	return l.s.TakeLease(ctx, id, l.owner, l.Until())
}

// Renew extends every lease the leaser holds on a running run, once.
func (l *Leaser) Renew(ctx context.Context) (int, error) {
	return l.s.RenewLeases(ctx, l.owner, l.Until())
}

// Keep renews the leaser's leases every LeaseRenew until ctx ends. A renewal that fails is
// tried again at the next tick: the lease outlives two failures, and report is told of each
// (nil tells no one).
func (l *Leaser) Keep(ctx context.Context, report func(error)) {
	t := time.NewTicker(LeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := l.Renew(ctx); err != nil && ctx.Err() == nil && report != nil {
			report(err)
		}
	}
}
