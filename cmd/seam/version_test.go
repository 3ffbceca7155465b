package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	const rev = "3f80ed662a81668059d879f50492ece0022b4179"
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"a release", "v1.2.0", nil, "v1.2.0"},
		{"a checkout without VCS stamping", "(devel)", nil, "(devel)"},
		{"no version at all", "", nil, "(devel)"},
		{"a checkout", "(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}},
			"(devel) (revision 3f80ed662a81)"},
		{"a modified checkout", "(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}},
			"(devel) (revision 3f80ed662a81, modified)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Version: tt.version}, Settings: tt.settings}
			if got := versionOf(info); got != tt.want {
				t.Errorf("versionOf = %q, want %q", got, tt.want)
			}
		})
	}
}
