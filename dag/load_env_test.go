package dag

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// envHead declares TOKEN and API_URL on lines 3-4; nodes start on line 5.
const envHead = "version: 1\nname: t\nenv: [TOKEN,\n  API_URL]\nnodes:\n"

func TestLoadEnv(t *testing.T) {
	d, ds := loadTest(t, envHead+"  a:\n    type: echo\n    with: {text: \"Bearer ${{ env.TOKEN }} at ${{ env['API_URL'] }}\"}\n"+
		"  b:\n    type: echo\n    when: \"${{ size(env.TOKEN) > 0 }}\"\n    with: {text: x}\n")
	if ds != nil {
		t.Fatal(ds)
	}
	want := []EnvVar{{Name: "TOKEN", Pos: Pos{"testdata/t.yaml", 3, 7}}, {Name: "API_URL", Pos: Pos{"testdata/t.yaml", 4, 3}}}
	if !reflect.DeepEqual(d.Env, want) {
		t.Errorf("Env = %+v\nwant  %+v", d.Env, want)
	}
	if len(d.ByID["a"].Deps) != 0 {
		t.Errorf("env made an edge: %v", d.ByID["a"].Deps)
	}
}

func TestLoadEnvErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "not declared",
		src:  head + "  a:\n    type: echo\n    with: {text: \"Bearer ${{ env.TOKEN }}\"}\n",
		want: []string{"6:30 SEAM-E117 env.TOKEN is not declared: the DAG does not list TOKEN under env\n" +
			"  fix: add TOKEN to the DAG's top-level env list: `env: [TOKEN]` (its value is then treated as a secret)"},
	}, {
		name: "a near name",
		src:  envHead + "  a:\n    type: echo\n    with: {text: \"${{ env.TOKNE }}\"}\n",
		want: []string{"8:23 SEAM-E117 env.TOKNE is not declared; did you mean env.TOKEN?\n" +
			"  fix: use env.TOKEN, or add TOKNE to the DAG's top-level env list: `env: [TOKEN, API_URL, TOKNE]` (its value is then treated as a secret)"},
	}, {
		name: "in CEL",
		src:  head + "  a:\n    type: echo\n    when: \"${{ env.DEBUG == 'yes' }}\"\n    with: {text: x}\n",
		want: []string{"6:16 SEAM-E117 env.DEBUG is not declared: the DAG does not list DEBUG under env\n" +
			"  fix: add DEBUG to the DAG's top-level env list: `env: [DEBUG]` (its value is then treated as a secret)"},
	}, {
		name: "quoted name",
		src:  head + "  a:\n    type: echo\n    input: \"${{ env['HOME'] }}\"\n",
		want: []string{"6:17 SEAM-E117 env.HOME is not declared: the DAG does not list HOME under env\n" +
			"  fix: add HOME to the DAG's top-level env list: `env: [HOME]` (its value is then treated as a secret)"},
	}, {
		name: "the whole environment",
		src:  envHead + "  a:\n    type: echo\n    input: \"${{ env }}\"\n",
		want: []string{"8:17 SEAM-E109 env is read one variable at a time, by a constant name: env.NAME\n" +
			"  fix: write env.NAME, with NAME listed under the DAG's env"},
	}, {
		name: "a computed name",
		src:  envHead + "  a:\n    type: echo\n    input: \"${{ env[nodes.b.output.summary] }}\"\n  b: {type: echo, with: {text: x}}\n",
		want: []string{"8:17 SEAM-E109 env is read one variable at a time, by a constant name: env.NAME\n" +
			"  fix: write env.NAME, with NAME listed under the DAG's env"},
	}, {
		name: "a field of a string",
		src:  envHead + "  a:\n    type: echo\n    input: \"${{ env.TOKEN.x }}\"\n",
		want: []string{"8:26 SEAM-E109 expression \"env.TOKEN.x\": type 'string' does not support field selection\n" +
			"  fix: expressions are CEL, e.g. ${{ nodes.a.output.status == 'pass' }}"},
	}, {
		name: "in outputs",
		src:  envHead + "  a: {type: echo, with: {text: x}}\noutputs:\n  leak: \"${{ env.TOKEN }}\"\n",
		want: []string{`8:14 SEAM-E113 output "leak": outputs may not read env, whose values are secrets` +
			"\n  fix: use env in a node's with or input, where it is masked in what the node returns"},
	}, {
		name: "not a list",
		src:  "version: 1\nname: t\nenv: TOKEN\nnodes:\n  a: {type: echo, with: {text: x}}\n",
		want: []string{"3:6 SEAM-E113 env must be a list of variable names and literal settings, or a mapping of literal settings, not a string\n" +
			"  fix: list the variables' names, or give literal values: `env: [API_TOKEN, {LOG_LEVEL: debug}]`"},
	}, {
		name: "bad names and a duplicate",
		src:  "version: 1\nname: t\nenv:\n  - TOKEN\n  - 9LIVES\n  - [A]\n  - TOKEN\n  - {B: [1]}\n  - {C: }\n  - {TOKEN: x}\nnodes:\n  a: {type: echo, with: {text: x}}\n",
		want: []string{
			"5:5 SEAM-E113 env: \"9LIVES\" is not an environment variable name\n  fix: a name has letters, digits and _, and does not start with a digit",
			"6:5 SEAM-E113 env: want a variable name, not a list\n  fix: list the variables' names, or give literal values: `env: [API_TOKEN, {LOG_LEVEL: debug}]`",
			"7:5 SEAM-E113 env: TOKEN is listed twice (first at line 4)\n  fix: list each variable once",
			"8:9 SEAM-E113 env: B: want a literal value, not a list\n  fix: write a string, a number or a boolean, or list B by name to read it from seam's environment",
			"9:9 SEAM-E113 env: C: want a literal value, not null\n  fix: write a string, a number or a boolean, or list C by name to read it from seam's environment",
			"10:6 SEAM-E113 env: TOKEN is listed twice (first at line 4)\n  fix: list each variable once",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, tt.src)
			var got []string
			for _, d := range ds {
				got = append(got, brief(d)+"\n  fix: "+d.Hint)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLoadEnvNull: `env:` with nothing after it declares nothing.
func TestLoadEnvNull(t *testing.T) {
	d, ds := loadTest(t, "version: 1\nname: t\nenv:\nnodes:\n  a: {type: echo, with: {text: x}}\n")
	if ds != nil || len(d.Env) != 0 {
		t.Fatalf("env = %v, %v", d, ds)
	}
}

func TestEnvEval(t *testing.T) {
	s := testScope()
	s.Env = map[string]string{"TOKEN": "t0k", "API_URL": "https://api.example.com"}
	tests := []struct {
		src  string
		want any
	}{
		{`"${{ env.TOKEN }}"`, "t0k"},
		{`"${{ env['API_URL'] }}"`, "https://api.example.com"},
		{`"Bearer ${{ env.TOKEN }}"`, "Bearer t0k"},
		{`"${{ env.API_URL + '/items' }}"`, "https://api.example.com/items"},
		{`"${{ size(env.TOKEN) }}"`, json.Number("3")},
		{`"${{ env.TOKEN == 't0k' && params.name == 'Ada' }}"`, true},
	}
	for _, tt := range tests {
		tmpl, ds := compileYAML(t, tt.src)
		if ds != nil {
			t.Fatalf("%s: %v", tt.src, ds)
		}
		got, err := tmpl.Eval(s)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.src, got, tt.want)
		}
	}
	// A variable the run did not read (the engine fills Env with LookupEnv).
	tmpl, _ := compileYAML(t, `"${{ env.OTHER }}"`)
	if _, err := tmpl.Eval(s); err == nil || err.Error() != "${{ env.OTHER }}: environment variable OTHER was not read for this run" {
		t.Errorf("err = %v", err)
	}
}

func TestEnvRefs(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`"${{ env.TOKEN }}"`, []string{"env TOKEN"}},
		{`"${{ env['A_B'] }}"`, []string{"env A_B"}},
		{`"${{ env.A + env.B }}"`, []string{"env A", "env B"}},
		{`"${{ env }}"`, []string{"env "}},
	}
	for _, tt := range tests {
		tmpl, ds := compileYAML(t, tt.src)
		if ds != nil {
			t.Fatalf("%s: %v", tt.src, ds)
		}
		var got []string
		for _, r := range tmpl.Refs() {
			got = append(got, r.Root+" "+strings.Join(r.Path, "."))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: refs %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestLookupEnv(t *testing.T) {
	d, ds := loadTest(t, envHead+"  a: {type: echo, with: {text: \"${{ env.TOKEN }}\"}}\n")
	if ds != nil {
		t.Fatal(ds)
	}
	vars := map[string]string{"TOKEN": "t0k", "API_URL": "https://x", "OTHER": "not declared"}
	env, err := LookupEnv(d, func(k string) string { return vars[k] }, i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"TOKEN": "t0k", "API_URL": "https://x"}; !reflect.DeepEqual(env, want) {
		t.Errorf("env = %v, want %v", env, want)
	}
	if got := Secrets(d, env); !reflect.DeepEqual(got, []string{"https://x", "t0k"}) {
		t.Errorf("Secrets = %v", got)
	}

	delete(vars, "API_URL")
	_, err = LookupEnv(d, func(k string) string { return vars[k] }, i18n.English)
	if want := "environment variable API_URL (listed at testdata/t.yaml:4:3) is not set; the DAG reads it through env"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	_, err = LookupEnv(d, func(string) string { return "" }, i18n.English)
	if want := "environment variables not set, which the DAG reads through env: TOKEN (listed at testdata/t.yaml:3:7), API_URL (listed at testdata/t.yaml:4:3)"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}

	none, _ := loadTest(t, head+"  a: {type: echo, with: {text: x}}\n")
	if env, err := LookupEnv(none, func(string) string { panic("read the environment without env") }, i18n.English); env != nil || err != nil {
		t.Errorf("no env: %v, %v", env, err)
	}
	if Secrets(none, nil) == nil || len(Secrets(d, map[string]string{"TOKEN": ""})) != 0 {
		t.Error("Secrets of nothing should be empty")
	}
}

// TestLiteralEnv: env's literal settings (a one-pair mapping in the list, or a mapping) are
// read as env.NAME like the names beside them, never from seam's environment, and are no
// secrets: not masked, not warned about when short.
func TestLiteralEnv(t *testing.T) {
	for _, head := range []string{
		"version: 1\nname: t\nenv: [TOKEN, {LOG_LEVEL: debug}, {RETRIES: 3}]\nnodes:\n",
		"version: 1\nname: t\nenv: {LOG_LEVEL: debug, RETRIES: 3}\nnodes:\n",
	} {
		d, ds := loadTest(t, head+"  a: {type: echo, with: {text: \"${{ env.LOG_LEVEL }} ${{ env.RETRIES }}\"}}\n")
		if ds != nil {
			t.Fatal(ds)
		}
		vars := map[string]string{"TOKEN": "t0ken", "LOG_LEVEL": "from the environment"}
		env, err := LookupEnv(d, func(k string) string { return vars[k] }, i18n.English)
		if err != nil {
			t.Fatal(err)
		}
		if env["LOG_LEVEL"] != "debug" || env["RETRIES"] != "3" {
			t.Errorf("%s: env = %v, want the literal values", head, env)
		}
		if got := Secrets(d, env); slices.Contains(got, "debug") || slices.Contains(got, "3") {
			t.Errorf("%s: Secrets = %q: a literal setting is no secret", head, got)
		}
		if got, want := d.SecretNames(), slices.DeleteFunc([]string{"TOKEN"}, func(string) bool { return !strings.Contains(head, "TOKEN") }); !slices.Equal(got, want) {
			t.Errorf("%s: SecretNames = %q, want %q", head, got, want)
		}
		if got := ShortSecrets(d, env, i18n.English); len(got) != 0 {
			t.Errorf("%s: ShortSecrets = %q", head, got)
		}
	}
}

// TestLookupEnvJapanese: the variables not set, and the values too short to mask, in Japanese.
func TestLookupEnvJapanese(t *testing.T) {
	d, ds := loadTest(t, envHead+"  a: {type: echo, with: {text: \"${{ env.TOKEN }}\"}}\n")
	if ds != nil {
		t.Fatal(ds)
	}
	tests := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"TOKEN": "t0k"}, "環境変数 API_URL（testdata/t.yaml:4:3 に記載）が設定されていません：DAG はこれを env で読み取ります"},
		{nil, "DAG が env で読み取る環境変数が設定されていません：TOKEN（testdata/t.yaml:3:7 に記載）、API_URL（testdata/t.yaml:4:3 に記載）"},
	}
	for _, tt := range tests {
		_, err := LookupEnv(d, func(k string) string { return tt.vars[k] }, i18n.Japanese)
		if err == nil || err.Error() != tt.want {
			t.Errorf("err = %v\nwant  %s", err, tt.want)
		}
	}
	env := map[string]string{"TOKEN": "t0k", "API_URL": "https://example.com"}
	want := []string{"env TOKEN（testdata/t.yaml:3:7 に記載）の値は 3 バイトで、秘密の値としてマスクされるのに必要な 4 バイトに足りません：値が出力、ログ、実行ストアにそのまま表示されます"}
	if got := ShortSecrets(d, env, i18n.Japanese); !reflect.DeepEqual(got, want) {
		t.Errorf("ShortSecretsIn = %q\nwant %q", got, want)
	}
}

// TestHTTPNodeWithEnv runs an http node the way the engine will: the DAG loaded with the
// built-in types, env read with LookupEnv, `with` resolved against a Scope holding it, and the
// secrets handed to the type, which must not echo them.
func TestHTTPNodeWithEnv(t *testing.T) {
	srv := newEchoServer(t)
	src := "version: 1\nname: t\nenv: [TOKEN]\nnodes:\n  call:\n    type: http\n    with:\n" +
		"      url: \"${{ params.base }}/echo\"\n" +
		"      headers: {Authorization: \"Bearer ${{ env.TOKEN }}\"}\n"
	d, err := LoadBytes(context.Background(), "t.yaml", []byte(src), LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	env, err := LookupEnv(d, func(k string) string { return map[string]string{"TOKEN": "s3cr3t-t0k"}[k] }, i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	n := d.ByID["call"]
	with, err := n.With.Eval(&Scope{Params: map[string]any{"base": srv}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	res, err := n.Type.Run(t.Context(), &nodes.Call{Node: n.ID, With: with.(map[string]any), Secrets: Secrets(d, env)})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output) + res.Log
	if strings.Contains(out, "s3cr3t-t0k") || !strings.Contains(out, `"authorization":"Bearer ***"`) {
		t.Errorf("output and log:\n%s", out)
	}
	if vs := n.Effective.Validate(mustJSON(t, res.Output), "en"); len(vs) > 0 {
		t.Errorf("output breaks the node's contract: %v", vs)
	}
}

// newEchoServer starts a server that answers with the request's headers as JSON, for the
// test's length; it returns its URL.
func newEchoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := make(map[string]string, len(r.Header))
		for k := range r.Header {
			h[strings.ToLower(k)] = r.Header.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"headers": h})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := contract.ParseJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}
