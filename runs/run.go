package runs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// Interrupted reports whether a run recorded as running was left so by an owner that no
// longer exists, now (InterruptedAt).
func (r *Run) Interrupted() bool { return r.InterruptedAt(time.Now()) }

// InterruptedAt reports whether a run recorded as running was left so by an owner that no
// longer exists, at now: its lease expired (lease.go), or its process, on this host, is
// gone (killed, or the machine restarted). A run recorded before leases has only the
// second check, which cannot see another host's process and is fooled by a pid reused:
// false means "maybe still running" for those.
func (r *Run) InterruptedAt(now time.Time) bool {
	if r.Status != dag.RunRunning {
		return false
	}
	if !r.LeaseUntil.IsZero() && now.After(r.LeaseUntil) {
		return true
	}
	alive, known := r.processAlive()
	return known && !alive
}

// Releasable reports whether `seam runs release` may end the run at now: it is recorded as
// running and nothing says its owner lives: its lease expired, or it has none (recorded
// before leases) and its process is not known to live on this host.
func (r *Run) Releasable(now time.Time) bool {
	if r.Status != dag.RunRunning {
		return false
	}
	if r.InterruptedAt(now) {
		return true
	}
	alive, known := r.processAlive()
	return r.LeaseUntil.IsZero() && !(known && alive)
}

// DisplayStatus is the run's status as people and agents read it at now: "interrupted" for
// a run InterruptedAt now (stored as running), its stored status otherwise.
func (r *Run) DisplayStatus(now time.Time) dag.RunStatus {
	if r.InterruptedAt(now) {
		return StatusInterrupted
	}
	return r.Status
}

// StatusInterrupted is the status shown, never stored, for a run recorded as running whose
// owner is gone.
const StatusInterrupted dag.RunStatus = "interrupted"

// processAlive checks the recorded process, when it is on this host: known is false when
// it cannot be checked (another host, no pid, a run on Temporal).
func (r *Run) processAlive() (alive, known bool) {
	if r.PID <= 0 {
		return false, false
	}
	host, _ := os.Hostname()
	if r.Host != host {
		return false, false
	}
	p, err := os.FindProcess(r.PID)
	if err != nil {
		return false, true
	}
	// On Linux p holds a pidfd until released: the web view checks at every live update, and
	// the garbage collector closes them too late (hundreds open under a few streams).
	defer p.Release()
	// Signal 0 checks the process exists without disturbing it.
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM), true
}

// ParamsObject decodes the params the run started with (numbers exact, as a run reads them);
// an empty object when there were none.
func (r *Run) ParamsObject() (map[string]any, error) {
	if len(r.Params) == 0 {
		return map[string]any{}, nil
	}
	v, err := contract.ParseJSON(r.Params)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("run %s: its stored params are not a JSON object", r.ID)
	}
	return m, nil
}
