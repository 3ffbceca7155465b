package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestReasonsJapanese checks that the engine gives its reasons in the run's language: the
// same run in English and in Japanese, node by node.
func TestReasonsJapanese(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: reasons
nodes:
  off: {type: const, when: "${{ false }}", with: {value: {status: pass, summary: x}}}
  slow:
    type: exec
    timeout: 50ms
    with: {command: [sleep, "5"]}
  after: {type: const, needs: [slow], with: {value: {status: pass, summary: x}}}
  items:
    type: const
    foreach: [1, 2]
    with: {value: {status: pass, summary: x, data: {n: "${{ item }}"}}}
    contract: {output: {properties: {data: {properties: {n: {maximum: 1}}}}}}
  shape:
    type: const
    foreach: "${{ 3 }}"
    with: {value: {status: pass, summary: x}}
`)
	want := map[string]map[string]string{
		"en": {
			"off":   "when was false",
			"slow":  "timed out after 50ms",
			"after": "upstream slow failed",
			"items": "item 1 failed after 1 attempt: output breaks its contract",
			"shape": "foreach resolved to a number, not a list",
		},
		"ja": {
			"off":   "when が false でした",
			"slow":  "50ms でタイムアウトしました",
			"after": "上流のノード slow が失敗しました",
			"items": "項目 1 が 1 回の試行で失敗: 出力が契約に違反しています",
			"shape": "foreach がリストではなく数値になりました",
		},
	}
	for lang, reasons := range want {
		res := mustRun(t, d, RunOptions{Lang: i18n.Lang(lang)})
		for id, reason := range reasons {
			if got := node(t, res, id).Reason; got != reason {
				t.Errorf("%s: %s's reason %q, want %q", lang, id, got, reason)
			}
		}
		if got := node(t, res, "items").Summary; lang == "ja" && got != "2 項目: 成功 1、失敗 1" {
			t.Errorf("ja: foreach summary %q", got)
		}
	}
	_, err := Run(t.Context(), load(t, newRecorder(), `version: 1
name: p
params: {type: object, properties: {n: {type: integer}}}
nodes:
  a: {type: const, with: {value: {status: pass, summary: x}}}
`), RunOptions{Lang: "ja", Params: map[string]any{"n": "x"}})
	var pe *ParamsError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "params が DAG の params スキーマに違反しています\n  /n: ") {
		t.Errorf("params error %v", err)
	}
}

// TestSubDAGJapanese checks that a dag node says in the run's language how its sub-run went,
// with the sub-run's id where runs.Explain finds it, also when the run is not recorded.
func TestSubDAGJapanese(t *testing.T) {
	noLeaks(t)
	d, err := loadFiles(t, newRecorder(), map[string]string{
		"score.yaml": `version: 1
name: score
nodes:
  x: {type: const, with: {value: {status: pass, summary: x, data: 7}}, contract: {output: {properties: {data: {maximum: 5}}}}}
`,
		"main.yaml": `version: 1
name: main
nodes:
  s: {type: dag, with: {file: score.yaml}}
`,
	}, "main.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := node(t, mustRun(t, d, RunOptions{Lang: "ja"}), "s")
	if !strings.HasPrefix(n.Reason, "サブ実行 ") || !strings.HasSuffix(n.Reason, " (score) は失敗: ノード x: 出力が契約に違反しています") {
		t.Errorf("reason %q", n.Reason)
	}
	if !strings.Contains(n.Log, "  x 失敗: 出力が契約に違反しています\n") {
		t.Errorf("log %q", n.Log)
	}
}
