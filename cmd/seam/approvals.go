package main

import (
	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// newApprovalsCmd is seam approvals list|show: the run service reads and formats them.
func newApprovalsCmd(e *env) *cobra.Command {
	var (
		sf           storeFlag
		mine, asJSON bool
	)
	do := func(cmd *cobra.Command, args []string) error {
		l, err := lang(cmd, e)
		if err != nil {
			return err
		}
		sf.lang = l
		st, err := openStoreToRead(cmd.Context(), e, &sf)
		if err != nil {
			return err
		}
		defer st.Close()
		w, err := openWorkspace(e, "", l)
		if err != nil {
			return err
		}
		q := service.ApprovalQuery{Mine: mine, Load: func(p string) (*dag.DAG, error) { return w.Load(cmd.Context(), p) }}
		args = append(args, "", "")
		if err := readService(st, &sf).PrintApprovals(cmd.Context(), e.termOut(e.stdout), args[0], args[1], q, asJSON); err != nil {
			return usage(err)
		}
		return nil
	}
	cmd := &cobra.Command{Use: "approvals", Short: "List the approvals waiting for an answer, or show one"}
	list := &cobra.Command{Use: "list", Short: "List the approvals of the waiting runs", Args: cobra.NoArgs, RunE: do}
	list.Flags().BoolVar(&mine, "mine", false, "only those you may answer")
	show := &cobra.Command{Use: "show RUN NODE", Short: "Show an approval: its question, evidence, form, deadline and answers", Args: cobra.ExactArgs(2), RunE: do}
	for _, c := range []*cobra.Command{list, show} {
		sf.add(c)
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		cmd.AddCommand(c)
	}
	return cmd
}
