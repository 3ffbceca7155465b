package i18n

// jaLow35 is the Japanese of issue 35's small fixes: why seam version has no revision, the
// web view's cancel of a run another process runs, and DAG files that share a name.
func jaLow35() map[string]string {
	return map[string]string{
		"(no revision: built from a module download, whose version names the source)":                                                              "（リビジョンなし: モジュールのダウンロードからビルドされました。ソースはバージョンが示します）",
		"(no revision: go run and go test do not stamp one; go build in a git checkout does)":                                                      "（リビジョンなし: go run と go test は記録しません。git のチェックアウトで go build すると記録されます）",
		"(no revision: built without VCS stamping, by go build -buildvcs=false or outside a git checkout)":                                         "（リビジョンなし: VCS 情報なしでビルドされました。go build -buildvcs=false か、git のチェックアウトの外です）",
		"warning: %d DAG files are named %q (%s): runs are listed by DAG name, so theirs would mix; give each file a name of its own":              "警告: %d 個の DAG ファイルが同じ名前 %q です（%s）。実行は DAG の名前で一覧されるため混ざります。ファイルごとに別の名前を付けてください",
		"Runs are listed by DAG name: these files give this one too:":                                                                              "実行は DAG の名前で一覧されます。次のファイルも同じ名前です:",
		"This run runs on Temporal, which this server does not reach: cancel it with seam runs cancel %s, from any machine that reaches Temporal.": "この実行は Temporal 上で動いていますが、このサーバーは Temporal に接続していません: Temporal に届くマシンから seam runs cancel %s でキャンセルしてください。",
		"Another process runs this run (pid %d on %s): this server cannot cancel it; stop that process (Ctrl-C where it runs).":                    "この実行は別のプロセス（%[2]s の pid %[1]d）が実行しています: このサーバーからはキャンセルできません。そのプロセスを停止してください（実行している端末で Ctrl-C）。",
		"Another process runs this run: this server cannot cancel it; stop it where it runs.":                                                      "この実行は別のプロセスが実行しています: このサーバーからはキャンセルできません。実行しているところで停止してください。",
	}
}
