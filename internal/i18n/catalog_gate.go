package i18n

// jaGate is the Japanese of seam lint --against, the contract evolution gate (lint/evolve*.go,
// internal/gitrev, cmd/seam/lint_against.go).
func jaGate() map[string]string {
	return map[string]string{
		// How an edge was at the older revision, after the finding's message.
		"%s (%s)":                            "%s（%s）",
		"the file is new since %s":           "ファイルは %s 以降に追加されました",
		"node %s is new since %s":            "ノード %s は %s 以降に追加されました",
		"compatible at %s":                   "%s では互換でした",
		"incompatible at %s":                 "%s では非互換でした",
		"unknown at %s":                      "%s では判定不能でした",
		"fixed since %s: %s":                 "%s 以降に解消: %s",
		"%s (accepted: %s)":                  "%s（受け入れ済み: %s）",
		"%s, %s, %s\n":                       "%s、%s、%s\n",
		"%d note":                            "注記 %d 件",
		"%d notes":                           "注記 %d 件",
		"--policy applies to --against only": "--policy は --against と共にのみ使えます",
		"node %s guarantees less than at %s: its output contract now allows a value it rejected there; consumers seam cannot see may break": "ノード %s の保証が %s より弱くなりました: 出力コントラクトが以前は拒否していた値を許すようになり、seam から見えない利用者が壊れるおそれがあります",
		"keep the old guarantee, or tell the consumers outside this repository and accept the finding in the policy file":                   "以前の保証を保つか、リポジトリ外の利用者に知らせたうえでポリシーファイルでこの指摘を受け入れてください",
		// The policy file.
		"policy file: %v": "ポリシーファイル: %v",
		"policy file: accept[%d]: fingerprint %q is not 16 hexadecimal digits, as seam lint --against prints them": "ポリシーファイル: accept[%d]: フィンガープリント %q は seam lint --against が出力する 16 桁の 16 進数ではありません",
		"policy file: accept[%d]: say why the break is accepted (reason)":                                          "ポリシーファイル: accept[%d]: 非互換を受け入れる理由（reason）を書いてください",
		"policy file: severity of %s: want error, warning, info or off, not %q":                                    "ポリシーファイル: %s の重大度は error、warning、info、off のいずれかです（%q ではありません）",
		// Reading the older revision.
		"--against needs git: %v":                                             "--against には git が必要です: %v",
		"--against %s: %s is not in a git repository (%v)":                    "--against %s: %s は git リポジトリの中にありません（%v）",
		"--against %s: a revision cannot start with '-' or hold a line break": "--against %s: リビジョンは '-' で始められず、改行も含められません",
		"--against %s: no such revision in this shallow clone; fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)": "--against %s: この shallow clone にそのリビジョンはありません。先に履歴を取得してください（git fetch --unshallow、または actions/checkout の fetch-depth: 0）",
		"--against %s: no such revision in %s (a branch, tag or commit; fetch it first if it is remote)":                                               "--against %s: %s にそのリビジョンはありません（ブランチ、タグ、コミットを指定し、リモートのものは先に fetch してください）",
		"%s does not exist at %s: %w":                                                          "%s は %s に存在しません: %w",
		"%s is a %s at %s, not a file: %w":                                                     "%s は %[3]s では %[2]s で、ファイルではありません: %[4]w",
		"%s is over the limit of %d bytes at %s":                                               "%s は %[3]s で上限 %[2]d バイトを超えています",
		"--against: want a revision (main) or REV:path, not %q":                                "--against: リビジョン（main）か REV:path を指定してください（%q ではありません）",
		"--against %s: name exactly one path, the one %s was at %s":                            "--against %s: パスを 1 つだけ指定してください（%[3]s で %[2]s にあったもの）",
		"%s holds no DAG file (a YAML file with nodes)":                                        "%s に DAG ファイル（nodes を持つ YAML ファイル）がありません",
		"%s is outside the consumer's repository":                                              "%s は利用側リポジトリの外にあります",
		"with this repository at %s":                                                           "このリポジトリを %s にしたとき",
		"consumer %s@%s: neither the repository nor the ref may start with '-'":                "利用側 %s@%s: リポジトリも ref も '-' で始められません",
		"consumer %s@%s: cannot fetch it: %v":                                                  "利用側 %s@%s: 取得できません: %v",
		"policy file: consumers[%d]: repo, ref and mount are required":                         "ポリシーファイル: consumers[%d]: repo、ref、mount は必須です",
		"policy file: consumers[%d]: mount %q must be a path inside the consumer's repository": "ポリシーファイル: consumers[%d]: mount %q は利用側リポジトリ内のパスでなければなりません",
		"%s is outside the git repository %s":                                                  "%s は git リポジトリ %s の外にあります",
	}
}
