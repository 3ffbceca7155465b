package mcp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/internal/i18n"
)

func (s *server) addContractTools(srv *sdk.Server) error {
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "validate_output",
		Description: "Validate a JSON value against a JSON Schema (draft 2020-12), as seam validates node outputs. " +
			"Give the value as value, or as text in json (e.g. a program's stdout, which may not even be JSON); the schema " +
			"as schema, or node: path#id for the effective output contract of a node of a DAG file. " +
			"Returns valid and the violations: where (JSON Pointer), the message, the schema keyword.",
		Annotations: readOnlyTool("Validate a value against a schema"),
	}, s.validateOutput))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "check_compatibility",
		Description: "Check statically whether every value schema a (a producer's output) accepts, schema b (a consumer's " +
			"input) accepts too. Returns the verdict (compatible, incompatible or unknown), the reason, and for " +
			"incompatible a witness: a value a accepts and b rejects.",
		Annotations: readOnlyTool("Check two schemas are compatible"),
	}, s.checkCompatibility))
	return errors.Join(errs...)
}

// ValidateInput are validate_output's arguments.
type ValidateInput struct {
	Value   any      `json:"value,omitempty" jsonschema:"the JSON value to validate"`
	JSON    string   `json:"json,omitempty" jsonschema:"the value as JSON text, instead of value"`
	Schema  any      `json:"schema,omitempty" jsonschema:"the JSON Schema to validate against"`
	Node    string   `json:"node,omitempty" jsonschema:"instead of schema: validate against the effective output contract of a DAG node, as path#node (path under the root)"`
	Catalog []string `json:"catalog,omitempty" jsonschema:"folders of vendored schemas under the root that $refs by absolute URL resolve to: DIR, or PREFIX=DIR (https://json.schemastore.org/=vendor/schemastore)"`
	Common
}

// violationList is a list of violations, cut to the first ones in minimal answers.
type violationList struct {
	Valid      bool                 `json:"valid"`
	Count      int                  `json:"count"`
	Violations []contract.Violation `json:"violations"`
}

func violations(vs []contract.Violation) violationList {
	if vs == nil {
		vs = []contract.Violation{}
	}
	return violationList{Valid: len(vs) == 0, Count: len(vs), Violations: vs}
}

func (l violationList) minimal() any {
	type brief struct {
		Pointer string `json:"pointer"`
		Message string `json:"message"`
	}
	m := struct {
		Valid      bool    `json:"valid"`
		Count      int     `json:"count"`
		Violations []brief `json:"violations,omitempty"`
	}{Valid: l.Valid, Count: l.Count}
	for _, v := range first(l.Violations, minimalErrors) {
		m.Violations = append(m.Violations, brief{v.Pointer, v.Message})
	}
	return m
}

// compileArg compiles the schema argument name, read exactly from the request; the files it
// may $ref are those under the root, and the catalog's folders (relative to the root) there.
func (s *server) compileArg(req *sdk.CallToolRequest, name string, catalog []string) (*contract.Schema, error) {
	src, err := exactArg(req, name)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fail(CodeInvalidArgument, nil, "%s is missing: give a JSON Schema", name)
	}
	entries := contract.ParseCatalog(catalog)
	for i, e := range entries {
		if !filepath.IsAbs(e.Dir) {
			entries[i].Dir = filepath.Join(s.root.dir, e.Dir)
		}
	}
	c, err := contract.NewCompiler(contract.Options{Root: s.root.dir, ReadFile: s.root.readFile, Catalog: entries})
	if err != nil {
		if m, ok := err.(interface{ In(i18n.Lang) string }); ok {
			return nil, fail(CodeInvalidArgument, nil, "schema compiler: %v", m.In(s.opts.Lang))
		}
		return nil, fail(CodeInvalidArgument, nil, "schema compiler: %v", err)
	}
	sch, err := c.Inline(name, src)
	if err != nil {
		return nil, fail(CodeInvalidSchema, nil, "%s is not a valid JSON Schema: %v", name, err)
	}
	return sch, nil
}

func (s *server) validateOutput(ctx context.Context, req *sdk.CallToolRequest, in ValidateInput) (message, any, error) {
	var sch *contract.Schema
	var err error
	switch {
	case in.Node != "" && in.Schema != nil:
		return message{}, nil, fail(CodeInvalidArgument, nil, "give schema or node, not both")
	case in.Node != "":
		sch, err = s.nodeContract(ctx, in.Node)
	default:
		sch, err = s.compileArg(req, "schema", in.Catalog)
	}
	if err != nil {
		return message{}, nil, err
	}
	var vs []contract.Violation
	switch {
	case in.JSON != "" && in.Value != nil:
		return message{}, nil, fail(CodeInvalidArgument, nil, "give value or json, not both")
	case in.JSON != "":
		v, err := contract.ParseJSON([]byte(in.JSON))
		if err != nil {
			vs = []contract.Violation{contract.ParseViolation(err, s.opts.Lang)}
		} else {
			vs = sch.Validate(v, s.opts.Lang)
		}
	default:
		v, err := exactArg(req, "value")
		if err != nil {
			return message{}, nil, err
		}
		if v == nil && in.Value == nil {
			return message{}, nil, fail(CodeInvalidArgument, nil, "value is missing: give the JSON value (or json, its text)")
		}
		vs = sch.Validate(v, s.opts.Lang)
	}
	res := violations(vs)
	if res.Valid {
		return msgf("valid"), res, nil
	}
	return msgf("invalid: %v", howMany(res.Count, "violation")), res, nil
}

// CompatInput are check_compatibility's arguments.
type CompatInput struct {
	A       any      `json:"a" jsonschema:"the producer's schema: what may arrive"`
	B       any      `json:"b" jsonschema:"the consumer's schema: what it accepts"`
	Catalog []string `json:"catalog,omitempty" jsonschema:"folders of vendored schemas under the root that $refs by absolute URL resolve to: DIR, or PREFIX=DIR"`
	Common
}

type compatResult struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	Path    string `json:"path,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Witness any    `json:"witness,omitempty"`
}

func (c compatResult) minimal() any {
	c.Rule = ""
	return c
}

func (s *server) checkCompatibility(_ context.Context, req *sdk.CallToolRequest, in CompatInput) (message, any, error) {
	a, err := s.compileArg(req, "a", in.Catalog)
	if err != nil {
		return message{}, nil, err
	}
	b, err := s.compileArg(req, "b", in.Catalog)
	if err != nil {
		return message{}, nil, err
	}
	r := subset.Check(a, b)
	reason := r.ReasonIn(s.opts.Lang)
	res := compatResult{Verdict: r.Verdict.String(), Reason: reason, Path: r.Path, Rule: r.Rule, Witness: r.Witness}
	if reason != "" {
		return msgf("%v: %s", verdictMessage(r.Verdict), reason), res, nil
	}
	return verdictMessage(r.Verdict), res, nil
}

// verdictMessage says a verdict as subset.Verdict.String names it, translatably.
func verdictMessage(v subset.Verdict) message {
	switch v {
	case subset.Compatible:
		return msgf("compatible")
	case subset.Incompatible:
		return msgf("incompatible")
	}
	return msgf("unknown")
}

// nodeContract is the effective output contract of the node named path#id.
func (s *server) nodeContract(ctx context.Context, ref string) (*contract.Schema, error) {
	path, id, ok := strings.Cut(ref, "#")
	if !ok || path == "" || id == "" {
		return nil, fail(CodeInvalidArgument, nil, "node %q: want path#id, e.g. dags/hello.yaml#greet", ref)
	}
	d, err := s.load(ctx, path)
	if err != nil {
		return nil, err
	}
	n, ok := d.ByID[id]
	if !ok {
		ids := make([]string, len(d.Nodes))
		for i, n := range d.Nodes {
			ids[i] = n.ID
		}
		return nil, fail(CodeNotFound, nil, "%s has no node %q; its nodes: %s", path, id, strings.Join(ids, ", "))
	}
	return n.Effective, nil
}
