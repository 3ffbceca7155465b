package i18n

// jaTbody is the Japanese of lint's reads of a webhook's body (lint/lint_presence.go,
// lint/lint.go): a member its contract may leave out or does not declare.
func jaTbody() map[string]string {
	return map[string]string{
		"trigger %s reads %s, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run": "トリガー %[1]s は %[2]s を読みますが、その本文の契約はそれを含まないリクエスト本文を受け付けます。そのようなリクエストに webhook は 422 を返し、実行を開始しません",
		"require it in the body contract of trigger %s, or guard the read: `has(%s) ? %s : <default>`":                                           "トリガー %[1]s の本文の契約でそれを必須にするか、読み出しをガードしてください: `has(%[2]s) ? %[3]s : <既定値>`",
		"the body contract of trigger %s": "トリガー %s の本文の契約",
	}
}
