package engine

import (
	"slices"
	"testing"
)

func TestOwnSecrets(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"none", nil, nil},
		{"tokens and keys", map[string]string{
			"SEAM_SERVE_TOKEN": "serve-token", "SEAM_MCP_TOKEN": " mcp-token\n", "N8N_API_KEY": "n8n-key",
			"TEMPORAL_API_KEY": "temporal-key", "OTHER": "not seam's",
		}, []string{"mcp-token", "n8n-key", "serve-token", "temporal-key"}},
		{"store password in the user info", map[string]string{"SEAM_STORE": "postgres://seam:pw%2Fsecret@db/seam"}, []string{"pw/secret"}},
		{"store password as a parameter", map[string]string{"SEAM_STORE": "postgresql://db/seam?user=seam&password=in-query"}, []string{"in-query"}},
		{"store without a password", map[string]string{"SEAM_STORE": "postgres://seam@db/seam"}, nil},
		{"libpq's password variable", map[string]string{"PGPASSWORD": "pg-pass"}, []string{"pg-pass"}},
		{"store file", map[string]string{"SEAM_STORE": "/var/lib/seam/seam.db"}, nil},
		{"OTLP headers", map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS":        "api-key=k3y-value, Authorization=Basic%20dXNlcjpwdw==",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-token=tr4ces",
		}, []string{"Basic dXNlcjpwdw==", "Basic%20dXNlcjpwdw==", "dXNlcjpwdw==", "k3y-value", "tr4ces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ownSecrets(func(k string) string { return tt.env[k] })
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ownSecrets = %q, want %q", got, tt.want)
			}
		})
	}
}
