package n8n

import (
	"context"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/catalog"
	"github.com/seam-dag/seam/n8n/validate"
)

// GateError is a workflow Gate refused: the runtime validation found errors in it. Result is
// the whole validation, for callers that show more than the first error.
type GateError struct {
	Result *validate.Result
	Lang   i18n.Lang // the language Error says it in, as the findings are
}

func (e *GateError) Error() string {
	if e.Result == nil || len(e.Result.Errors) == 0 {
		return i18n.Sprintf(e.Lang, "n8n would reject or break this workflow; set force: true to write it anyway")
	}
	first := e.Result.Errors[0]
	where := ""
	if first.NodeName != "" {
		where = i18n.Sprintf(e.Lang, "node %q: ", first.NodeName)
	}
	return i18n.Sprintf(e.Lang, "n8n would reject or break this workflow: %s; the first: %s %s%s (fix: %s); set force: true to write it anyway",
		i18n.Plural(e.Lang, len(e.Result.Errors), "%d error", "%d errors", len(e.Result.Errors)), first.Code, where, first.Message, first.Fix)
}

// Gate validates w with the runtime profile before it is written to n8n, and refuses, with a
// *GateError, a workflow n8n would reject or that would break when it runs, unless force.
// Every writer of workflows (the create and update node types, seam's MCP tools) goes
// through it, so that they all refuse the same workflows. The result is returned with the
// refusal too, and when force lets an invalid workflow through. The findings and the
// refusal are said in lang.
func Gate(ctx context.Context, lang i18n.Lang, cat *catalog.Catalog, w *Workflow, force bool) (*validate.Result, error) {
	res, err := validate.Validate(ctx, &validate.Workflow{Name: w.Name, Nodes: w.Nodes, Connections: w.Connections, Settings: w.Settings},
		validate.Options{Profile: validate.Runtime, Catalog: cat, Lang: lang})
	if err != nil {
		return nil, i18n.Errorf(lang, "validate workflow %q: %w", w.Name, err)
	}
	if !res.Valid && !force {
		return res, &GateError{Result: res, Lang: lang}
	}
	return res, nil
}
