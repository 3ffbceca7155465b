package engine

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// Checkpoint is what a hosted run needs to go on elsewhere (a new Temporal history, where one
// history cannot hold the whole run): the nodes settled so far as the result shows them, and
// the outputs that nodes not settled yet or the DAG's outputs still read. It refers to nodes
// by their position in the DAG's nodes, so it goes on only a run of the same DAG. It is
// compact: a 10,000-node chain costs a few dozen bytes a node (docs/performance.md). A node's
// output, log, violations and error do not travel unless still read (the store has them): the
// result of a run that went on from one shows them for the nodes settled after it only.
type Checkpoint struct {
	Started time.Time `json:"started"` // the run's
	// States holds one letter per node of the DAG, in its order: '.' not settled, or the
	// settled node's status (checkpointLetters).
	States string `json:"states"`
	// By settled node, in the DAG's order: its attempts, when it started (µs after the run
	// did) and how long it took (µs after it started, or after the run did when it never
	// started), and its summary.
	Attempts  []int    `json:"attempts"`
	Begun     []int64  `json:"begun"`
	Took      []int64  `json:"took"`
	Summaries []string `json:"summaries"`
	// Notes hold what few settled nodes have: a reason, an error, foreach counts, flags.
	Notes []CheckpointNote `json:"notes,omitempty"`
	// Outputs are the outputs handed on that are still read.
	Outputs []CheckpointOutput `json:"outputs,omitempty"`
}

// CheckpointNote is what a settled node has beyond its status, attempts, times and summary.
type CheckpointNote struct {
	Node      int    `json:"i"`
	Reason    string `json:"reason,omitempty"`
	Error     string `json:"error,omitempty"`
	Items     int    `json:"items,omitempty"`
	ItemsDone int    `json:"items_done,omitempty"`
	Repaired  bool   `json:"repaired,omitempty"`
	Reused    bool   `json:"reused,omitempty"`
	Unstarted bool   `json:"unstarted,omitempty"` // it settled without starting (skipped)
}

// CheckpointOutput is a settled node's output, handed on and still read. Hash is the hash of
// the output as the node wrote it, which attempts' keys take; Output may be encoded otherwise.
type CheckpointOutput struct {
	Node   int             `json:"i"`
	Output json.RawMessage `json:"output"`
	Hash   []byte          `json:"hash,omitempty"`
}

// SplitError is what RunHosted returns when the host asked for the run to go on elsewhere
// (Host.Split): the run so far is recorded, and RunHosted with RunOptions.Checkpoint set to
// Checkpoint goes on from it.
type SplitError struct {
	Checkpoint *Checkpoint
}

func (e *SplitError) Error() string { return "the run goes on from a checkpoint" }

// checkpointLetters are the letters of Checkpoint.States, each that of the status at its
// place in checkpointStatuses.
const checkpointLetters = "pwfsc"

var checkpointStatuses = [len(checkpointLetters)]dag.NodeStatus{dag.NodePassed, dag.NodeWarned, dag.NodeFailed, dag.NodeSkipped, dag.NodeCanceled}

// checkpoint is the run so far, which must be between attempts: every node settled or not
// yet prepared.
func (r *runner) checkpoint() *Checkpoint {
	n := len(r.d.Nodes)
	cp := &Checkpoint{Started: r.res.Started}
	states := make([]byte, n)
	us := func(d time.Duration) int64 { return d.Microseconds() }
	for i := range r.res.Nodes {
		nr := &r.res.Nodes[i]
		k := slices.Index(checkpointStatuses[:], nr.Status)
		if k < 0 {
			states[i] = '.'
			continue
		}
		states[i] = checkpointLetters[k]
		cp.Attempts = append(cp.Attempts, nr.Attempts)
		from := r.res.Started
		if nr.Started.IsZero() {
			cp.Begun = append(cp.Begun, 0)
		} else {
			cp.Begun = append(cp.Begun, us(nr.Started.Sub(from)))
			from = nr.Started
		}
		cp.Took = append(cp.Took, us(nr.Ended.Sub(from)))
		cp.Summaries = append(cp.Summaries, nr.Summary)
		note := CheckpointNote{
			Node: i, Reason: nr.Reason, Error: nr.Error, Items: nr.Items, ItemsDone: nr.ItemsDone,
			Repaired: nr.Repaired, Reused: nr.Reused, Unstarted: nr.Started.IsZero(),
		}
		if note != (CheckpointNote{Node: i}) {
			cp.Notes = append(cp.Notes, note)
		}
	}
	cp.States = string(states)
	for _, i := range r.stillRead(states) {
		b, _ := json.Marshal(r.handed[i]) // decoded JSON always encodes
		o := CheckpointOutput{Node: int(i), Output: b}
		if r.keyed {
			o.Hash = r.handedHash[i][:]
		}
		cp.Outputs = append(cp.Outputs, o)
	}
	return cp
}

// stillRead lists the settled nodes with an output handed on that a node not settled yet
// reads (a dependency: its templates, its key, its default input), or that the DAG's outputs
// read, in the DAG's order. A node's Deps hold every node its templates refer to.
func (r *runner) stillRead(states []byte) []int32 {
	read := make([]bool, len(r.d.Nodes))
	for j := range r.d.Nodes {
		if states[j] == '.' {
			for _, i := range r.graph.depsOf(int32(j)) {
				read[i] = true
			}
		}
	}
	var index map[string]int32 // built only when the DAG's outputs read nodes
	for _, o := range r.d.Outputs {
		for _, ref := range o.Value.Refs() {
			if ref.Root != "nodes" {
				continue
			}
			if index == nil {
				index = make(map[string]int32, len(r.d.Nodes))
				for i, node := range r.d.Nodes {
					index[node.ID] = int32(i)
				}
			}
			if i, ok := index[ref.Node]; ok {
				read[i] = true
			}
		}
	}
	var out []int32
	for i, ok := range read {
		if ok && states[i] != '.' && r.handed[i] != nil {
			out = append(out, int32(i))
		}
	}
	return out
}

// Results are the nodes of d as cp holds them: settled, or pending.
func (cp *Checkpoint) Results(d *dag.DAG) ([]dag.NodeResult, error) {
	if len(cp.States) != len(d.Nodes) {
		return nil, fmt.Errorf("checkpoint of %d nodes, DAG %s has %d", len(cp.States), d.Name, len(d.Nodes))
	}
	out := make([]dag.NodeResult, len(d.Nodes))
	notes := cp.Notes
	k := 0
	for i, node := range d.Nodes {
		out[i] = dag.NodeResult{ID: node.ID, Type: node.Type.Name(), Status: dag.NodePending}
		if cp.States[i] == '.' {
			continue
		}
		l := strings.IndexByte(checkpointLetters, cp.States[i])
		if l < 0 || k >= len(cp.Attempts) || k >= len(cp.Begun) || k >= len(cp.Took) || k >= len(cp.Summaries) {
			return nil, fmt.Errorf("checkpoint: node %s: state %q without its values", node.ID, cp.States[i])
		}
		nr := &out[i]
		nr.Status, nr.Attempts, nr.Summary = checkpointStatuses[l], cp.Attempts[k], cp.Summaries[k]
		var note CheckpointNote
		if len(notes) > 0 && notes[0].Node == i {
			note, notes = notes[0], notes[1:]
		}
		nr.Reason, nr.Error, nr.Items, nr.ItemsDone = note.Reason, note.Error, note.Items, note.ItemsDone
		nr.Repaired, nr.Reused = note.Repaired, note.Reused
		from := cp.Started
		if !note.Unstarted {
			nr.Started = cp.Started.Add(time.Duration(cp.Begun[k]) * time.Microsecond)
			from = nr.Started
		}
		nr.Ended = from.Add(time.Duration(cp.Took[k]) * time.Microsecond)
		if !nr.Started.IsZero() {
			nr.Elapsed = nr.Ended.Sub(nr.Started)
		}
		k++
	}
	if len(notes) > 0 {
		return nil, fmt.Errorf("checkpoint: a note on node %d, which did not settle or is out of order", notes[0].Node)
	}
	return out, nil
}

// restore sets the run to cp: its settled nodes as they were, with the outputs still read
// handed on, and their dependents waiting for them no more. It tells the observer nothing:
// the run told it of those nodes where they settled.
func (r *runner) restore(cp *Checkpoint) error {
	nodes, err := cp.Results(r.d)
	if err != nil {
		return err
	}
	r.res.Started = cp.Started
	for _, o := range cp.Outputs {
		if o.Node < 0 || o.Node >= len(nodes) || !nodes[o.Node].Status.Done() {
			return fmt.Errorf("checkpoint: an output of node %d, which did not settle", o.Node)
		}
		v, err := contract.ParseJSON(o.Output)
		if err != nil {
			return fmt.Errorf("checkpoint: the output of %s: %w", r.d.Nodes[o.Node].ID, err)
		}
		nodes[o.Node].Output = v
		r.scope.Outputs[r.d.Nodes[o.Node].ID] = v
		r.handed[o.Node] = v
		if r.keyed {
			if len(o.Hash) == sha256.Size {
				r.handedHash[o.Node] = [sha256.Size]byte(o.Hash)
			} else {
				r.handedHash[o.Node] = sha256.Sum256(o.Output)
			}
		}
	}
	for i := range nodes {
		r.res.Nodes[i] = nodes[i]
		if !nodes[i].Status.Done() {
			continue
		}
		r.graph.restored(int32(i))
	}
	return nil
}
