package engine

import (
	"net/url"
	"slices"
	"strings"
)

// ownSecrets returns the credentials seam itself reads from its environment (getenv): the
// password of a PostgreSQL $SEAM_STORE, $SEAM_SERVE_TOKEN, $SEAM_MCP_TOKEN, $N8N_API_KEY and
// $TEMPORAL_API_KEY. A node never gets them unless its DAG passes one (nodes keep only a base
// of seam's environment), but one that does, or a param that holds one, must not put it in
// the run store: every run masks them as it masks the DAG's env.
func ownSecrets(getenv func(string) string) []string {
	var s []string
	for _, name := range []string{"SEAM_SERVE_TOKEN", "SEAM_MCP_TOKEN", "N8N_API_KEY", "TEMPORAL_API_KEY"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			s = append(s, v)
		}
	}
	if u, err := url.Parse(getenv("SEAM_STORE")); err == nil {
		if p, ok := u.User.Password(); ok && p != "" {
			s = append(s, p)
		}
		if p := u.Query().Get("password"); p != "" {
			s = append(s, p)
		}
	}
	return s
}

// withOwnSecrets adds seam's own secrets (ownSecrets) to a run's, sorted without repeats as
// dag.Secrets returns them.
func withOwnSecrets(secrets []string, getenv func(string) string) []string {
	own := ownSecrets(getenv)
	if len(own) == 0 {
		return secrets
	}
	s := append(slices.Clip(secrets), own...)
	slices.Sort(s)
	return slices.Compact(s)
}
