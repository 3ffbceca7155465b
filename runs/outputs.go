package runs

import (
	"context"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// EachDecidedOutput calls each with what each of nodes delivered in the last n runs of the
// DAG named dagName that ended success or warn, newest first: in each run, the output of the
// node's last deciding attempt (a resume's, if the run was resumed), when that attempt passed
// or warned. A node absent from a run, or that failed there, adds nothing. One output is read
// at a time, so that n runs of large outputs are never held together. Errors are said in
// lang.
func EachDecidedOutput(ctx context.Context, s Store, dagName string, nodes []string, n int, lang i18n.Lang, each func(node string, output []byte)) error {
	seen, cursor := 0, ""
	for seen < n {
		rs, next, err := s.ListRuns(ctx, Filter{DAG: dagName, Limit: n, Cursor: cursor})
		if err != nil {
			return i18n.Errorf(lang, "read the runs of %s: %w", dagName, err)
		}
		for _, r := range rs {
			if seen == n || (r.Status != dag.RunSuccess && r.Status != dag.RunWarn) {
				continue
			}
			seen++
			_, as, err := s.GetRun(ctx, r.ID)
			if err != nil {
				return i18n.Errorf(lang, "read run %s: %w", r.ID, err)
			}
			last := map[string]*Attempt{}
			for i := range as {
				if a := &as[i]; a.Item == -1 && a.Final && (a.Status == dag.NodePassed || a.Status == dag.NodeWarned) {
					last[a.Node] = a
				}
			}
			for _, id := range nodes {
				a := last[id]
				if a == nil {
					continue
				}
				out, err := AttemptOutput(ctx, s, a)
				if err != nil {
					return i18n.Errorf(lang, "read the output of %s in run %s: %w", id, r.ID, err)
				}
				if out != nil {
					each(id, out)
				}
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return nil
}
