package i18n

// jaStatus is the Japanese of conditions on an upstream's status (nodes.<id>.status): the
// engine's skip and lint's SEAM-E317.
func jaStatus() map[string]string {
	return map[string]string{
		"upstream %s %s: its output is not there": "上流のノード %s の状態: %s。その出力はありません",
	}
}
