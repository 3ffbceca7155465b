package engine

import (
	"net/url"
	"slices"
	"strings"
)

// ownSecrets returns the credentials seam itself reads from its environment (getenv): the
// password of a PostgreSQL $SEAM_STORE (which reads the store in use: the CLI answers it with
// --store when that is given), $PGPASSWORD, $SEAM_SERVE_TOKEN, $SEAM_MCP_TOKEN, $N8N_API_KEY,
// $TEMPORAL_API_KEY and the header values of the OTLP exporters ($OTEL_EXPORTER_OTLP_HEADERS
// and its per-signal forms, where an Authorization or an API key travels). A node never gets them unless its DAG passes one (nodes keep only a base
// of seam's environment), but one that does, or a param that holds one, must not put it in
// the run store: every run masks them as it masks the DAG's env.
func ownSecrets(getenv func(string) string) []string {
	var s []string
	for _, name := range []string{"SEAM_SERVE_TOKEN", "SEAM_MCP_TOKEN", "N8N_API_KEY", "TEMPORAL_API_KEY", "PGPASSWORD"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			s = append(s, v)
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"} {
		// key1=value1,key2=value2, values URL-encoded (the OpenTelemetry specification).
		for _, kv := range strings.Split(getenv(name), ",") {
			_, v, ok := strings.Cut(kv, "=")
			if v = strings.TrimSpace(v); !ok || v == "" {
				continue
			}
			s = append(s, v)
			if d, err := url.QueryUnescape(v); err == nil && d != v {
				s = append(s, d)
				// "Basic xyz", "Bearer xyz": the credential alone, wherever it shows.
				if _, cred, ok := strings.Cut(d, " "); ok {
					s = append(s, strings.TrimSpace(cred))
				}
			}
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
