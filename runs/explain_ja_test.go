package runs

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestExplainJapanese checks that a run in Japanese records its reasons in Japanese, and that
// Explain, said in either language, still reads them: it follows a dag node into the sub-run
// its reason names, points a skipped node at the upstream node that failed, and tells an
// input's violations from an output's.
func TestExplainJapanese(t *testing.T) { eachBackend(t, testExplainJapanese) }

func testExplainJapanese(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	res := runRecorded(t, s, "ja", map[string]string{
		"score.yaml": `version: 1
name: score
params: {type: object, required: [w], properties: {w: {type: integer}}}
nodes:
  x:
    type: const
    with: {value: {status: pass, summary: heavy, data: {w: "${{ params.w }}"}}}
    contract: {output: {properties: {data: {properties: {w: {maximum: 5}}}}}}
`,
		"parent.yaml": `version: 1
name: parent
nodes:
  score: {type: dag, with: {file: score.yaml}, input: {w: 7}}
  after: {type: const, needs: [score], with: {value: {status: pass, summary: done}}}
  check:
    type: transform
    with: {program: "{status: \"pass\", summary: \"ok\"}"}
    input: {n: three}
    contract: {input: {properties: {n: {type: integer}}}}
`,
	})
	all, _, err := s.ListRuns(ctx, Filter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("ListRuns = %+v, %v; want the run and its sub-run", all, err)
	}
	sub := all[0]
	r, as, err := s.GetRun(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, n := range Summarize(as) {
		reasons[n.ID] = n.Final.Reason
	}
	want := map[string]string{
		"score": "サブ実行 " + sub.ID + " (score) は失敗: ノード x: 出力が契約に違反しています",
		"after": "上流のノード score が失敗しました",
		"check": "入力が契約に違反しています",
	}
	for id, w := range want {
		if reasons[id] != w {
			t.Errorf("%s: recorded reason %q, want %q", id, reasons[id], w)
		}
	}
	for _, lang := range []string{"en", "ja"} {
		opts := ExplainOptions{Lang: i18n.Lang(lang)}
		x, err := Explain(ctx, s, r, as, "score", opts)
		if err != nil {
			t.Fatal(err)
		}
		if x.SubRun == nil || x.SubRun.Run != sub.ID || x.SubRun.Node != "x" || len(x.SubRun.Violations) != 1 {
			t.Errorf("%s: explanation of score %+v, want the sub-run's node x and its violation", lang, x)
		} else if from := x.SubRun.Violations[0].From; from != map[string]string{"en": "x's own output", "ja": "x 自身の出力"}[lang] {
			t.Errorf("%s: from %q", lang, from)
		}
		if x, err := Explain(ctx, s, r, as, "after", opts); err != nil || x.Upstream != "score" {
			t.Errorf("%s: explanation of after %+v, %v; want upstream score", lang, x, err)
		}
		x, err = Explain(ctx, s, r, as, "check", opts)
		if err != nil || len(x.Violations) != 1 || !x.Violations[0].Input {
			t.Fatalf("%s: explanation of check %+v, %v; want its input's violation", lang, x, err)
		}
		wantFrom := map[string]string{"en": "the value written in the node's input", "ja": "でノードの入力に書かれた値"}[lang]
		if !strings.Contains(x.Violations[0].From, wantFrom) {
			t.Errorf("%s: from %q, want %q in it", lang, x.Violations[0].From, wantFrom)
		}
	}
	if _, err := Explain(ctx, s, r, as, "nope", ExplainOptions{Lang: "ja"}); err == nil || !strings.HasPrefix(err.Error(), "実行 "+r.ID+" にノード \"nope\" はありません") {
		t.Errorf("unknown node: %v", err)
	}
}

// TestReasonParsers checks the readers of recorded reasons in both languages.
func TestReasonParsers(t *testing.T) {
	for _, tt := range []struct {
		reason, upstream string
		input            bool
	}{
		{"upstream a failed", "a", false},
		{"upstream b-2 skipped", "b-2", false},
		{"上流のノード a が失敗しました", "a", false},
		{"上流のノード b-2 の状態: スキップ", "b-2", false},
		{"input breaks its contract", "", true},
		{"入力が契約に違反しています", "", true},
		{"入力を解決できません: x", "", false},
		{"output breaks its contract", "", false},
	} {
		if got := upstreamIn(tt.reason); got != tt.upstream {
			t.Errorf("upstreamIn(%q) = %q, want %q", tt.reason, got, tt.upstream)
		}
		if got := inputBroken(tt.reason); got != tt.input {
			t.Errorf("inputBroken(%q) = %v, want %v", tt.reason, got, tt.input)
		}
	}
}
