package workspace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// SameName is a DAG name that more than one file gives. The run store, the web view and MCP
// know a DAG by its name, so the runs of both files would be listed, resumed and compared
// as one DAG's.
type SameName struct {
	Name string
	At   []dag.Pos // where each file gives it, in the order the files were given
}

// SameNames finds the names more than one of the DAGs gives, in the order of their first
// file. Sub-DAGs are not counted: a file run as a sub-DAG is listed once, as itself.
func SameNames(ds []*dag.DAG) []SameName {
	var out []SameName
	seen := map[string]int{} // name -> index in out, or -1 while one file gives it
	first := map[string]dag.Pos{}
	for _, d := range ds {
		if d == nil || d.Name == "" {
			continue
		}
		i, ok := seen[d.Name]
		switch {
		case ok && (first[d.Name] == d.NamePos || i >= 0 && slices.Contains(out[i].At, d.NamePos)):
			// one file given twice (a file and its folder on one command line) is one file
		case !ok:
			seen[d.Name], first[d.Name] = -1, d.NamePos
		case i < 0:
			seen[d.Name] = len(out)
			out = append(out, SameName{Name: d.Name, At: []dag.Pos{first[d.Name], d.NamePos}})
		default:
			out[i].At = append(out[i].At, d.NamePos)
		}
	}
	return out
}

// Others are the places other than p that give the name, as file:line.
func (s SameName) Others(p dag.Pos) []string {
	var out []string
	for _, q := range s.At {
		if q != p {
			out = append(out, fmt.Sprintf("%s:%d", q.File, q.Line))
		}
	}
	return out
}

// Warning says, in lang, where the name is given and why that is a problem.
func (s SameName) Warning(lang i18n.Lang) string {
	at := make([]string, len(s.At))
	for i, p := range s.At {
		at[i] = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return i18n.Sprintf(lang, "warning: %d DAG files are named %q (%s): runs are listed by DAG name, so theirs would mix; give each file a name of its own",
		len(s.At), s.Name, strings.Join(at, ", "))
}
