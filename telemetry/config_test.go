package telemetry

import (
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// envOf is a getenv over a map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestExporters(t *testing.T) {
	tests := []struct {
		val     string
		want    string // joined with ","
		wantErr string
	}{
		{"", "", ""},
		{"none", "", ""},
		{"otlp", "otlp", ""},
		{" OTLP , console ", "otlp,console", ""},
		{"otlp,otlp", "otlp", ""},
		{"jaeger", "", `OTEL_TRACES_EXPORTER: unknown exporter "jaeger"; want otlp, console or none`},
		{"otlp,none", "", "OTEL_TRACES_EXPORTER: none cannot be combined with other exporters"},
	}
	for _, tt := range tests {
		t.Run(tt.val, func(t *testing.T) {
			got, err := exporters(envOf(map[string]string{"OTEL_TRACES_EXPORTER": tt.val}), traces, "")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != tt.want {
				t.Fatalf("exporters = %v, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := exporters(envOf(map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}), metrics, ""); err == nil ||
		!strings.HasPrefix(err.Error(), `OTEL_METRICS_EXPORTER: unknown exporter "prometheus"`) {
		t.Errorf("metrics: %v", err)
	}
}

func TestOTLPFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		sig     signal
		want    otlpConfig
		wantErr string
	}{
		{"defaults", nil, traces,
			otlpConfig{protocol: protoHTTP, endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{}}, ""},
		{"grpc default", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, metrics,
			otlpConfig{protocol: protoGRPC, endpoint: "http://localhost:4317", headers: map[string]string{}}, ""},
		{"base endpoint gets the signal's path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com:4318/prefix/"}, metrics,
			otlpConfig{protocol: protoHTTP, endpoint: "https://otel.example.com:4318/prefix/v1/metrics", headers: map[string]string{}}, ""},
		{"signal endpoint is used as is", map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://ignored:4318",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:9999/custom",
		}, traces, otlpConfig{protocol: protoHTTP, endpoint: "http://collector:9999/custom", headers: map[string]string{}}, ""},
		{"signal protocol wins", map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL":        "grpc",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
		}, traces, otlpConfig{protocol: protoHTTP, endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{}}, ""},
		{"headers merged, decoded", map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS":        "api-key=a%20b, x-team = core",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=c",
		}, traces, otlpConfig{protocol: protoHTTP, endpoint: "http://localhost:4318/v1/traces",
			headers: map[string]string{"api-key": "c", "x-team": "core"}}, ""},
		{"timeout and gzip", map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip"}, traces,
			otlpConfig{protocol: protoHTTP, endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{},
				timeout: 2500 * time.Millisecond, compression: true}, ""},
		{"json for traces", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, traces,
			otlpConfig{protocol: protoHTTPJSON, endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{}}, ""},

		{"json for metrics", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, metrics, otlpConfig{},
			"OTEL_EXPORTER_OTLP_PROTOCOL: http/json is not supported for metrics; use http/protobuf or grpc"},
		{"unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"}, traces, otlpConfig{},
			`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: unknown protocol "thrift"; want http/protobuf or grpc`},
		{"endpoint without scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, traces, otlpConfig{},
			`OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" is not an http:// or https:// URL with a host (e.g. http://localhost:4318)`},
		{"endpoint password hidden", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://user:hunter2@host/"}, traces, otlpConfig{},
			`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://user:xxxxx@host/" is not an http:// or https:// URL with a host (e.g. http://localhost:4318)`},
		{"unparsable endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://[::1"}, traces, otlpConfig{},
			"OTEL_EXPORTER_OTLP_ENDPOINT: not a URL (want e.g. http://localhost:4318)"},
		{"header without =", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,hunter2"}, traces, otlpConfig{},
			"OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value (values are not shown: they may be secrets)"},
		{"header badly encoded", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "authorization=Bearer%zzhunter2"}, traces, otlpConfig{},
			`OTEL_EXPORTER_OTLP_TRACES_HEADERS: the value of "authorization" is not correctly percent-encoded (values are not shown: they may be secrets)`},
		{"bad timeout", map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "5s"}, traces, otlpConfig{},
			`OTEL_EXPORTER_OTLP_TIMEOUT: want a number of milliseconds, not "5s"`},
		{"bad compression", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "zstd"}, metrics, otlpConfig{},
			`OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: want gzip or none, not "zstd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := otlpFromEnv(envOf(tt.env), tt.sig, "")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("the message shows a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.protocol != tt.want.protocol || got.endpoint != tt.want.endpoint || !maps.Equal(got.headers, tt.want.headers) ||
				got.timeout != tt.want.timeout || got.compression != tt.want.compression {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestResourceAttrs(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string // k=v joined with ";"
		wantErr string
	}{
		{"default service name", nil, "service.name=seam", ""},
		{"attributes", map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod,team=a%2Cb"},
			"deployment.environment=prod;team=a,b;service.name=seam", ""},
		{"service name variable wins", map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=x", "OTEL_SERVICE_NAME": "nightly"},
			"service.name=nightly", ""},
		{"service name from attributes", map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=x"}, "service.name=x", ""},
		{"malformed", map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "a=1,oops"}, "",
			`OTEL_RESOURCE_ATTRIBUTES: entry 2 ("oops") is not key=value`},
		{"bad encoding", map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "a=%zz"}, "",
			`OTEL_RESOURCE_ATTRIBUTES: the value of "a" is not correctly percent-encoded`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs, err := resourceAttrs(envOf(tt.env), "")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, kv := range attrs {
				parts = append(parts, string(kv.Key)+"="+kv.Value.AsString())
			}
			if got := strings.Join(parts, ";"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSampler(t *testing.T) {
	tests := []struct {
		name, arg string
		want      string // the sampler's description, prefix
		wantErr   string
	}{
		{"", "", "ParentBased{root:AlwaysOnSampler", ""},
		{"always_on", "", "AlwaysOnSampler", ""},
		{"always_off", "", "AlwaysOffSampler", ""},
		{"parentbased_always_off", "", "ParentBased{root:AlwaysOffSampler", ""},
		{"traceidratio", "0.25", "TraceIDRatioBased{0.25}", ""},
		{"parentbased_traceidratio", "", "ParentBased{root:TraceIDRatioBased{1}", ""},
		{"traceidratio", "2", "", `OTEL_TRACES_SAMPLER_ARG: want a ratio from 0 to 1, not "2"`},
		{"sometimes", "", "", `OTEL_TRACES_SAMPLER: unknown sampler "sometimes"; want always_on, always_off, traceidratio or their parentbased_ forms`},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.arg, func(t *testing.T) {
			s, err := sampler(envOf(map[string]string{"OTEL_TRACES_SAMPLER": tt.name, "OTEL_TRACES_SAMPLER_ARG": tt.arg}), "")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.HasPrefix(s.Description(), tt.want) {
				t.Fatalf("sampler = %v, %v; want %s", s.Description(), err, tt.want)
			}
		})
	}
}

// TestSetupJapanese: Setup's configuration errors, one of each kind, are said in Options.Lang.
func TestSetupJapanese(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"exporter", map[string]string{"OTEL_TRACES_EXPORTER": "jaeger"},
			`OTEL_TRACES_EXPORTER：不明なエクスポーター "jaeger" です：otlp、console、none のいずれかを指定してください`},
		{"none and more", map[string]string{"OTEL_METRICS_EXPORTER": "none,otlp"},
			"OTEL_METRICS_EXPORTER：none はほかのエクスポーターと組み合わせられません"},
		{"resource", map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_RESOURCE_ATTRIBUTES": "team"},
			`OTEL_RESOURCE_ATTRIBUTES：1 番目の項目（"team"）が key=value の形ではありません`},
		{"sampler", map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_TRACES_SAMPLER": "sometimes"},
			`OTEL_TRACES_SAMPLER：不明なサンプラー "sometimes" です：always_on、always_off、traceidratio か、それらの parentbased_ 形式を指定してください`},
		{"ratio", map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
			`OTEL_TRACES_SAMPLER_ARG：0 から 1 までの比率を指定してください（"2" ではなく）`},
		{"protocol", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "udp"},
			`OTEL_EXPORTER_OTLP_PROTOCOL：不明なプロトコル "udp" です：http/protobuf か grpc を指定してください`},
		{"http/json for metrics", map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			"OTEL_EXPORTER_OTLP_PROTOCOL：metrics には http/json を使えません：http/protobuf か grpc を使ってください"},
		{"endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
			`OTEL_EXPORTER_OTLP_ENDPOINT："localhost:4318" はホストを含む http:// または https:// の URL ではありません（例：http://localhost:4318）`},
		{"headers", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": "api-key"},
			"OTEL_EXPORTER_OTLP_HEADERS：1 番目の項目が key=value の形ではありません（値は秘密かもしれないので表示しません）"},
		{"timeout", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"},
			`OTEL_EXPORTER_OTLP_TIMEOUT：ミリ秒数を指定してください（"soon" ではなく）`},
		{"compression", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			`OTEL_EXPORTER_OTLP_COMPRESSION：gzip か none を指定してください（"zstd" ではなく）`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Setup(t.Context(), Options{Getenv: envOf(tt.env), Console: io.Discard, Lang: i18n.Japanese})
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}
