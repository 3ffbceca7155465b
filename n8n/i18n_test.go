package n8n

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// TestErrorsJapanese: the client's and the node types' own errors read in Japanese where the
// caller's language is, word for word, and still never show the key or a password; the
// plain-http refusal names the fix the URL's source offers.
func TestErrorsJapanese(t *testing.T) {
	const ja = i18n.Japanese
	refused := "n8n: ループバックではない n8n.example.com への平文の http:// は拒否します。API キーとデータが暗号化されずに流れます。"
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"no URL", func() error { _, err := New(Config{APIKey: testKey, Lang: ja}); return err },
			"n8n: URL がありません（N8N_URL か、ノードまたは DAG の n8n ブロックの url を設定してください）"},
		{"no key", func() error { _, err := New(Config{URL: "http://127.0.0.1:5678", Lang: ja}); return err },
			"n8n: API キーがありません（N8N_API_KEY か、キーを保持する変数名を api_key_env に設定してください）"},
		{"bad scheme", func() error {
			_, err := New(Config{URL: "ftp://u:s3cret@n8n.example.com", APIKey: testKey, Lang: ja})
			return err
		}, `n8n: URL "ftp://u:xxxxx@n8n.example.com" が不正です。http(s)://ホスト[:ポート] の形で指定してください`},
		{"unparsable with a password", func() error {
			_, err := New(Config{URL: "https://u:s3cret@n8n.example.com:port", APIKey: testKey, Lang: ja})
			return err
		}, `n8n: URL https://xxxxx@n8n.example.com:port が不正です: invalid port ":port" after host`},
		{"credentials", func() error {
			_, err := New(Config{URL: "https://u:s3cret@n8n.example.com", APIKey: testKey, Lang: ja})
			return err
		}, "n8n: URL https://u:xxxxx@n8n.example.com が不正です。URL に認証情報は書けません。API キーを使ってください"},
		{"plain http from a DAG", func() error {
			_, err := New(Config{URL: "http://n8n.example.com", APIKey: testKey, Lang: ja})
			return err
		}, refused + "https:// を使うか、insecure: true を設定してください"},
		{"plain http from a flag", func() error {
			_, err := New(Config{URL: "http://n8n.example.com", APIKey: testKey, Lang: ja, URLFrom: FromFlag})
			return err
		}, refused + "https:// を使うか、--insecure を指定してください"},
		{"plain http from $N8N_URL", func() error {
			_, err := New(Config{URL: "http://n8n.example.com", APIKey: testKey, Lang: ja, URLFrom: FromEnv})
			return err
		}, refused + "N8N_URL に https:// の URL を設定してください"},
		{"an id naming another path", func() error {
			_, err := fastClient(t, "http://127.0.0.1:1").In(ja).GetWorkflow(context.Background(), "a/b")
			return err
		}, `ワークフローの取得: id "a/b" は n8n の id ではありません`},
		{"an empty execution id", func() error {
			_, err := fastClient(t, "http://127.0.0.1:1").In(ja).RetryExecution(context.Background(), " ", false)
			return err
		}, "実行の再試行: id が空です"},
		{"no data", func() error { _, err := (&Execution{ID: "7"}).Outcome(ja); return err },
			"実行 7 にデータがありません（includeData 付きで取得してください）"},
		{"node: no URL", func() error {
			return runJA(t, "n8n.workflows.get", map[string]any{"id": "1"}, map[string]string{EnvAPIKey: testKey})
		},
			"n8n の URL がありません。ノードの with か DAG の n8n ブロックに url を書くか、N8N_URL を設定してください"},
		{"node: no key", func() error {
			return runJA(t, "n8n.webhook", map[string]any{"path": "p", "wait": true}, map[string]string{EnvURL: "http://127.0.0.1:1"})
		}, "n8n の API キーがありません。環境変数 N8N_API_KEY が空か未設定です"},
		{"node: plain http", func() error {
			return runJA(t, "n8n.executions.list", map[string]any{"url": "http://n8n.example.com"}, map[string]string{EnvAPIKey: testKey})
		}, refused + "https:// を使うか、insecure: true を設定してください"},
		{"node: an id that is not whole", func() error {
			err := runJA(t, "n8n.executions.get", map[string]any{"id": 1.5}, map[string]string{EnvURL: "http://127.0.0.1:1", EnvAPIKey: testKey})
			var ce *nodes.ConfigError
			if errors.As(err, &ce) {
				return errors.New(ce.Text(ja))
			}
			return err
		}, "with/id: id は整数である必要がありますが、1.5 です"},
		{"gate without findings", func() error { return &GateError{Lang: ja} },
			"このワークフローは n8n に拒否されるか、実行時に壊れます。それでも書き込むには force: true を設定してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant        %s", err, tt.want)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("error shows the key or the password: %v", err)
			}
		})
	}
}

// runJA runs a node of typ in a Japanese run and returns its error.
func runJA(t *testing.T, typ string, with map[string]any, env map[string]string) error {
	t.Helper()
	_, err := testTypes(env)[typ].Run(context.Background(), &nodes.Call{Node: "n", With: with, Lang: i18n.Japanese})
	return err
}

// TestIn: In shares the client and changes only the language; English is the default.
func TestIn(t *testing.T) {
	c := fastClient(t, "http://127.0.0.1:1")
	if c.Lang() != i18n.English || c.In("") != c || c.In(i18n.English) != c {
		t.Fatalf("a new client speaks %q; In(\"\") or In(en) made another", c.Lang())
	}
	j := c.In(i18n.Japanese)
	if j.Lang() != i18n.Japanese || c.Lang() != i18n.English || j.http != c.http || j.BaseURL() != c.BaseURL() {
		t.Fatal("In changed more than the language, or changed c")
	}
}
