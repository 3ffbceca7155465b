package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func rfc(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Europe/Berlin: spring forward 2026-03-29 at 01:00 UTC (02:00 → 03:00 local), fall back
// 2026-10-25 at 01:00 UTC (03:00 → 02:00 local).
func TestCronNext(t *testing.T) {
	cases := []struct {
		name, spec, zone, after string
		want                    []string // RFC 3339 in UTC
	}{
		{"daily in UTC", "0 2 * * *", "", "2026-01-01T00:00:00Z",
			[]string{"2026-01-01T02:00:00Z", "2026-01-02T02:00:00Z"}},
		{"strictly after", "0 2 * * *", "UTC", "2026-01-01T02:00:00Z",
			[]string{"2026-01-02T02:00:00Z"}},
		{"daily in Berlin, winter", "0 2 * * *", "Europe/Berlin", "2026-01-01T00:00:00Z",
			[]string{"2026-01-01T01:00:00Z"}},
		{"spring forward: a fixed time in the gap runs once, right after it", "30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}},
		{"spring forward: several fixed times in the gap make one fire", "0,30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"}},
		{"spring forward: a wildcard hour keeps its pace", "0 * * * *", "Europe/Berlin", "2026-03-28T23:30:00Z",
			[]string{"2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"}},
		{"fall back: a fixed repeated time runs once, at its first occurrence", "30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},
		{"fall back: asked between the two occurrences, the next day", "30 2 * * *", "Europe/Berlin", "2026-10-25T00:45:00Z",
			[]string{"2026-10-26T01:30:00Z"}},
		{"fall back: a wildcard hour fires in both passes", "30 * * * *", "Europe/Berlin", "2026-10-24T23:45:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z"}},
		{"fall back: after the first pass's last minute comes the second pass", "* * * * *", "Europe/Berlin", "2026-10-25T00:59:00Z",
			[]string{"2026-10-25T01:00:00Z", "2026-10-25T01:01:00Z"}},
		{"both day fields restricted: either matches", "0 0 13 * 5", "UTC", "2026-02-01T00:00:00Z",
			[]string{"2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z"}},
		{"day of month starred: both must match", "0 0 */5 * 5", "UTC", "2026-02-01T00:00:00Z",
			[]string{"2026-02-06T00:00:00Z", "2026-03-06T00:00:00Z"}},
		{"7 is Sunday", "0 0 * * 7", "UTC", "2026-02-01T00:00:00Z",
			[]string{"2026-02-08T00:00:00Z"}},
		{"a range up to 7", "0 0 * * 6-7", "UTC", "2026-02-02T00:00:00Z",
			[]string{"2026-02-07T00:00:00Z", "2026-02-08T00:00:00Z", "2026-02-14T00:00:00Z"}},
		{"names", "0 12 * jan-feb mon", "UTC", "2026-02-20T00:00:00Z",
			[]string{"2026-02-23T12:00:00Z", "2027-01-04T12:00:00Z"}},
		{"@hourly", "@hourly", "UTC", "2026-02-20T00:10:00Z",
			[]string{"2026-02-20T01:00:00Z"}},
		{"leap day", "0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z",
			[]string{"2028-02-29T00:00:00Z"}},
		{"never", "0 0 30 2 *", "UTC", "2026-01-01T00:00:00Z", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCron(tc.spec, mustLoc(t, tc.zone))
			if err != nil {
				t.Fatal(err)
			}
			n := len(tc.want)
			if n == 0 {
				n = 1
			}
			var got []string
			for _, v := range Times(c, rfc(t, tc.after), n) {
				got = append(got, v.UTC().Format(time.RFC3339))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("next times of %q in %q after %s:\n got %v\nwant %v", tc.spec, tc.zone, tc.after, got, tc.want)
			}
		})
	}
}

func TestParseCronErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"0 2 * *", `cron does not parse: want 5 fields (minute hour day-of-month month day-of-week), got 4 in "0 2 * *"`},
		{"61 2 * * *", `cron does not parse: "61 2 * * *": end of range (61) above maximum (59): 61`},
		{"@every 1h", `cron does not parse: "@every 1h" is not a cron expression (use every: for intervals, timezone: for the zone)`},
		{"CRON_TZ=UTC 0 2 * * *", `cron does not parse: "CRON_TZ=UTC 0 2 * * *" is not a cron expression (use every: for intervals, timezone: for the zone)`},
		{"0 2 * * 8", `cron does not parse: "0 2 * * 8": end of range (8) above maximum (6): 8`},
	}
	for _, tc := range cases {
		_, err := ParseCron(tc.spec, time.UTC)
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCron(%q) = %v, want %s", tc.spec, err, tc.want)
		}
	}
}

func TestLoadLocation(t *testing.T) {
	cases := []struct{ name, want string }{
		{"", "UTC"},
		{"Asia/Tokyo", "Asia/Tokyo"},
		{"Local", `"Local" depends on the machine: name a zone such as Europe/Berlin, or UTC`},
		{"Mars/Olympus", "unknown time zone Mars/Olympus"},
	}
	for _, tc := range cases {
		loc, err := LoadLocation(tc.name)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = loc.String()
		}
		if got != tc.want {
			t.Errorf("LoadLocation(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestInterval(t *testing.T) {
	cases := []struct {
		every       time.Duration
		after, want string
	}{
		{10 * time.Second, "2026-01-01T00:00:05Z", "2026-01-01T00:00:10Z"},
		{10 * time.Second, "2026-01-01T00:00:10Z", "2026-01-01T00:00:20Z"},
		{7 * time.Second, "1970-01-01T00:00:00Z", "1970-01-01T00:00:07Z"},
		{time.Hour, "2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z"},
	}
	for _, tc := range cases {
		got, ok := Interval(tc.every).Next(rfc(t, tc.after))
		if !ok || got.UTC().Format(time.RFC3339) != tc.want {
			t.Errorf("every %s after %s = %s, want %s", tc.every, tc.after, got.UTC().Format(time.RFC3339), tc.want)
		}
	}
}
