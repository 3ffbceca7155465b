package runs

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestInterrupted(t *testing.T) {
	host, _ := os.Hostname()
	// A process that has exited and been reaped: its pid names no process.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	tests := []struct {
		name string
		run  Run
		want bool
	}{
		{"this process", Run{Status: "running", PID: os.Getpid(), Host: host}, false},
		{"a dead process", Run{Status: "running", PID: dead, Host: host}, true},
		{"another host", Run{Status: "running", PID: dead, Host: host + "-elsewhere"}, false},
		{"no pid recorded", Run{Status: "running", Host: host}, false},
		{"finished", Run{Status: "failed", PID: dead, Host: host}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.run.Interrupted(); got != tc.want {
				t.Errorf("Interrupted() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInterruptedOpensNothing checks a running run many times, as every live update of the
// web view does: no check may leave a file descriptor open (on Linux os.FindProcess opens a
// pidfd, which stayed open until a garbage collection).
func TestInterruptedOpensNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to count open files")
	}
	host, _ := os.Hostname()
	r := Run{Status: "running", PID: os.Getpid(), Host: host}
	before := openFiles(t)
	for range 100 {
		if r.Interrupted() {
			t.Fatal("this process's run is interrupted")
		}
	}
	if after := openFiles(t); after != before {
		t.Errorf("100 checks left %d open files, %d before", after, before)
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

func TestParamsObject(t *testing.T) {
	tests := []struct {
		params string
		want   string // the decoded params as fmt prints them, or the error
	}{
		{"", "map[]"},
		{`{"n": 1.50, "who": "ada"}`, "map[n:1.50 who:ada]"}, // the number keeps its text
		{`[1]`, "run r1: its stored params are not a JSON object"},
		{`{"n":`, "run r1: its stored params are not a JSON object"},
	}
	for _, tc := range tests {
		r := Run{ID: "r1", Params: []byte(tc.params)}
		m, err := r.ParamsObject()
		got := fmt.Sprint(m)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.params, got, tc.want)
		}
	}
}
