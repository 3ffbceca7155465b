package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

func TestDescribe(t *testing.T) {
	const rev = "3f80ed662a81668059d879f50492ece0022b4179"
	stamped := []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		exe      string
		lang     i18n.Lang
		want     string
	}{
		{"a module download", "v1.2.0", nil, "/home/u/go/bin/seam", i18n.English,
			"v1.2.0 (no revision: built from a module download, whose version names the source)"},
		{"a checkout built with -buildvcs=false", "(devel)", nil, "/usr/local/bin/seam", i18n.English,
			"(devel) (no revision: built without VCS stamping, by go build -buildvcs=false or outside a git checkout)"},
		{"no version at all", "", nil, "", i18n.English,
			"(devel) (no revision: built without VCS stamping, by go build -buildvcs=false or outside a git checkout)"},
		{"go run", "(devel)", nil, "/tmp/go-build2211/b001/exe/seam", i18n.English,
			"(devel) (no revision: go run and go test do not stamp one; go build in a git checkout does)"},
		{"go run, in Japanese", "(devel)", nil, "/tmp/go-build2211/b001/exe/seam", i18n.Japanese,
			"(devel) （リビジョンなし: go run と go test は記録しません。git のチェックアウトで go build すると記録されます）"},
		{"a checkout", "(devel)", stamped, "/tmp/go-build2211/b001/exe/seam", i18n.English, "(devel) (revision 3f80ed662a81)"},
		{"a modified checkout", "(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}, "", i18n.English,
			"(devel) (revision 3f80ed662a81, modified)"},
		{"a release built in its checkout", "v1.2.0", stamped, "", i18n.English, "v1.2.0 (revision 3f80ed662a81)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Version: tt.version}, Settings: tt.settings}
			if got := Describe(tt.lang, info, tt.exe); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
}
