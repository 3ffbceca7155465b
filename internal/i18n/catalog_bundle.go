package i18n

// jaBundle is the Japanese of what a run on Temporal says about the files that travel with
// it (temporal: NewBundle, shipper, startSub) and of cancelling a run no worker has taken.
func jaBundle() map[string]string {
	return map[string]string{
		"%w (and Temporal could not be asked: %v)":                                           "%w（Temporal には問い合わせられませんでした: %v）",
		"run %s: canceled before a worker took it, but not recorded: %w":                     "実行 %s: ワーカーが受け取る前にキャンセルしましたが、記録できませんでした: %w",
		"run %s on Temporal: %w":                                                             "Temporal で %s を実行できません: %w",
		"bundle %s: its files hold %d bytes, more than the %d a bundle may (docs/limits.md)": "バンドル %s: ファイルの合計が %d バイトあり、バンドルの上限 %d バイトを超えています（docs/limits.md）",
		"node %s: dir %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or give an absolute path that exists on every worker":      "ノード %s: dir %s は DAG ファイルのフォルダーの外にあるため、Temporal での実行に同梱できません。DAG ファイルのそばに移すか、すべてのワーカーに存在する絶対パスを指定してください",
		"node %s: %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or install it on every worker and name it by an absolute path": "ノード %s: %s は DAG ファイルのフォルダーの外にあるため、Temporal での実行に同梱できません。DAG ファイルのそばに移すか、すべてのワーカーにインストールして絶対パスで指定してください",
		"node %s: a file it runs: %w": "ノード %s: 実行するファイル: %w",
		"node %s: with %s, the files of the run hold %d bytes, more than the %d a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths": "ノード %s: %s を加えると実行のファイルは %d バイトになり、Temporal での実行が運べる %d バイトを超えます（docs/limits.md）。実行するものだけを含む dir をノードに指定するか、ファイルをすべてのワーカーにインストールして絶対パスで指定してください",
		"node %s: with %s, the run has more than the %d files a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths":                   "ノード %s: %s を加えると、実行のファイル数は Temporal での実行が運べる %d 個を超えます（docs/limits.md）。実行するものだけを含む dir をノードに指定するか、ファイルをすべてのワーカーにインストールして絶対パスで指定してください",
		"dag %s: not in the run's bundle": "dag %s: 実行のバンドルにありません",
	}
}
