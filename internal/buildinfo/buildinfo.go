// Package buildinfo says which seam this is: the module version and the VCS revision the go
// command stamped, and, when there is no revision, why, so that a bug report without one says
// how the binary was built rather than nothing.
package buildinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// Version is the running binary's version, its revision, and in lang why the revision is
// missing when it is.
func Version(lang i18n.Lang) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	exe, _ := os.Executable() // only a hint: "" leaves out the go run case
	return Describe(lang, info, exe)
}

// Short is the running binary's version and revision, without the reason: for --version,
// which is read before the language is known.
func Short() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v, rev := versionRev(info)
	return v + rev
}

// Describe is Version for the given build info and executable path.
func Describe(lang i18n.Lang, info *debug.BuildInfo, exe string) string {
	v, rev := versionRev(info)
	if rev != "" {
		return v + rev
	}
	switch {
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		// go install …@VERSION builds from the module proxy's zip, which has no .git.
		return v + " " + i18n.Sprintf(lang, "(no revision: built from a module download, whose version names the source)")
	case strings.Contains(exe, string(filepath.Separator)+"go-build"):
		// go run and go test build into a go-build temporary directory and never stamp.
		return v + " " + i18n.Sprintf(lang, "(no revision: go run and go test do not stamp one; go build in a git checkout does)")
	default:
		return v + " " + i18n.Sprintf(lang, "(no revision: built without VCS stamping, by go build -buildvcs=false or outside a git checkout)")
	}
}

// versionRev is the version ("(devel)" when the module has none) and, when stamped, the
// revision as " (revision REV)" with ", modified" for a tree with changes.
func versionRev(info *debug.BuildInfo) (string, string) {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v, ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return v, fmt.Sprintf(" (revision %s, modified)", rev)
	}
	return v, fmt.Sprintf(" (revision %s)", rev)
}
