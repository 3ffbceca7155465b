package i18n

// jaWeb2 is the Japanese of the run page's critical path.
func jaWeb2() map[string]string {
	return map[string]string{
		"%s (on the critical path)": "%s（クリティカルパス上）",
		"Bars drawn thick in blue are the critical path: the chain of attempts, each waiting for the one before it, that decided how long the run took.": "青い太線のバーはクリティカルパスです：それぞれが前の試行を待っていた試行の連なりで、実行の所要時間を決めたものです。",
	}
}
