package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/schedule"
)

// Clock is the scheduler's time. Tests give one they move by hand; SystemClock is the wall
// clock.
type Clock interface{ Now() time.Time }

// SystemClock reads the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// Scheduler starts the runs of DAGs' schedules (cron and every triggers) through a Service.
// Of the schedulers on one store, the one holding the store's lease decides; each decision
// is a fire (runs.Fire), and a started fire is written with its run, so that no time starts
// twice whatever the schedulers, their restarts and their crashes.
type Scheduler struct {
	svc   *Service
	fires runs.Fires
	clock Clock
	owner string
	// idle is, by trigger (triggerKey), when its next time is due: until then a tick
	// reads nothing of it from the store. The cursor in the store only moves forward, so a
	// time learned here is never later than the truth; a trigger with a time waiting has
	// none.
	idle map[string]time.Time
	// continued is when the last tick continued the runs waiting for an answer.
	continued time.Time
	// dags lists the DAGs to schedule, loaded afresh at each tick: a file changed takes
	// effect at the next one. Its error (files that did not load) does not stop the others.
	dags func(ctx context.Context) ([]*dag.DAG, error)
}

// ErrNoFires says the Service's store keeps no fires (it has none).
var ErrNoFires = errors.New("the scheduler needs a run store")

// NewScheduler returns a scheduler of the DAGs dags lists, starting runs with svc, which
// must have a store. owner names this scheduler in the store's lease ("": the service's
// lease owner, unique per process); clock nil is SystemClock.
func NewScheduler(svc *Service, owner string, clock Clock, dags func(ctx context.Context) ([]*dag.DAG, error)) (*Scheduler, error) {
	fires, ok := svc.opts.Store.(runs.Fires)
	if !ok {
		return nil, ErrNoFires
	}
	if clock == nil {
		clock = SystemClock{}
	}
	if owner == "" {
		owner = svc.lease.Owner()
	}
	return &Scheduler{svc: svc, fires: fires, clock: clock, owner: owner, dags: dags, idle: map[string]time.Time{}}, nil
}

// Made is one decision a tick made and carried out.
type Made struct {
	DAG, Trigger string
	schedule.Decision
	Run *Run // the run a start started
}

// Tick takes (or renews) the store's scheduler lease at the clock's now and, when this
// scheduler holds it, decides every due time of every schedule, and continues the runs of
// its DAGs waiting for an answer (Service.ContinueWaiting): deadlines passed, answers left. active says whether it
// held the lease; a second scheduler waits, and takes over once the first stops renewing.
// One goroutine ticks a Scheduler (Run does): a tick is not safe beside another.
func (sc *Scheduler) Tick(ctx context.Context) (active bool, made []Made, err error) {
	now := sc.clock.Now()
	holder, err := sc.fires.TakeSchedulerLease(ctx, sc.owner, now, now.Add(runs.LeaseFor))
	if err != nil || holder != sc.owner {
		return false, nil, err
	}
	// A DAG that does not load is said, and the others are scheduled.
	ds, err := sc.dags(ctx)
	errs := []error{err}
	for _, d := range ds {
		for _, tr := range d.Triggers {
			if !tr.Scheduled() {
				continue
			}
			m, err := sc.trigger(ctx, d, tr, now)
			made = append(made, m...)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	// The deadlines of the approvals waiting pass here too, with no command touching the
	// runs; a run whose answer's process died before resuming it goes on.
	// Once a second is enough for them, however often due times make Run tick.
	if now.Sub(sc.continued) >= time.Second {
		sc.continued = now
		_, err = sc.svc.ContinueWaiting(ctx, ds, now, Request{Warn: func(w error) { sc.svc.opts.Logger.Warn(w.Error()) }})
		errs = append(errs, err)
	}
	return true, made, errors.Join(errs...)
}

// Run ticks until ctx ends: when a schedule's next time is due, and at least every interval
// (a trigger the last tick could not read, the lease, the approvals' deadlines); report
// hears what a tick could not do (nil: no one). Waking at the due time, not at the next
// tick of a free-running ticker, decides a time within a tick's work of when it is due,
// where a ticker's phase alone made up to an interval of delay.
func (sc *Scheduler) Run(ctx context.Context, every time.Duration, report func(error)) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, _, err := sc.Tick(ctx); err != nil && ctx.Err() == nil && report != nil {
			report(err)
		}
		t.Reset(sc.wait(every))
	}
}

// minTickGap is the least wait between ticks Run makes for a due time: jittered times of
// many triggers fall due at many instants, and a tick (the lease, the DAG files' digests)
// for each would cost more than the fraction of a second it saves.
const minTickGap = 200 * time.Millisecond

// wait is how long Run waits after a tick: until the earliest next time the tick learned
// (minTickGap at least, also when one fell due while the tick worked), at most every.
func (sc *Scheduler) wait(every time.Duration) time.Duration {
	now, wait := sc.clock.Now(), every
	for _, due := range sc.idle {
		wait = min(wait, max(due.Sub(now), minTickGap))
	}
	return wait
}

// StartScheduler runs a scheduler of the DAGs dags lists with svc, ticking every second,
// until stop (seam scheduler, seam serve); report hears what a tick could not do.
func StartScheduler(ctx context.Context, svc *Service, dags func(ctx context.Context) ([]*dag.DAG, error), report func(error)) (stop func(), err error) {
	sc, err := NewScheduler(svc, "", nil, dags)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc.Run(ctx, time.Second, report)
	}()
	return func() { cancel(); <-done }, nil
}

// Times returns a schedule's next times after after, as the scheduler reads the trigger
// (seam schedule next): its cron in its zone, or its interval.
func Times(tr *dag.Trigger, after time.Time, n int, lang i18n.Lang) ([]time.Time, error) {
	s, err := scheduleOf(tr, lang)
	if err != nil {
		return nil, err
	}
	return schedule.Times(s, after, n), nil
}

func scheduleOf(tr *dag.Trigger, lang i18n.Lang) (schedule.Schedule, error) {
	if tr.Every > 0 {
		return schedule.Interval(tr.Every), nil
	}
	loc, err := schedule.LoadLocation(tr.Timezone)
	if err != nil {
		return nil, i18n.Errorf(lang, "trigger %s: unknown time zone %q", tr.ID, tr.Timezone)
	}
	c, err := schedule.ParseCron(tr.Cron, loc)
	if err != nil {
		return nil, i18n.Errorf(lang, "trigger %s: %w", tr.ID, err)
	}
	return c, nil
}

// ScheduledParams are the params trigger tr makes for its scheduled time t; nil when it
// makes none.
func ScheduledParams(tr *dag.Trigger, t time.Time, lang i18n.Lang) (map[string]any, error) {
	if tr.Params == nil {
		return nil, nil
	}
	v, err := tr.Params.Eval(&dag.Scope{Trigger: map[string]any{"scheduled_time": t.UTC().Format(time.RFC3339)}, Lang: lang})
	p, ok := v.(map[string]any)
	if err == nil && !ok {
		err = i18n.Errorf(lang, "trigger %s: params must make an object, not %s", tr.ID, fmt.Sprintf("%T", v))
	}
	return p, err
}

// triggerKey names trigger tr of d with what decides its times, so that a file changed
// forgets what Scheduler.idle learned of the trigger before.
func triggerKey(d *dag.DAG, tr *dag.Trigger) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s\x00%d", d.Name, tr.ID, tr.Cron, tr.Every, tr.Timezone, tr.Jitter)
}

// trigger decides the due times of one schedule.
func (sc *Scheduler) trigger(ctx context.Context, d *dag.DAG, tr *dag.Trigger, now time.Time) ([]Made, error) {
	lang := sc.svc.opts.Lang
	key := triggerKey(d, tr)
	if due, ok := sc.idle[key]; ok && now.Before(due) {
		return nil, nil
	}
	delete(sc.idle, key) // learned again below, once every time due is decided
	s, err := scheduleOf(tr, lang)
	if err != nil {
		return nil, err // lint says so (SEAM-E330, E331): nothing is due
	}
	st, err := sc.fires.Trigger(ctx, d.Name, tr.ID, now)
	if err != nil {
		return nil, err
	}
	cursor := st.Since
	last, err := sc.fires.ListFires(ctx, d.Name, tr.ID, 10)
	if err != nil {
		return nil, err
	}
	// A person's fire is not a time of the schedule: the cursor passes over it, so that a
	// trigger by hand loses none of the times before it.
	for _, f := range last {
		if f.Decision != runs.FireManual {
			if f.Scheduled.After(cursor) {
				cursor = f.Scheduled
			}
			break
		}
	}
	going := sc.going(ctx, last)
	waiting := st.Waiting
	for _, f := range last {
		if f.Scheduled.Equal(waiting) {
			waiting = time.Time{} // decided, the scheduler stopping before it cleared it
		}
	}
	if waiting.IsZero() != st.Waiting.IsZero() || (!waiting.IsZero() && tr.Overlap != schedule.OverlapBufferOne) {
		if err := sc.fires.SetWaiting(ctx, d.Name, tr.ID, time.Time{}); err != nil {
			return nil, err
		}
		waiting = time.Time{}
	}
	p := schedule.Policy{Window: tr.Catchup.Window, Runs: tr.Catchup.Runs, Overlap: string(tr.Overlap), Jitter: tr.Jitter,
		Key: d.Name + "/" + tr.ID, Lang: lang}
	var made []Made
	for _, dec := range schedule.Plan(s, p, schedule.State{Cursor: cursor, Waiting: waiting, Running: len(going)}, now) {
		if st.Paused && dec.Action != schedule.Wait {
			dec.Action, dec.Note = schedule.Miss, i18n.Sprintf(lang, "paused by %s: %s", st.PausedBy, st.Note)
		}
		m := Made{DAG: d.Name, Trigger: tr.ID, Decision: dec}
		switch dec.Action {
		case schedule.Wait:
			// buffer_one keeps its waiting time apart before the times after it are decided
			// (skipped) and move the cursor past it; buffer_all decides nothing after it.
			if tr.Overlap != schedule.OverlapBufferOne {
				return append(made, m), nil
			}
			if !dec.Time.Equal(waiting) {
				if err := sc.fires.SetWaiting(ctx, d.Name, tr.ID, dec.Time); err != nil {
					return made, err
				}
			}
		case schedule.Skip, schedule.Miss:
			err = sc.record(ctx, m, now)
		case schedule.Cancel:
			// As on Temporal, the time starts once the runs going ended: it is decided again
			// at the next ticks, and the cancel asked again until they did.
			return append(made, m), sc.cancel(ctx, going)
		case schedule.Start:
			m, err = sc.start(ctx, d, tr, m, now)
		}
		if err == nil && !waiting.IsZero() && dec.Time.Equal(waiting) && dec.Action != schedule.Wait {
			err = sc.fires.SetWaiting(ctx, d.Name, tr.ID, time.Time{})
		}
		if err != nil {
			return made, err
		}
		made = append(made, m)
	}
	if waiting.IsZero() {
		// Every time due is decided (a waiting one would have returned or be kept): nothing
		// is due before the time after the latest decided.
		for _, m := range made {
			if m.Action != schedule.Wait && m.Time.After(cursor) {
				cursor = m.Time
			}
		}
		if t, ok := s.Next(cursor); ok && !slices.ContainsFunc(made, func(m Made) bool { return m.Action == schedule.Wait }) {
			sc.idle[key] = t.Add(p.JitterOf(t))
		}
	}
	return made, nil
}

// cancel cancels the runs ids, wherever they run: one this process runs at once, one
// another process runs by the store's cancel request, which that process carries out
// (runs.CancelRequests), so that cancel_other cancels a run a scheduler started before a
// takeover too.
func (sc *Scheduler) cancel(ctx context.Context, ids []string) error {
	for _, id := range ids {
		err := sc.svc.Cancel(ctx, id)
		var nr *NotRunningError
		switch {
		case errors.As(err, &nr) && nr.Status == dag.RunRunning:
			err = sc.svc.opts.Store.RecordAction(ctx, id, runs.Action{Kind: runs.ActionCancel, By: sc.svc.by(ctx), At: time.Now()})
		case errors.As(err, &nr):
			err = nil // it ended meanwhile
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// going returns the runs started by the fires given that are still going.
func (sc *Scheduler) going(ctx context.Context, fires []runs.Fire) []string {
	var ids []string
	for _, f := range fires {
		if f.Decision != runs.FireStarted && f.Decision != runs.FireManual {
			continue
		}
		r, _, err := sc.svc.opts.Store.GetRun(ctx, f.RunID)
		if err == nil && r.Status == dag.RunRunning && !r.InterruptedAt(time.Now()) {
			ids = append(ids, f.RunID)
		}
	}
	return ids
}

// record records a decision that starts no run; one another scheduler recorded first is
// not an error.
func (sc *Scheduler) record(ctx context.Context, m Made, now time.Time) error {
	decision := runs.FireSkipped
	if m.Action == schedule.Miss {
		decision = runs.FireMissed
	}
	err := sc.fires.RecordFire(ctx, runs.Fire{DAG: m.DAG, Trigger: m.Trigger, Scheduled: m.Time, Decision: decision, At: now, Note: m.Note})
	if errors.Is(err, runs.ErrFired) {
		return nil
	}
	return err
}

// start starts the run for m's time, with the params the trigger makes for it, and waits
// until the run (with its fire) is in the store. A run that cannot start (its params broken,
// lint) is recorded missed with the reason, so that the time is not tried again and again.
func (sc *Scheduler) start(ctx context.Context, d *dag.DAG, tr *dag.Trigger, m Made, now time.Time) (Made, error) {
	lang := sc.svc.opts.Lang
	params, err := ScheduledParams(tr, m.Time, lang)
	if err != nil {
		m.Action, m.Note = schedule.Miss, err.Error()
		return m, sc.record(ctx, m, now)
	}
	run, err := sc.svc.Start(context.WithoutCancel(ctx), d, Request{Params: params, Fired: dag.Fired{Trigger: tr.ID, Scheduled: m.Time}})
	if err == nil {
		select {
		case <-run.Recorded():
			m.Run = run
			return m, nil
		case <-run.Done():
			_, err = run.Wait()
		}
	}
	if errors.Is(err, runs.ErrFired) {
		m.Action, m.Note = schedule.Skip, i18n.Format(lang, "started by another scheduler")
		return m, nil
	}
	m.Action, m.Note = schedule.Miss, i18n.Sprintf(lang, "could not start: %v", err)
	return m, sc.record(ctx, m, now)
}
