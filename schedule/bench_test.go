package schedule

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkPlan1000 is one scheduler tick's planning for 1,000 triggers: half crons in
// zones with daylight saving time, half intervals of 1 to 60 s; steady (the last tick a
// second ago) and after an hour's downtime (thousands of times each to decide).
func BenchmarkPlan1000(b *testing.B) {
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"}
	scheds := make([]Schedule, 1000)
	for i := range scheds {
		if i%2 == 0 {
			scheds[i] = Interval(time.Duration(1+i%60) * time.Second)
			continue
		}
		loc, err := LoadLocation(zones[i%len(zones)])
		if err != nil {
			b.Fatal(err)
		}
		c, err := ParseCron(fmt.Sprintf("%d * * * *", i%60), loc)
		if err != nil {
			b.Fatal(err)
		}
		scheds[i] = c
	}
	now := time.Date(2026, 10, 25, 0, 59, 30, 0, time.UTC) // Berlin's fall-back night
	p := Policy{Window: time.Minute, Runs: CatchupLatest, Overlap: OverlapSkip}
	for _, since := range []time.Duration{time.Second, time.Hour} {
		b.Run("since="+since.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range scheds {
					Plan(s, p, State{Cursor: now.Add(-since)}, now)
				}
			}
		})
	}
}
