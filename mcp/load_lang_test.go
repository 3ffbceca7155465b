package mcp

import (
	"testing"
)

// TestLoadErrorsFollowLang: the diagnostics of a DAG that does not load, in lint_dag's and
// run_dag's invalid_dag answers, minimal and raw, are in the server's language, fix included.
func TestLoadErrorsFollowLang(t *testing.T) {
	root := testRoot(t)
	cnst := "version: 1\nname: typo\nnodes:\n  a:\n    type: cnst\n    with: {value: {status: pass, summary: a}}\n"
	type want struct{ message, hint string }
	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		en, ja want
	}{
		{"lint_dag, a typo", "lint_dag", map[string]any{"yaml": cnst},
			want{`unknown node type "cnst"; did you mean "const"?`, "see `seam types` for the node types"},
			want{`不明なノード型 "cnst" です。"const" のことですか？`, "ノード型は `seam types` を参照してください。"}},
		{"run_dag, an unknown type", "run_dag", map[string]any{"path": "broken.yaml"},
			want{`unknown node type "no-such-type"`, "see `seam types` for the node types"},
			want{`不明なノード型 "no-such-type" です`, "ノード型は `seam types` を参照してください。"}},
	}
	for _, lang := range []string{"en", "ja"} {
		cs := serveLang(t, root, lang)
		for _, tc := range tests {
			w := tc.en
			if lang == "ja" {
				w = tc.ja
			}
			for _, raw := range []bool{false, true} {
				args := map[string]any{"raw": raw}
				for k, v := range tc.args {
					args[k] = v
				}
				r := call(t, cs, tc.tool, args)
				if errCode(r) != CodeInvalidDAG {
					t.Fatalf("%s %s: code %q, want %s: %v", lang, tc.name, errCode(r), CodeInvalidDAG, r.env)
				}
				details, _ := r.env["error"].(map[string]any)["details"].(map[string]any)
				var message, hint string
				if raw {
					ds, _ := details["diagnostics"].([]any)
					if len(ds) != 1 {
						t.Fatalf("%s %s raw: want 1 diagnostic: %v", lang, tc.name, details)
					}
					d := ds[0].(map[string]any)
					message, _ = d["message"].(string)
					hint, _ = d["hint"].(string)
				} else {
					es, _ := details["errors"].([]any)
					ss, _ := details["suggestions"].([]any)
					if len(es) != 1 || len(ss) != 1 {
						t.Fatalf("%s %s: want 1 error and 1 suggestion: %v", lang, tc.name, details)
					}
					message, _ = es[0].(map[string]any)["message"].(string)
					hint, _ = ss[0].(string)
				}
				if message != w.message || hint != w.hint {
					t.Errorf("%s %s (raw %v): message %q, fix %q; want %q, %q", lang, tc.name, raw, message, hint, w.message, w.hint)
				}
			}
		}
	}
}
