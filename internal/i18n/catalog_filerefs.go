package i18n

// jaFileRefs is the Japanese of the gate's SEAM-W308 (lint/evolve.go): an edge the change
// touches that is unknown at both revisions.
func jaFileRefs() map[string]string {
	return map[string]string{
		"the output contract of %s changed": "%s の出力契約が変わりました",
		"the input contract of %s changed":  "%s の入力契約が変わりました",
		"node %s is written differently":    "ノード %s の書き方が変わりました",
		"%s (unknown at %s too, and this change touches it: %s; the gate cannot tell whether it breaks)": "%s（%s でも不明で、この変更が関わっています：%s。壊れるかどうかゲートには判断できません）",
	}
}
