// Package schedule computes when a trigger's runs are due: a cron read in a time zone, or a
// fixed interval. It is a leaf: lint checks triggers with it, and the scheduler asks it for
// the next times.
//
// Cron fields are parsed by github.com/robfig/cron/v3; the next times are computed here, over
// wall-clock times, because the rule seam promises around daylight saving time is not the one
// that library's Next follows (docs/schedules.md compares them):
//
//   - a cron whose minute and hour fields are fixed fires each matching wall time once: a
//     repeated time (fall back) at its first occurrence, a time that does not exist (spring
//     forward) at the first instant after the gap, several such times making one fire;
//   - a cron with `*` in its minute or hour field fires at every instant whose wall time
//     matches, so it keeps its pace through both changes.
//
// When both day fields are restricted (neither begins with `*`), a day matches if either
// does; otherwise both must (the crontab rule of ISC cron and cronie).
package schedule

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	// The tz database built into the binary, for machines (containers) that have none.
	_ "time/tzdata"
)

// Schedule gives the due times of a trigger.
type Schedule interface {
	// Next is the first due time strictly after after; ok is false when there is none
	// within the years a search covers (a cron such as "0 0 30 2 *").
	Next(after time.Time) (next time.Time, ok bool)
}

// Cron is a five-field cron expression read in a time zone.
type Cron struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i matches
	domStar, dowStar              bool   // the day field begins with *: unrestricted
	fixed                         bool   // minute and hour fields are fixed (no * in front)
	loc                           *time.Location
}

// searchYears bounds the search of Next: a cron that matches no day in this many years
// (February 30th) matches none.
const searchYears = 9

// maxShift is more than any daylight saving shift of the tz database (2 h): how far around a
// time a repeated or skipped wall time can lie.
const maxShift = 3 * time.Hour

var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// parser reads the five crontab fields; descriptors are expanded before it sees them, and
// time zones are the trigger's, not a CRON_TZ= prefix.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ErrSyntax wraps every error ParseCron returns.
var ErrSyntax = errors.New("cron does not parse")

// ParseCron reads spec (five fields, names, lists, ranges, steps, 0 and 7 for Sunday, or
// one of @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually) in loc.
func ParseCron(spec string, loc *time.Location) (*Cron, error) {
	s := strings.TrimSpace(spec)
	if d, ok := descriptors[strings.ToLower(s)]; ok {
		s = d
	} else if strings.HasPrefix(s, "@") || strings.Contains(s, "=") {
		// @every, @reboot and TZ= prefixes: every: and timezone: say those.
		return nil, fmt.Errorf("%w: %q is not a cron expression (use every: for intervals, timezone: for the zone)", ErrSyntax, spec)
	}
	fields := strings.Fields(s)
	if len(fields) != 5 {
		return nil, fmt.Errorf("%w: want 5 fields (minute hour day-of-month month day-of-week), got %d in %q", ErrSyntax, len(fields), spec)
	}
	fields[4] = sundaySeven(fields[4])
	sched, err := parser.Parse(strings.Join(fields, " "))
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrSyntax, spec, err)
	}
	sp, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a cron expression", ErrSyntax, spec)
	}
	if loc == nil {
		loc = time.UTC
	}
	const star = 1 << 63
	return &Cron{
		minute: sp.Minute &^ star, hour: sp.Hour &^ star, dom: sp.Dom &^ star, month: sp.Month &^ star, dow: sp.Dow &^ star,
		domStar: strings.HasPrefix(fields[2], "*"), dowStar: strings.HasPrefix(fields[4], "*"),
		fixed: !strings.HasPrefix(fields[0], "*") && !strings.HasPrefix(fields[1], "*"),
		loc:   loc,
	}, nil
}

var sevenRange = regexp.MustCompile(`^(\d+)-7(?:/(\d+))?$`)

// sundaySeven rewrites 7 (Sunday, as crontab allows) in a day-of-week field as 0, which is
// the only Sunday the parser knows.
func sundaySeven(field string) string {
	parts := strings.Split(field, ",")
	for i, p := range parts {
		if p == "7" {
			parts[i] = "0"
			continue
		}
		m := sevenRange.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		from, _ := strconv.Atoi(m[1])
		step := 1
		if m[2] != "" {
			step, _ = strconv.Atoi(m[2])
		}
		if step < 1 || from > 7 {
			continue // the parser says what is wrong
		}
		var vals []string
		for v := from; v <= 7; v += step {
			vals = append(vals, strconv.Itoa(v%7))
		}
		parts[i] = strings.Join(vals, ",")
	}
	return strings.Join(parts, ",")
}

// Next is the first time after after at which c fires.
func (c *Cron) Next(after time.Time) (time.Time, bool) {
	a := after.In(c.loc)
	w := naive(a).Truncate(time.Minute).Add(time.Minute)
	// A time after after may have an earlier wall time only in the second pass of a repeated
	// hour: look back then.
	if c.offset(after.Add(-maxShift)) != c.offset(after.Add(maxShift)) {
		w = w.Add(-maxShift)
	}
	limit := w.AddDate(searchYears, 0, 0)
	var best, bestWall time.Time
	for w.Before(limit) {
		if !best.IsZero() && w.Sub(bestWall) > maxShift {
			break
		}
		if !c.dayMatches(w) {
			w = time.Date(w.Year(), w.Month(), w.Day()+1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if c.hour&(1<<uint(w.Hour())) == 0 {
			w = w.Truncate(time.Hour).Add(time.Hour)
			continue
		}
		if c.minute&(1<<uint(w.Minute())) == 0 {
			w = w.Add(time.Minute)
			continue
		}
		for _, t := range c.instants(w) {
			if t.After(after) && (best.IsZero() || t.Before(best)) {
				best, bestWall = t, w
				// Only a candidate in the second pass of a repeated hour can be beaten by a
				// later wall time (one in the first pass).
				if c.offset(t.Add(-maxShift)) == c.offset(t) {
					return best, true
				}
			}
		}
		w = w.Add(time.Minute)
	}
	return best, !best.IsZero()
}

// instants are the times at which c fires for wall time w (a naive time in UTC): none, one,
// or two in a repeated hour when c is not fixed.
func (c *Cron) instants(w time.Time) []time.Time {
	// The offsets on either side of w: zone transitions are months apart, never 72 h.
	before, after := c.offset(w.Add(-36*time.Hour)), c.offset(w.Add(36*time.Hour))
	var out []time.Time
	for _, off := range []int{before, after} {
		t := time.Unix(w.Unix()-int64(off), 0).In(c.loc)
		if naive(t).Equal(w) && (len(out) == 0 || !out[0].Equal(t)) {
			out = append(out, t)
		}
	}
	switch {
	case len(out) == 2:
		if out[1].Before(out[0]) {
			out[0], out[1] = out[1], out[0]
		}
		if c.fixed {
			return out[:1] // fall back: the first occurrence
		}
	case len(out) == 0 && c.fixed:
		// Spring forward: w does not exist. Fire at the first instant after the gap: the start
		// of the zone that w read with the earlier offset falls in.
		t := time.Unix(w.Unix()-int64(before), 0).In(c.loc)
		if start, _ := t.ZoneBounds(); !start.IsZero() {
			return []time.Time{start}
		}
	}
	return out
}

// offset is c's zone offset at t, in seconds east of UTC.
func (c *Cron) offset(t time.Time) int {
	_, off := t.In(c.loc).Zone()
	return off
}

func (c *Cron) dayMatches(w time.Time) bool {
	if c.month&(1<<uint(w.Month())) == 0 {
		return false
	}
	dom := c.dom&(1<<uint(w.Day())) != 0
	dow := c.dow&(1<<uint(w.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

// naive is t's wall clock as the same reading in UTC.
func naive(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// Interval fires every d, at the multiples of d since the Unix epoch, so that its times do
// not depend on when a scheduler started.
type Interval time.Duration

// MinInterval is the shortest interval a trigger may have.
const MinInterval = time.Second

// Next is the first multiple of the interval after after.
func (iv Interval) Next(after time.Time) (time.Time, bool) {
	d := time.Duration(iv)
	if d <= 0 {
		return time.Time{}, false
	}
	n := after.UnixNano()
	next := n - n%int64(d) + int64(d)
	if n < 0 && n%int64(d) != 0 {
		next -= int64(d)
	}
	return time.Unix(0, next).In(after.Location()), true
}

// LoadLocation reads a trigger's time zone: an IANA name from the tz database; "" is UTC.
// "Local" is refused: a schedule must not depend on the machine it runs on.
func LoadLocation(name string) (*time.Location, error) {
	switch name {
	case "", "UTC":
		return time.UTC, nil
	case "Local":
		return nil, errors.New(`"Local" depends on the machine: name a zone such as Europe/Berlin, or UTC`)
	}
	return time.LoadLocation(name)
}

// Times lists the first n times of s after after.
func Times(s Schedule, after time.Time, n int) []time.Time {
	var out []time.Time
	for len(out) < n {
		t, ok := s.Next(after)
		if !ok {
			break
		}
		out = append(out, t)
		after = t
	}
	return out
}
