package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// newAnswerCmd is seam approve (decision approve) or seam reject: the run service checks and
// records the answer and resumes the run, which is shown as seam run shows it.
func newAnswerCmd(e *env, decision, short string) *cobra.Command {
	var (
		rf            runFlags
		sets          []string
		file, comment string
	)
	cmd := &cobra.Command{
		Use: decision + " RUN NODE", Short: short, Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			rf.sf.lang = l
			fields, err := service.Params(e.readInput, l, file, sets)
			if err != nil {
				return usage(err)
			}
			tel, err := setupTelemetry(cmd.Context(), e, "", l)
			if err != nil {
				return err
			}
			defer tel.shutdown(cmd.Context())
			ctx := tel.context(cmd.Context())
			st, err := openStoreToResume(ctx, e, &rf.sf)
			if err != nil {
				return err
			}
			defer st.Close()
			svc := runService(e, st, nil, l, tel, "")
			defer svc.Close()
			d, err := svc.DAGOf(ctx, args[0], func(path string) (*dag.DAG, error) { return loadDAG(ctx, e, path, l) })
			if err != nil {
				return usage(err)
			}
			req := service.AnswerRequest{Run: args[0], Node: args[1], Decision: decision, Fields: fields, Comment: comment, Through: service.ThroughCLI}
			return runAndShow(ctx, e, st, d, l, &rf, service.Request{}, func(r service.Request) (*service.Run, error) {
				ans, err := svc.Answer(ctx, req, func(string) (*dag.DAG, error) { return d, nil }, r)
				if err != nil {
					return nil, err
				}
				if ans.Run == nil {
					fmt.Fprintln(e.stderr, service.AnsweredNote(l, req, ans))
				}
				return ans.Run, nil
			})
		},
	}
	if decision == "approve" {
		cmd.Flags().StringArrayVar(&sets, "set", nil, "a field of the form, `KEY=VALUE` (JSON, else text); repeatable")
		cmd.Flags().StringVar(&file, "answer", "", "the form's fields as a JSON or YAML object from `FILE` (- for stdin)")
	}
	cmd.Flags().StringVar(&comment, "comment", "", "a comment kept with the answer")
	rf.sf.add(cmd)
	return cmd
}
