package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

func TestMessageText(t *testing.T) {
	tests := []struct {
		name   string
		msg    message
		en, ja string
	}{
		{"counts", msgf("%s: %v, %v", "a.yaml", howMany(1, "error"), howMany(2, "warning")),
			"a.yaml: 1 error, 2 warnings", "a.yaml：エラー 1 件、警告 2 件"},
		{"nested and lists", msgf("%v: %v", howMany(3, "execution"), []message{msgf("%d %s", 1, "error"), msgf("%d %s", 2, "success")}),
			"3 executions: 1 error, 2 success", "実行 3 件：1 件が error、2 件が success"},
		{"a message quoted", msgf("workflow %q is valid (%s): %v, %v", msgf("(unnamed)"), "runtime", howMany(0, "error"), howMany(0, "warning")),
			`workflow "(unnamed)" is valid (runtime): 0 errors, 0 warnings`, `ワークフロー "（名前なし）" は有効です（runtime）：エラー 0 件、警告 0 件`},
		{"verbatim", verbatim("n8n: HTTP 404 (50%)"), "n8n: HTTP 404 (50%)", "n8n: HTTP 404 (50%)"},
		{"params heading, said once", msgf("%s: the params break the DAG's params schema:%s", verbatim("g.yaml"),
			paramsBroken([]contract.Violation{{Pointer: "/who", Message: "field 'who' must be a string, got number"}})),
			"g.yaml: the params break the DAG's params schema:\n  /who: field 'who' must be a string, got number",
			"g.yaml：params が DAG の params スキーマに違反しています：\n  /who: field 'who' must be a string, got number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.msg.text("en"); got != tc.en {
				t.Errorf("en %q, want %q", got, tc.en)
			}
			if got := tc.msg.text(""); got != tc.en {
				t.Errorf("no language: %q, want the English %q", got, tc.en)
			}
			if got := tc.msg.text("ja"); got != tc.ja {
				t.Errorf("ja %q, want %q", got, tc.ja)
			}
		})
	}
}

// serveLang starts a server with a run store on root and n8n tools (of an n8n that is not
// there) answering in lang, and returns a client session.
func serveLang(t *testing.T, root, lang string) *sdk.ClientSession {
	t.Helper()
	st := tempStore(t)
	_, cs := serve(t, Options{Root: root, Store: st, N8N: offlineClient(t), Lang: i18n.Lang(lang)}, nil)
	return cs
}

// TestMessagesFollowLang calls tools of servers in English and in Japanese: the envelope's
// message, on success and on failure, is in the server's language.
func TestMessagesFollowLang(t *testing.T) {
	root := testRoot(t)
	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		code   string
		en, ja []string // parts of the message
	}{
		{"lint ok", "lint_dag", map[string]any{"path": "greet.yaml"}, "",
			[]string{"greet.yaml: 0 errors, 0 warnings; it can run"}, []string{"greet.yaml：エラー 0 件、警告 0 件。実行できます"}},
		{"lint does not load", "lint_dag", map[string]any{"path": "broken.yaml"}, CodeInvalidDAG,
			[]string{"broken.yaml does not load: 1 error"}, []string{"broken.yaml を読み込めません：エラー 1 件"}},
		{"inline DAG", "lint_dag", map[string]any{"yaml": "version: 1\nname: x\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: a}}\n"}, "",
			[]string{"the inline DAG: 0 errors"}, []string{"インライン DAG：エラー 0 件"}},
		{"path outside the root", "lint_dag", map[string]any{"path": "../outside/secret.yaml"}, CodeOutsideRoot,
			[]string{`path "../outside/secret.yaml" is outside the root: name a file under it`},
			[]string{`path "../outside/secret.yaml" はルートの外にあります：ルート下のファイルを指定してください`}},
		{"run and wait", "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "ada"}, "wait": true}, "",
			[]string{"run ", " of greet: success"}, []string{"実行 ", "（greet）：success"}},
		{"bad params", "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": 3}}, CodeInvalidParams,
			[]string{"greet.yaml: the params break the DAG's params schema:\n  /who: "},
			[]string{"greet.yaml：params が DAG の params スキーマに違反しています：\n  /who: フィールド 'who' は文字列が必要です"}},
		{"get_run unknown", "get_run", map[string]any{"id": "nope"}, CodeRunNotFound,
			[]string{`no run "nope" in the run store (list_runs shows the runs)`}, []string{`run store に実行 "nope" はありません（list_runs で実行を一覧できます）`}},
		{"validate invalid", "validate_output", map[string]any{"value": 1, "schema": map[string]any{"type": "string"}}, "",
			[]string{"invalid: 1 violation"}, []string{"無効です：違反 1 件"}},
		{"n8n workflow invalid", "validate_workflow", map[string]any{"workflow": badWorkflow("bad"), "profile": "minimal"}, "",
			[]string{`workflow "bad" is invalid (minimal): 1 error, 0 warnings; first: node "Mystery": `},
			[]string{`ワークフロー "bad" は無効です（minimal）：エラー 1 件、警告 0 件。最初のエラー：ノード "Mystery"：`}},
		{"n8n workflow refused", "create_workflow", map[string]any{"workflow": badWorkflow("bad")}, CodeInvalidWorkflow,
			[]string{`workflow "bad" was not written: the runtime validation found 1 error`, "; force: true writes it anyway"},
			[]string{`ワークフロー "bad" は書き込まれませんでした：runtime の検証でエラー 1 件が見つかりました`, "。force: true で書き込みを強行できます"}},
		{"n8n unreachable", "list_workflows", map[string]any{}, CodeN8NUnreachable,
			[]string{"n8n is unreachable: list workflows: "}, []string{"n8n に接続できません：ワークフロー一覧の取得: "}},
		{"misspelt argument", "list_runs", map[string]any{"stauts": "failed"}, CodeInvalidArgument,
			[]string{`arguments: "stauts" is not an argument; did you mean "status"?`}, []string{`引数："stauts" という引数はありません。"status" のことですか？`}},
		{"status outside its set", "list_runs", map[string]any{"status": "failing"}, CodeInvalidArgument,
			[]string{`arguments: status "failing": want one of running, waiting, success, warn, failed, canceled`},
			[]string{`引数：status "failing"：running, waiting, success, warn, failed, canceled のいずれかを指定してください`}},
		{"compatibility", "check_compatibility", map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}, "",
			[]string{"compatible"}, []string{"互換性があります"}},
		{"incompatibility", "check_compatibility", map[string]any{"a": map[string]any{"type": "object"}, "b": map[string]any{"type": "object", "required": []any{"k"}}}, "",
			[]string{"incompatible: b requires 'k' but a does not guarantee it"}, []string{"互換性がありません：b は 'k' を必須としていますが、a はそれを保証しません"}},
	}
	for _, lang := range []string{"en", "ja"} {
		cs := serveLang(t, root, lang)
		for _, tc := range tests {
			t.Run(lang+"/"+tc.name, func(t *testing.T) {
				r := call(t, cs, tc.tool, tc.args)
				if errCode(r) != tc.code {
					t.Fatalf("code %q, want %q: %v", errCode(r), tc.code, r.env)
				}
				want := tc.en
				if lang == "ja" {
					want = tc.ja
				}
				msg := r.env["message"].(string)
				for _, w := range want {
					if !strings.Contains(msg, w) {
						t.Errorf("message %q, want it to contain %q", msg, w)
					}
				}
			})
		}
	}
}
