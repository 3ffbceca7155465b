package i18n

// jaLow35 is the Japanese of issue 35's small fixes: why seam version has no revision, the
// web view's cancel of a run another process runs, and DAG files that share a name.
func jaLow35() map[string]string {
	return map[string]string{
		"(no revision: built from a module download, whose version names the source)":                      "（リビジョンなし: モジュールのダウンロードからビルドされました。ソースはバージョンが示します）",
		"(no revision: go run and go test do not stamp one; go build in a git checkout does)":              "（リビジョンなし: go run と go test は記録しません。git のチェックアウトで go build すると記録されます）",
		"(no revision: built without VCS stamping, by go build -buildvcs=false or outside a git checkout)": "（リビジョンなし: VCS 情報なしでビルドされました。go build -buildvcs=false か、git のチェックアウトの外です）",
	}
}
