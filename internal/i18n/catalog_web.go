package i18n

// jaWeb is the Japanese of rerunning a run from a node (service, mcp, serve) and of the web
// view's timeline and DAG pages.
func jaWeb() map[string]string {
	return map[string]string{
		"run %s of DAG %q has no node %q to rerun from": "実行 %s の DAG %q には、再実行を始めるノード %q がありません",
	}
}
