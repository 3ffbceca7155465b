package main

import (
	"context"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// resumeRun continues the run --resume names, from its DAG file or the one given in args
// (the DAG moved), with the params it started with: the run service says why not when it
// cannot be resumed.
func resumeRun(ctx context.Context, e *env, rf *runFlags, args []string, lang i18n.Lang, tel *runTelemetry) error {
	var st runs.Store
	if !rf.noStore {
		var err error
		// An existing store: a resume must not create an empty one where a path is mistyped.
		if st, err = openStoreToResume(ctx, e, &rf.sf); err != nil {
			return err
		}
		defer st.Close()
	}
	// Either engine resumes a run of either: the store is what they share.
	eng, closeEngine, err := rf.ef.open(ctx, e, lang)
	if err != nil {
		return err
	}
	defer closeEngine()
	svc := runService(e, st, eng, lang, tel, rf.policy)
	defer svc.Close()
	check := service.ResumeCheck{ParamsGiven: rf.paramsFile != "" || len(rf.params) > 0, From: rf.from}
	if len(args) > 0 {
		check.File = args[0]
	}
	rs, err := svc.Resumable(ctx, rf.resume, check)
	if err != nil {
		return usage(err)
	}
	d, err := loadDAG(ctx, e, rs.File, lang)
	if err != nil {
		return err
	}
	return runAndShow(ctx, e, st, d, lang, rf, service.Request{NoLint: rf.noLint}, func(req service.Request) (*service.Run, error) {
		return svc.Resume(ctx, rs, d, req)
	})
}
