package telemetry

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seam-dag/seam/internal/i18n"
)

// Exporter names of OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER.
const (
	exporterOTLP    = "otlp"
	exporterConsole = "console"
	exporterNone    = "none"
)

// Protocols of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	protoHTTP     = "http/protobuf"
	protoHTTPJSON = "http/json"
	protoGRPC     = "grpc"
)

// signal is traces or metrics: the OTLP variables have a variant per signal.
type signal struct {
	name string // "traces", "metrics": the variable infix and the OTLP/HTTP path
}

var (
	traces  = signal{"traces"}
	metrics = signal{"metrics"}
)

// exporters parses OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: a comma-separated list of
// otlp, console and none; unset means none.
func exporters(getenv func(string) string, s signal, lang i18n.Lang) ([]string, error) {
	key := "OTEL_" + strings.ToUpper(s.name) + "_EXPORTER"
	raw := strings.TrimSpace(getenv(key))
	if raw == "" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range strings.Split(raw, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case exporterOTLP, exporterConsole:
			if !seen[name] {
				out = append(out, name)
				seen[name] = true
			}
		case exporterNone:
			seen[name] = true
		default:
			return nil, i18n.Errorf(lang, "%s: unknown exporter %q; want otlp, console or none", key, name)
		}
	}
	if seen[exporterNone] && len(out) > 0 {
		return nil, i18n.Errorf(lang, "%s: none cannot be combined with other exporters", key)
	}
	return out, nil
}

// otlpConfig is where and how one signal is sent over OTLP.
type otlpConfig struct {
	protocol    string
	endpoint    string // a full URL: for http/protobuf it includes the signal's path
	headers     map[string]string
	timeout     time.Duration // 0: the exporter's default
	compression bool          // gzip
}

// otlpFromEnv reads the OTLP variables for signal s, the signal's own variant taking
// precedence over the general one as the specification says.
func otlpFromEnv(getenv func(string) string, s signal, lang i18n.Lang) (otlpConfig, error) {
	sig := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(s.name) + "_"
	// lookup returns the signal's variable if set, else the general one, and the name of the
	// one it read for messages.
	lookup := func(suffix string) (string, string) {
		if v := strings.TrimSpace(getenv(sig + suffix)); v != "" {
			return v, sig + suffix
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + suffix)), "OTEL_EXPORTER_OTLP_" + suffix
	}
	var c otlpConfig

	proto, key := lookup("PROTOCOL")
	switch proto {
	case "", protoHTTP:
		c.protocol = protoHTTP
	case protoGRPC:
		c.protocol = protoGRPC
	case protoHTTPJSON:
		if s != traces {
			return c, i18n.Errorf(lang, "%s: http/json is not supported for %s; use http/protobuf or grpc", key, s.name)
		}
		c.protocol = protoHTTPJSON
	default:
		return c, i18n.Errorf(lang, "%s: unknown protocol %q; want http/protobuf or grpc", key, proto)
	}

	// The signal's own endpoint is used as is; the general one is a base to which OTLP/HTTP
	// adds the signal's path.
	if v := strings.TrimSpace(getenv(sig + "ENDPOINT")); v != "" {
		u, err := endpointURL(sig+"ENDPOINT", v, lang)
		if err != nil {
			return c, err
		}
		c.endpoint = u.String()
	} else {
		base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
		if base == "" {
			base = "http://localhost:4318"
			if c.protocol == protoGRPC {
				base = "http://localhost:4317"
			}
		}
		u, err := endpointURL("OTEL_EXPORTER_OTLP_ENDPOINT", base, lang)
		if err != nil {
			return c, err
		}
		if c.protocol != protoGRPC {
			u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + s.name
		}
		c.endpoint = u.String()
	}

	headers, err := parseHeaders("OTEL_EXPORTER_OTLP_HEADERS", getenv("OTEL_EXPORTER_OTLP_HEADERS"), lang)
	if err != nil {
		return c, err
	}
	own, err := parseHeaders(sig+"HEADERS", getenv(sig+"HEADERS"), lang)
	if err != nil {
		return c, err
	}
	for k, v := range own {
		headers[k] = v
	}
	c.headers = headers

	if v, key := lookup("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return c, i18n.Errorf(lang, "%s: want a number of milliseconds, not %q", key, v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, key := lookup("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.compression = true
	default:
		return c, i18n.Errorf(lang, "%s: want gzip or none, not %q", key, v)
	}
	return c, nil
}

// endpointURL parses an OTLP endpoint. Messages show it without its password: an endpoint
// may carry credentials.
func endpointURL(key, v string, lang i18n.Lang) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil {
		return nil, i18n.Errorf(lang, "%s: not a URL (want e.g. http://localhost:4318)", key)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, i18n.Errorf(lang, "%s: %q is not an http:// or https:// URL with a host (e.g. http://localhost:4318)", key, u.Redacted())
	}
	return u, nil
}

// parseHeaders parses a list of key=value pairs separated by commas, values percent-encoded
// (the W3C baggage format that the specification prescribes). Header values are secrets
// (API keys, tokens): no message quotes one.
func parseHeaders(key, raw string, lang i18n.Lang) (map[string]string, error) {
	h := map[string]string{}
	if strings.TrimSpace(raw) == "" {
		return h, nil
	}
	for i, entry := range strings.Split(raw, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, i18n.Errorf(lang, "%s: entry %d is not key=value (values are not shown: they may be secrets)", key, i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, i18n.Errorf(lang, "%s: the value of %q is not correctly percent-encoded (values are not shown: they may be secrets)", key, k)
		}
		h[k] = dv
	}
	return h, nil
}

// resourceAttrs reads OTEL_RESOURCE_ATTRIBUTES (key=value pairs, percent-encoded values) and
// OTEL_SERVICE_NAME, which wins over a service.name among the attributes.
func resourceAttrs(getenv func(string) string, lang i18n.Lang) ([]attribute.KeyValue, error) {
	const key = "OTEL_RESOURCE_ATTRIBUTES"
	kv := map[string]string{}
	var order []string
	if raw := strings.TrimSpace(getenv(key)); raw != "" {
		for i, entry := range strings.Split(raw, ",") {
			if strings.TrimSpace(entry) == "" {
				continue
			}
			k, v, ok := strings.Cut(entry, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, i18n.Errorf(lang, "%s: entry %d (%q) is not key=value", key, i+1, strings.TrimSpace(entry))
			}
			dv, err := url.PathUnescape(strings.TrimSpace(v))
			if err != nil {
				return nil, i18n.Errorf(lang, "%s: the value of %q is not correctly percent-encoded", key, k)
			}
			if _, dup := kv[k]; !dup {
				order = append(order, k)
			}
			kv[k] = dv
		}
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		if _, dup := kv["service.name"]; !dup {
			order = append(order, "service.name")
		}
		kv["service.name"] = name
	}
	if _, ok := kv["service.name"]; !ok {
		order = append(order, "service.name")
		kv["service.name"] = "seam"
	}
	attrs := make([]attribute.KeyValue, 0, len(order))
	for _, k := range order {
		attrs = append(attrs, attribute.String(k, kv[k]))
	}
	return attrs, nil
}

// sampler reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG. The default, as in the
// specification, follows the parent's decision and samples every root.
func sampler(getenv func(string) string, lang i18n.Lang) (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	ratio := func() (float64, error) {
		arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, i18n.Errorf(lang, "OTEL_TRACES_SAMPLER_ARG: want a ratio from 0 to 1, not %q", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		if name == "traceidratio" {
			return sdktrace.TraceIDRatioBased(r), nil
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	}
	return nil, i18n.Errorf(lang, "OTEL_TRACES_SAMPLER: unknown sampler %q; want always_on, always_off, traceidratio or their parentbased_ forms", name)
}
