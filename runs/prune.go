package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// Retention: `seam runs prune` deletes old runs with everything recorded of them (attempts,
// start records, attempt packs, sub-runs, and the outputs no run left points at). The choice
// of runs is made here, the same for both backends; each backend deletes a batch of them in
// one transaction (DeleteRuns), checking again inside it that none of them runs.

// PruneOptions say which runs Prune deletes: the top-level runs (sub-runs go with their
// parent) started before Before, but the Keep newest of each DAG, of the DAG named DAG when
// it is set. A run whose lease is live is never deleted, nor one recorded as running without
// a lease (recorded before leases: nothing says it stopped), nor one waiting for an
// approval's answer; one whose lease expired (interrupted) is.
type PruneOptions struct {
	Before time.Time
	Keep   int
	DAG    string
	// DryRun deletes nothing: Prune says what it would delete, counted by the same
	// transactions rolled back.
	DryRun bool
	// Now is the time leases are compared with.
	Now time.Time
	// Batch is how many top-level runs go in one transaction; DefaultPruneBatch when not
	// positive.
	Batch int
}

// DefaultPruneBatch is how many runs Prune deletes per transaction: a batch holds the
// store's write lock (SQLite) for a few milliseconds, so that runs recording meanwhile wait
// little.
const DefaultPruneBatch = 100

// Pruned says what a prune deleted (or, dry, would delete).
type Pruned struct {
	Runs    []Run // the top-level runs, newest first
	SubRuns int   // the sub-runs that went with them
	Outputs int   // the stored outputs no remaining run points at
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// Prune deletes the runs o selects from s, a batch per transaction, and says what went.
// Errors are said in lang.
func Prune(ctx context.Context, s Store, o PruneOptions, lang i18n.Lang) (*Pruned, error) {
	if o.Keep < 0 {
		return nil, i18n.Errorf(lang, "keep %d runs: want 0 or more", o.Keep)
	}
	batch := o.Batch
	if batch <= 0 {
		batch = DefaultPruneBatch
	}
	var picked []Run
	kept := map[string]int{} // the newest runs of each DAG seen so far
	for cursor := ""; ; {
		rs, next, err := s.ListRuns(ctx, Filter{DAG: o.DAG, TopLevel: true, Limit: 500, Cursor: cursor})
		if err != nil {
			return nil, i18n.Errorf(lang, "prune runs: %w", err)
		}
		for _, r := range rs {
			if kept[r.DAG] < o.Keep {
				kept[r.DAG]++
				continue
			}
			if r.Started.Before(o.Before) && !r.live(o.Now) {
				picked = append(picked, r)
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	out := &Pruned{}
	for chunk := range slices.Chunk(picked, batch) {
		ids := make([]string, len(chunk))
		for i := range chunk {
			ids[i] = chunk[i].ID
		}
		d, err := s.DeleteRuns(ctx, ids, o.Now, o.DryRun)
		if err != nil {
			return out, i18n.Errorf(lang, "prune runs: %w", err)
		}
		for _, r := range chunk {
			if slices.Contains(d.Runs, r.ID) {
				out.Runs = append(out.Runs, r)
			}
		}
		out.SubRuns += d.SubRuns
		out.Outputs += d.Outputs
	}
	return out, nil
}

// live reports whether r may be running at now, recorded running with a lease not expired or
// no lease at all, or waits for a person's answer (an approval): a prune keeps both.
// liveSQL says the same in SQL.
func (r *Run) live(now time.Time) bool {
	return r.Status == "waiting" || r.Status == "running" && (r.LeaseUntil.IsZero() || !now.After(r.LeaseUntil))
}

// liveSQL is Run.live over a row of runs aliased r, now being the placeholder given.
func liveSQL(now string) string {
	return `(r.status = 'waiting' OR (r.status = 'running' AND (r.lease_until IS NULL OR r.lease_until >= ` + now + `)))`
}

// Deleted is what DeleteRuns deleted.
type Deleted struct {
	Runs    []string // the ids given that were deleted
	SubRuns int
	Outputs int
}

// querier is what deleteRuns needs of a transaction, on either backend.
type querier interface {
	// strings returns the first column of each row q selects, as text.
	strings(ctx context.Context, q string, args ...any) ([]string, error)
	exec(ctx context.Context, q string, args ...any) (int64, error)
}

// deleteRuns deletes, in tx, the top-level runs ids that do not run at now (nor any run
// under them), their sub-runs, their attempts and packs, and the outputs only they pointed
// at. ph(n) is the backend's placeholder for the n-th argument.
func deleteRuns(ctx context.Context, tx querier, ph func(int) string, ids []string, now time.Time) (Deleted, error) {
	var d Deleted
	in := func(args []any, vals []string) (string, []any) {
		marks := make([]string, len(vals))
		for i, v := range vals {
			args = append(args, v)
			marks[i] = ph(len(args))
		}
		return "(" + strings.Join(marks, ", ") + ")", args
	}
	// Every run under each root, with the roots under which one runs: those stay whole.
	list, args := in([]any{timeToDB(now)}, ids)
	rows, err := tx.strings(ctx, `WITH RECURSIVE tree (root, id) AS (
			SELECT id, id FROM runs WHERE id IN `+list+` AND parent = ''
			UNION ALL
			SELECT t.root, r.id FROM runs r JOIN tree t ON r.parent = t.id AND r.parent <> '')
		SELECT t.root || ' ' || t.id || ' ' || CASE WHEN `+liveSQL(ph(1))+` THEN 'live' ELSE '-' END
		FROM tree t JOIN runs r ON r.id = t.id`, args...)
	if err != nil {
		return d, fmt.Errorf("find the runs to delete: %w", err)
	}
	members := map[string][]string{}
	busy := map[string]bool{}
	for _, row := range rows {
		f := strings.Fields(row)
		if len(f) != 3 {
			return d, fmt.Errorf("find the runs to delete: unexpected row %q", row)
		}
		members[f[0]] = append(members[f[0]], f[1])
		busy[f[0]] = busy[f[0]] || f[2] == "live"
	}
	var del []string
	for _, id := range ids {
		if len(members[id]) == 0 || busy[id] {
			continue
		}
		d.Runs = append(d.Runs, id)
		d.SubRuns += len(members[id]) - 1
		del = append(del, members[id]...)
	}
	if len(del) == 0 {
		return d, nil
	}
	// The lists are cut in chunks: a run's sub-runs may be thousands (a foreach of a dag
	// node), past what one statement may bind.
	var hashes []string
	err = inChunks(del, func(part []string) error {
		list, args := in(nil, part)
		hs, err := tx.strings(ctx, `SELECT DISTINCT output_hash FROM attempts
			WHERE run_id IN `+list+` AND output_hash IS NOT NULL`, args...)
		hashes = append(hashes, hs...)
		return err
	})
	if err != nil {
		return d, fmt.Errorf("find the outputs of the runs to delete: %w", err)
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	var gone int64
	err = inChunks(del, func(part []string) error {
		list, args := in(nil, part)
		for _, q := range []string{`DELETE FROM attempts WHERE run_id IN `, `DELETE FROM attempt_packs WHERE run_id IN `} {
			if _, err := tx.exec(ctx, q+list, args...); err != nil {
				return err
			}
		}
		// The liveness is checked again as the rows go: a resume that took a run's lease
		// since it was read makes the batch fail, whole, rather than delete a running run.
		list, args = in([]any{timeToDB(now)}, part)
		n, err := tx.exec(ctx, `DELETE FROM runs WHERE id IN (SELECT r.id FROM runs r WHERE r.id IN `+list+` AND NOT `+liveSQL(ph(1))+`)`, args...)
		gone += n
		return err
	})
	if err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	if gone != int64(len(del)) {
		return d, fmt.Errorf("delete runs: %d of %d runs started running meanwhile; nothing of this batch was deleted", int64(len(del))-gone, len(del))
	}
	// Not a correlated NOT EXISTS: SQLite has no index on attempts.output_hash (it would
	// cost every commit), so the attempts are scanned once per chunk, not once per output.
	err = inChunks(hashes, func(part []string) error {
		list, args := in(nil, part)
		n, err := tx.exec(ctx, `DELETE FROM outputs WHERE hash IN `+list+`
			AND hash NOT IN (SELECT output_hash FROM attempts WHERE output_hash IN `+list+`)`, args...)
		d.Outputs += int(n)
		return err
	})
	if err != nil {
		return d, fmt.Errorf("delete outputs: %w", err)
	}
	return d, nil
}

// inChunks calls fn with vals cut in parts of at most 1,000.
func inChunks(vals []string, fn func(part []string) error) error {
	for part := range slices.Chunk(vals, 1000) {
		if err := fn(part); err != nil {
			return err
		}
	}
	return nil
}

// WriteText writes p for people, in lang: a line per top-level run deleted (dry: that would
// be), then the count.
func (p *Pruned) WriteText(w io.Writer, lang i18n.Lang, dry bool, now time.Time) {
	verb := i18n.Format(lang, "deleted")
	if dry {
		verb = i18n.Format(lang, "would delete")
	}
	for i := range p.Runs {
		r := &p.Runs[i]
		fmt.Fprintf(w, "%s  %s  %s  %s  %s\n", verb, r.ID, r.DAG, StatusText(lang, r.DisplayStatus(now)), r.Started.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(w, i18n.Sprintf(lang, "%s %s (%s) and %s", verb,
		i18n.Plural(lang, len(p.Runs), "%d run", "%d runs", len(p.Runs)),
		i18n.Plural(lang, p.SubRuns, "%d sub-run", "%d sub-runs", p.SubRuns),
		i18n.Plural(lang, p.Outputs, "%d stored output", "%d stored outputs", p.Outputs)))
}
