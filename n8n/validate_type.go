package n8n

import (
	"github.com/seam-dag/seam/internal/i18n"

	"context"
	"encoding/json"
	"fmt"

	"github.com/seam-dag/seam/n8n/validate"
	"github.com/seam-dag/seam/nodes"
)

// validateType is n8n.validate: it validates a workflow, given inline or fetched by id, and
// fails on errors, warns on warnings. It shares the family's catalog, loaded on first use.
type validateType struct {
	f *family
}

func (*validateType) Name() string { return "n8n.validate" }
func (*validateType) Doc() string {
	return "Validates an n8n workflow (inline, or by id from n8n): fails on errors, warns on warnings."
}

func (*validateType) ConfigSchema() []byte {
	return mustJSON(obj{
		{"$schema", draft},
		{"title", "n8n.validate configuration"},
		{"type", "object"},
		{"additionalProperties", false},
		{"properties", append(obj{
			{"workflow", desc("The workflow to validate: {name, nodes, connections}.", anyObj)},
			{"id", idProp("The id of a workflow to fetch from n8n and validate (instead of workflow).")},
			{"profile", desc("minimal, runtime (default), ai-friendly or strict.", obj{{"type", "string"}, {"enum", []string{"minimal", "runtime", "ai-friendly", "strict"}}, {"default", "runtime"}})},
		}, connectionProps...)},
		{"oneOf", []obj{{{"required", []string{"workflow"}}}, {{"required", []string{"id"}}}}},
	})
}

func (*validateType) OutputSchema() []byte {
	issues := obj{{"type", "array"}, {"items", obj{{"type", "object"}, {"required", []string{"type", "message", "code"}}}}}
	return outputSchema("n8n.validate output", "The validation result.", obj{
		{"type", "object"},
		{"required", []string{"valid", "profile", "errors", "warnings", "statistics", "suggestions"}},
		{"properties", obj{
			{"valid", boolean},
			{"profile", str},
			{"workflow", desc("The workflow's name.", str)},
			{"errors", issues},
			{"warnings", issues},
			{"statistics", anyObj},
			{"suggestions", obj{{"type", "array"}, {"items", str}}},
		}},
	})
}

// Check reads the profile when the file loads.
func (*validateType) Check(with map[string]any) error {
	p, err := optString(with, "profile")
	if err != nil {
		return err
	}
	if _, err := validate.ParseProfile(p); err != nil {
		return &nodes.ConfigError{Path: "/profile", Offset: -1, Err: err}
	}
	return nil
}

func (t *validateType) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	if err := t.Check(call.With); err != nil {
		return nil, err
	}
	p, _ := optString(call.With, "profile")
	profile, _ := validate.ParseProfile(p)
	id, err := optID(call.With, "id")
	if err != nil {
		return nil, err
	}
	wfv, hasWF := call.With["workflow"]
	if hasWF == (id != "") {
		return nil, configErr("", i18n.M("give either workflow or id"))
	}
	var wf *validate.Workflow
	if id != "" {
		c, err := t.f.client(call.With, call.Lang)
		if err != nil {
			return nil, err
		}
		got, err := c.GetWorkflow(ctx, id)
		if err != nil {
			return nil, err
		}
		wf = &validate.Workflow{Name: got.Name, Nodes: got.Nodes, Connections: got.Connections, Settings: got.Settings}
	} else {
		if _, isObj := wfv.(map[string]any); !isObj {
			return nil, configErr("/workflow", i18n.M("must be an object (name, nodes, connections), got %T", wfv))
		}
		b, err := json.Marshal(wfv)
		if err != nil {
			return nil, &nodes.ConfigError{Path: "/workflow", Offset: -1, Err: err}
		}
		wf = &validate.Workflow{}
		if err := json.Unmarshal(b, wf); err != nil {
			return nil, configErr("/workflow", i18n.M("not a workflow: %v", err))
		}
	}
	cat, err := t.f.catalog.Get()
	if err != nil {
		return nil, i18n.Errorf(call.Lang, "n8n node catalog: %w", err)
	}
	res, err := validate.Validate(ctx, wf, validate.Options{Profile: profile, Catalog: cat})
	if err != nil {
		return nil, err
	}
	status, verdict := "pass", "valid"
	switch {
	case !res.Valid:
		status, verdict = "fail", "invalid"
	case len(res.Warnings) > 0:
		status = "warn"
	}
	name := wf.Name
	if name == "" {
		name = "(unnamed)"
	}
	summary := fmt.Sprintf("workflow %q is %s (%s): %s, %s", name, verdict, profile,
		plural(len(res.Errors), "error", "errors"), plural(len(res.Warnings), "warning", "warnings"))
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		where := ""
		if e.NodeName != "" {
			where = fmt.Sprintf("%q: ", e.NodeName)
		}
		summary += fmt.Sprintf("; first: %s%s", where, e.Message)
	}
	data := map[string]any{
		"valid": res.Valid, "profile": res.Profile, "workflow": wf.Name, "errors": res.Errors,
		"warnings": res.Warnings, "statistics": res.Statistics, "suggestions": res.Suggestions,
	}
	return output(status, summary, data)
}
