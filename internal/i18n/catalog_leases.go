package i18n

// jaLeases is the Japanese of run leases (service Release, seam runs release), of the
// bounds on event streams (internal/httpserve) and of MCP's refusal of hidden files.
func jaLeases() map[string]string {
	return map[string]string{
		"run %s is still running: its owner %s renewed its lease, which holds until %s; release is for a run whose owner is gone, and a lease expires within %s of its owner's death": "実行 %s はまだ実行中です。所有者 %s がリースを更新しており、%s まで有効です。release は所有者がいなくなった実行のためのもので、リースは所有者の終了から %s 以内に切れます",
		"run %s is still running: its owner renewed its lease meanwhile":                                           "実行 %s はまだ実行中です。その間に所有者がリースを更新しました",
		"run %s is still running (process %d on %s): stop it there, or wait for it to end":                         "実行 %s はまだ実行中です（%[3]s のプロセス %[2]d）。そこで停止するか、終わるのを待ってください",
		"run %s: released, recorded canceled; seam run --resume %s runs what did not pass\n":                       "実行 %s: 解放し、キャンセルとして記録しました。seam run --resume %s で成功しなかったものを実行します\n",
		"this client holds %d event streams open, its limit: close one, or retry once one has ended":               "このクライアントはイベントストリームを上限の %d 本開いています。1 本閉じるか、終わってから再試行してください",
		"path %q is hidden (%s starts with a dot): the server loads no hidden file; list_dags lists the DAG files": "パス %q は隠しファイルです（%s がドットで始まります）。サーバーは隠しファイルを読み込みません。DAG ファイルは list_dags で一覧できます",
	}
}
