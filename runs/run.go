package runs

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// Interrupted reports whether a run recorded as running was left so by a process that no
// longer exists (killed, or the machine restarted): only a process on this host can be
// checked, and a pid may have been reused, so false means "maybe still running".
func (r *Run) Interrupted() bool {
	if r.Status != dag.RunRunning || r.PID == 0 {
		return false
	}
	host, _ := os.Hostname()
	if r.Host != host {
		return false
	}
	p, err := os.FindProcess(r.PID)
	if err != nil {
		return true
	}
	// On Linux p holds a pidfd until released: the web view checks at every live update, and
	// the garbage collector closes them too late (hundreds open under a few streams).
	defer p.Release()
	// Signal 0 checks the process exists without disturbing it.
	err = p.Signal(syscall.Signal(0))
	return err != nil && !errors.Is(err, syscall.EPERM)
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
