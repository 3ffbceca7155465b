package mcp

import (
	"fmt"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// message is a message to the client, in the envelope or a progress notification: an English
// format and its arguments. It is formatted where the language is known (respond, progress),
// with the format's Japanese from the catalog below when the server's language is ja; the
// handlers only say what to write.
type message struct {
	format string
	args   []any
}

// msgf is a message. format must be a literal with an entry in japanese, with the same verbs
// in the same order (messages_test.go checks both).
func msgf(format string, args ...any) message { return message{format: format, args: args} }

// verbatim is text seam does not write (the n8n client's errors, the workflow validator's
// findings, an unexpected error): it is shown as it is in either language, so its format has
// no catalog entry.
func verbatim(text string) message { return message{format: "%s", args: []any{text}} }

// String is the English text, for errors and for data outside the envelope.
func (m message) String() string { return m.text("en") }

// text formats m in lang: Japanese for "ja", English otherwise. Arguments that are messages,
// counts or lists of messages are written in the same language.
func (m message) text(lang i18n.Lang) string {
	ja := lang == "ja"
	format := m.format
	if ja {
		if t, ok := japanese[format]; ok { // verbatim's format has no entry
			format = t
		}
	}
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case message:
			args[i] = a.text(lang)
		case counted:
			args[i] = a.text(ja)
		case []message:
			parts := make([]string, len(a))
			for j, p := range a {
				parts[j] = p.text(lang)
			}
			sep := ", "
			if ja {
				sep = "、"
			}
			args[i] = strings.Join(parts, sep)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(format, args...)
}

// counted is a number of things, formatted with %v: "3 errors" in English, "エラー 3 件" in
// Japanese. The plural is English only, so it stays out of the formats.
type counted struct {
	n    int
	noun string // English, singular ("more violation" reads "2 more violations"); a literal with an entry in japaneseCounts
}

func howMany(n int, noun string) counted { return counted{n: n, noun: noun} }

// String is the English text.
func (c counted) String() string { return c.text(false) }

func (c counted) text(ja bool) string {
	if ja {
		return fmt.Sprintf(japaneseCounts[c.noun], c.n)
	}
	if c.n == 1 {
		return fmt.Sprintf("%d %s", c.n, c.noun)
	}
	return fmt.Sprintf("%d %ss", c.n, c.noun)
}

// japaneseCounts are the Japanese of the nouns howMany counts, with the counter word.
var japaneseCounts = map[string]string{
	"DAG file":         "DAG ファイル %d 件",
	"error":            "エラー %d 件",
	"execution":        "実行 %d 件",
	"item":             "アイテム %d 件",
	"more violation":   "違反 %d 件",
	"node":             "ノード %d 個",
	"run":              "実行 %d 件",
	"validation error": "検証エラー %d 件",
	"violation":        "違反 %d 件",
	"warning":          "警告 %d 件",
	"workflow":         "ワークフロー %d 件",
}

// japanese translates the formats of the messages. Codes, ids, paths, argument and field
// names, statuses and other packages' text stay as they are.
var japanese = map[string]string{
	// Generic shapes: a count alone, or a message followed by a reason.
	"%v":     "%v",
	"%v: %s": "%v：%s",

	// Paths under the root (root.go).
	"path is empty: name a DAG file under the root (list_dags shows them)": "path が空です：ルート下の DAG ファイルを指定してください（list_dags で一覧できます）",
	"path %q is outside the root %s: name a file under it":                 "path %q はルート %s の外にあります：ルート下のファイルを指定してください",
	"no file %q under the root %s (list_dags shows the DAG files)":         "ファイル %q はルート %s の下にありません（list_dags で DAG ファイルを一覧できます）",
	"path %q: %v": "path %q：%v",
	"path %q is a symbolic link to %s, outside the root %s": "path %q は %s へのシンボリックリンクで、ルート %s の外にあります",

	// DAG files (tools_dag.go).
	"give either path or yaml, not both": "path と yaml のどちらか一方だけを指定してください",
	"give path (a DAG file under the root; list_dags lists them) or yaml (a DAG written inline)": "path（ルート下の DAG ファイル。list_dags で一覧できます）か yaml（インラインで書いた DAG）を指定してください",
	"the inline DAG":       "インライン DAG",
	"%s does not load: %v": "%s を読み込めません：%v",
	"%s: node %s runs the DAG file %s, which is not under the root %s": "%s：ノード %s が実行する DAG ファイル %s はルート %s の下にありません",
	"%s: %v, %v; it can run":      "%s：%v、%v。実行できます",
	"%s: %v, %v":                  "%s：%v、%v",
	"list DAG files under %s: %v": "%s の下の DAG ファイルを一覧できません：%v",
	"list DAG files: %v":          "DAG ファイルを一覧できません：%v",
	"%v under the root":           "ルートの下に %v",
	"%v under the root; %d do not load (lint_dag says why)": "ルートの下に %v。うち %d 件は読み込めません（理由は lint_dag で確認できます）",

	// Contracts (tools_contract.go).
	"%s is missing: give a JSON Schema":                         "%s がありません：JSON Schema を指定してください",
	"schema compiler: %v":                                       "スキーマコンパイラ：%v",
	"%s is not a valid JSON Schema: %v":                         "%s は有効な JSON Schema ではありません：%v",
	"give schema or node, not both":                             "schema と node のどちらか一方だけを指定してください",
	"give value or json, not both":                              "value と json のどちらか一方だけを指定してください",
	"value is missing: give the JSON value (or json, its text)": "value がありません：JSON の値（またはそのテキストを json）を指定してください",
	"valid":        "有効です",
	"invalid: %v":  "無効です：%v",
	"compatible":   "互換性があります",
	"incompatible": "互換性がありません",
	"unknown":      "互換性を判定できません",
	"node %q: want path#id, e.g. dags/hello.yaml#greet": "node %q：path#id の形で指定してください（例：dags/hello.yaml#greet）",
	"%s has no node %q; its nodes: %s":                  "%s にノード %q はありません。ノード：%s",

	// explain_node (tools_explain.go).
	"node is empty: give the id of a node of the run (get_run shows the nodes that did not pass)": "node が空です：実行のノードの id を指定してください（合格しなかったノードは get_run で確認できます）",
	"run %s has no node %q; its nodes: %s":                                                        "実行 %s にノード %q はありません。ノード：%s",
	"node %s %s in run %s":                                                                        "ノード %s：%s（実行 %s）",
	"node %s %s in run %s after %d attempts":                                                      "ノード %s：%s（実行 %s、%d 回試行）",
	"%v; nothing to explain":                                                                      "%v。説明することはありません",
	"%v; explain_node %s says why":                                                                "%v。理由は explain_node %s で確認できます",
	"%v: %s: %s":                                                                                  "%v：%s：%s",
	"%v: %s: %s (from node %s)":                                                                   "%v：%s：%s（ノード %s から）",
	"%v: %s: %s (and %v)":                                                                         "%v：%s：%s（ほかに%v）",
	"%v: %s: %s (from node %s) (and %v)":                                                          "%v：%s：%s（ノード %s から）（ほかに%v）",

	// Runs (tools_runs.go).
	"run_dag returns at once only with a run store to follow the run in: pass wait: true, or start the server with --store": "run_dag がすぐに返るのは、実行を追跡する run store があるときだけです：wait: true を指定するか、--store を付けてサーバーを起動してください",
	"%s: the params break the DAG's params schema:%s":                                                                       "%s：params が DAG の params スキーマに違反しています：%s",
	// Lint before a run, and the run started.
	"%s was not run: lint found %v (lint_dag shows them; no_lint: true runs it anyway)": "%s は実行されませんでした：lint で%vが見つかりました（lint_dag で確認できます。no_lint: true で強行できます）",
	"%s was not run: the server is shutting down":                                       "%s は実行されませんでした：サーバーが停止処理中です",
	"run %s of %s started: get_run shows how it goes, cancel_run stops it":              "実行 %s（%s）を開始しました：経過は get_run で確認でき、cancel_run で停止できます",
	"run %s: %v":           "%s を実行できません：%v",
	"run %s of %s: %s":     "実行 %s（%s）：%s",
	"run %s of %s: %s: %s": "実行 %s（%s）：%s：%s",
	"id is empty: give the id run_dag returned (list_runs shows running runs with status: running)": "id が空です：run_dag が返した id を指定してください（実行中のものは list_runs の status: running で確認できます）",
	"run %s is being canceled: get_run shows it canceled once its running nodes have stopped":       "実行 %s をキャンセルしています：実行中のノードが止まると、get_run で canceled と表示されます",
	"run %s finished with %s: there is nothing to resume (run_dag runs it again)":                   "実行 %s は %s で終了しています：再開するものはありません（もう一度実行するには run_dag）",
	"run %s is still running: wait for it, or stop it with cancel_run, then resume it":              "実行 %s はまだ実行中です：終わるのを待つか、cancel_run で停止してから再開してください",
	"run %s has no DAG file to resume from (an inline DAG): run_dag runs it again":                  "実行 %s には再開に使える DAG ファイルがありません（インラインの DAG）：もう一度実行するには run_dag",
	"run %s ran the DAG %s, but %s now defines %s: run_dag runs it":                                 "実行 %s は DAG %s を実行しましたが、%s は今 %s を定義しています：実行するには run_dag",
	"run %s of %s resumed: get_run shows how it goes, cancel_run stops it":                          "実行 %s（%s）を再開しました：経過は get_run で確認でき、cancel_run で停止できます",
	"arguments: want a JSON object: %v":                                                             "引数：JSON オブジェクトが必要です：%v",
	"arguments: %v (the tool's input schema says what it takes)":                                    "引数：%v（受け付ける引数はツールの入力スキーマを参照してください）",
	"arguments: %v": "引数：%v",
	"arguments: %q is not an argument; did you mean %q?":              "引数：%q という引数はありません。%q のことですか？",
	"arguments: %q is not an argument: the tool takes %s":             "引数：%q という引数はありません：このツールの引数は %s です",
	"arguments: %q is missing (the tool's input schema describes it)": "引数：%q がありません（ツールの入力スキーマを参照してください）",
	"arguments: %s %s: want one of %s":                                "引数：%s %s：%s のいずれかを指定してください",
	"run %s is not running on this server":                            "実行 %s はこのサーバーで実行中ではありません",
	"no run %q in the run store (list_runs shows the runs)":           "run store に実行 %q はありません（list_runs で実行を一覧できます）",
	"read run %s: %v": "実行 %s を読み込めません：%v",
	"run %s is recorded as running but not by this server (another process runs it, or ran it and died): stop it there": "実行 %s は running と記録されていますが、このサーバーの実行ではありません（別のプロセスが実行中か、実行中に終了しました）：そちらで停止してください",
	"run %s has already finished: %s":                                      "実行 %s はすでに終了しています：%s",
	"%s: want an object":                                                   "%s：オブジェクトを指定してください",
	"arguments are not valid JSON: %v":                                     "引数が有効な JSON ではありません：%v",
	"this server has no run store: start it with --store":                  "このサーバーには run store がありません：--store を付けて起動してください",
	"read run %s: output of %s: %v":                                        "実行 %s を読み込めません：%s の出力：%v",
	"%s is empty: give a run id, or \"latest\" (list_runs shows the runs)": "%s が空です：実行 id か \"latest\" を指定してください（list_runs で実行を一覧できます）",
	"read the run store: %v":                                               "run store を読み込めません：%v",
	"no runs recorded yet: run_dag records one":                            "まだ実行が記録されていません：run_dag で記録されます",
	"since %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z":         "since %q：2026-01-02T15:04:05Z のような RFC 3339 の時刻を指定してください",
	"list runs: %v":                     "実行を一覧できません：%v",
	"%v; more with cursor: next_cursor": "%v。続きは cursor: next_cursor で取得できます",

	// Panics recovered (recover.go, runner.go).
	"internal error in %s: %v (the server logged the stack and goes on serving)": "%s で内部エラーが発生しました：%v（サーバーはスタックをログに記録し、処理を続けています）",

	// Bad JSON-RPC frames on stdio (frames.go).
	"invalid request: the frame is longer than %d bytes (seam mcp --max-frame raises the limit)": "無効なリクエスト：フレームが %d バイトを超えています（seam mcp --max-frame で上限を上げられます）",
	"invalid request: the frame nests deeper than %d levels":                                     "無効なリクエスト：フレームの入れ子が %d 段を超えています",
	"parse error: the frame is not JSON: %v":                                                     "解析エラー：フレームが JSON ではありません：%v",
	"invalid request: batches are not supported; send one JSON-RPC request per line":             "無効なリクエスト：バッチには対応していません。JSON-RPC リクエストは 1 行に 1 つずつ送ってください",
	"invalid request: want a JSON-RPC 2.0 request object":                                        "無効なリクエスト：JSON-RPC 2.0 のリクエストオブジェクトが必要です",
	"invalid request: id must be a string, an integer or null":                                   "無効なリクエスト：id は文字列、整数、null のいずれかにしてください",
	`invalid request: "jsonrpc" must be "2.0"`:                                                   `無効なリクエスト："jsonrpc" は "2.0" にしてください`,
	"invalid request: method must be a string":                                                   "無効なリクエスト：method は文字列にしてください",
	"invalid request: params must be an object or an array":                                      "無効なリクエスト：params はオブジェクトか配列にしてください",
	"invalid request: %v": "無効なリクエスト：%v",

	// The HTTP session cap (http.go).
	"the server has %d sessions open, its limit (seam mcp --max-sessions): end one (DELETE), or retry once an idle one has expired (after %v)": "サーバーのセッション数が上限の %d に達しています（seam mcp --max-sessions）：セッションを 1 つ終了する（DELETE）か、使われていないセッションが期限切れになってから（%v 後）再試行してください",

	// run_dag's progress notifications (runner.go).
	"%s %s (%d/%d nodes)":     "%s：%s（%d/%d ノード）",
	"%s %s (%d/%d nodes): %s": "%s：%s（%d/%d ノード）：%s",
	"%s: %d/%d items":         "%s：%d/%d 件",

	// n8n (tools_n8n.go).
	"n8n refused the API key of this server (N8N_API_KEY): %v": "n8n がこのサーバーの API キー（N8N_API_KEY）を拒否しました：%v",
	"n8n failed: %v":                                            "n8n でエラーが発生しました：%v",
	"n8n refused the request: %v":                               "n8n がリクエストを拒否しました：%v",
	"n8n is unreachable: %v":                                    "n8n に接続できません：%v",
	"limit %d: want 1 to %d":                                    "limit %d：1 から %d までの値を指定してください",
	"id is empty: give the %s":                                  "id が空です：%sを指定してください",
	"workflow's id (list_workflows shows them)":                 "ワークフローの id（list_workflows で確認できます）",
	"id of the workflow to replace (list_workflows shows them)": "置き換えるワークフローの id（list_workflows で確認できます）",
	"execution's id (list_executions shows them)":               "実行の id（list_executions で確認できます）",
	"%v, %d active":                                             "%v（有効 %d 件）",
	"%v, %d active; more with cursor: next_cursor":              "%v（有効 %d 件）。続きは cursor: next_cursor で取得できます",
	"%q (id %s): %v, active":                                    "%q（id %s）：%v、有効",
	"%q (id %s): %v, inactive":                                  "%q（id %s）：%v、無効",
	"workflow %v":                                               "ワークフロー %v",
	"created workflow %v":                                       "ワークフローを作成しました：%v",
	"created workflow %v; forced past %v":                       "ワークフローを作成しました：%v。%vを無視しました",
	"updated workflow %v":                                       "ワークフローを更新しました：%v",
	"updated workflow %v; forced past %v":                       "ワークフローを更新しました：%v。%vを無視しました",
	"(unnamed)":                                                 "（名前なし）",
	"workflow %q is valid (%s): %v, %v":                         "ワークフロー %q は有効です（%s）：%v、%v",
	"workflow %q is invalid (%s): %v, %v; first: %v":            "ワークフロー %q は無効です（%s）：%v、%v。最初のエラー：%v",
	"node %q: %s":                                               "ノード %q：%s",
	"load the n8n node catalog: %v":                             "n8n のノードカタログを読み込めません：%v",
	"profile: %v":                                               "profile：%v",
	"give workflow (the workflow JSON) or id (of a workflow in n8n), not both nor neither": "workflow（ワークフローの JSON）か id（n8n のワークフロー）のどちらか一方を指定してください",
	"validate workflow %s: %v": "ワークフロー %s を検証できません：%v",
	"validate workflow: %v":    "ワークフローを検証できません：%v",
	"workflow is missing: give the workflow JSON {name, nodes, connections}": "workflow がありません：ワークフローの JSON {name, nodes, connections} を指定してください",
	"workflow: %v":                           "workflow：%v",
	"workflow is not an n8n workflow: %v":    "workflow は n8n のワークフローではありません：%v",
	"workflow has no name: n8n requires one": "workflow に name がありません：n8n では必須です",
	"workflow %q was not written: the runtime validation found %v (n8n would reject it or it would break when it runs); first: %v; force: true writes it anyway":           "ワークフロー %q は書き込まれませんでした：runtime の検証で%vが見つかりました（n8n が拒否するか、実行時に失敗します）。最初のエラー：%v。force: true で書き込みを強行できます",
	"workflow %q was not written: the runtime validation found %v (n8n would reject it or it would break when it runs); first: %v (fix: %s); force: true writes it anyway": "ワークフロー %q は書き込まれませんでした：runtime の検証で%vが見つかりました（n8n が拒否するか、実行時に失敗します）。最初のエラー：%v（修正：%s）。force: true で書き込みを強行できます",
	// list_executions: "3 executions: 1 error, 2 success", each status counted by "%d %s".
	"%d %s":                                 "%d 件が %s",
	"%v: %v":                                "%v：%v",
	"%v: %v; more with cursor: next_cursor": "%v：%v。続きは cursor: next_cursor で取得できます",
	"execution %s of workflow %s: %s":       "実行 %s（ワークフロー %s）：%s",
	"execution %s of workflow %s: %s in %s: %s":       "実行 %s（ワークフロー %s）：%s（ノード %s）：%s",
	"execution %s of workflow %s: %s: %s":             "実行 %s（ワークフロー %s）：%s：%s",
	"execution %s of workflow %s: %s; %s returned %v": "実行 %s（ワークフロー %s）：%s。%s が%vを返しました",
}
