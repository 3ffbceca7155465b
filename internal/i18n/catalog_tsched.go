package i18n

// jaTsched is the Japanese of the schedules on Temporal: seam schedule sync, and pause,
// resume and backfill of a trigger's Temporal Schedule (temporal/schedules.go, service/remote.go).
func jaTsched() map[string]string {
	return map[string]string{
		"sync %s %s to Temporal: %w":                                "%s %s を Temporal に同期: %w",
		"delete Temporal Schedule %s: %w":                           "Temporal Schedule %s の削除: %w",
		"list Temporal Schedules: %w":                               "Temporal Schedule の一覧: %w",
		"Temporal has no Schedule %s: run seam schedule sync first": "Temporal に Schedule %s がありません。先に seam schedule sync を実行してください",
		"the Temporal Schedule %s: %w":                              "Temporal Schedule %s の操作: %w",
		"run %s of schedule %s has no scheduled time (TemporalScheduledStartTime): only its Temporal Schedule starts it": "スケジュール %[2]s の実行 %[1]s に予定時刻（TemporalScheduledStartTime）がありません。この実行を開始できるのはその Temporal Schedule だけです",
		"DAG %s has no schedule %s: run seam schedule sync":                                                              "DAG %s にスケジュール %s がありません。seam schedule sync を実行してください",
		"seam schedule sync makes Temporal Schedules: it needs Temporal (TEMPORAL_ADDRESS)":                              "seam schedule sync は Temporal Schedule を作成します。Temporal（TEMPORAL_ADDRESS）が必要です",
		"%[1]s: not synced: lint found 1 error: %[3]s %[4]s":                                                             "%[1]s: 同期しませんでした。lint がエラーを 1 件見つけました: %[3]s %[4]s",
		"%[1]s: not synced: lint found %[2]d errors (seam lint shows them), the first: %[3]s %[4]s":                      "%[1]s: 同期しませんでした。lint がエラーを %[2]d 件見つけました（seam lint で確認できます）。最初のもの: %[3]s %[4]s",
		"%s %s: %s (Temporal Schedule %s)":                                                                               "%s %s: %s（Temporal Schedule %s）",
		"created":                                                                                                        "作成しました",
		"updated":                                                                                                        "更新しました",
		"unchanged":                                                                                                      "変更なし",
		"%s  asked of the Temporal Schedule":                                                                             "%s  Temporal Schedule に依頼しました",
	}
}
