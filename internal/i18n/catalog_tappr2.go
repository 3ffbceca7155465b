package i18n

// jaTappr2 is the Japanese of what seam approvals show says of a run waiting on Temporal.
func jaTappr2() map[string]string {
	return map[string]string{
		"deadline   %s (passed: the run's workflow on Temporal records its on_timeout answer when its timer fires, once a worker runs it)\n": "期限       %s（経過: Temporal 上のこの実行のワークフローが、タイマーの発火時に on_timeout の回答を記録します。ワーカーが動いている必要があります）\n",
	}
}
