package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
)

// lintRule describes a finding code for SARIF's rule metadata.
type lintRule struct {
	code, name, text string
	level            string
}

// codeUnreadable is the code of a DAG file seam lint cannot read (missing, not a regular
// file, over the size limit): its machine formats report it as they report load errors.
const codeUnreadable = "SEAM-E119"

// lintRules are every code seam lint reports, in code order: the load errors of files that
// do not load, then lint's findings, as lint's rule table describes them.
var lintRules = append([]lintRule{
	{dag.CodeYAML, "YAMLSyntax", "The file is not valid YAML.", "error"},
	{dag.CodeUnknownKey, "UnknownKey", "A key the DAG format does not have.", "error"},
	{dag.CodeDuplicateNode, "DuplicateNode", "A node id written twice.", "error"},
	{dag.CodeBadID, "BadNodeID", "A node id that is not [a-z][a-z0-9_-]*.", "error"},
	{dag.CodeUnknownType, "UnknownNodeType", "An unknown node type.", "error"},
	{dag.CodeUnknownNode, "UnknownNode", "A reference or needs entry naming no node.", "error"},
	{dag.CodeUnknownParam, "UnknownParam", "A reference to a parameter the params schema does not declare.", "error"},
	{dag.CodeCycle, "DependencyCycle", "A dependency cycle.", "error"},
	{dag.CodeDuration, "BadDuration", "A bad duration.", "error"},
	{dag.CodeExpr, "BadExpression", "An expression that does not compile.", "error"},
	{dag.CodeSchema, "InvalidSchema", "An invalid JSON Schema.", "error"},
	{dag.CodeSchemaMissing, "SchemaFileMissing", "A schema file that does not exist.", "error"},
	{dag.CodeRemoteRef, "RemoteRef", "A remote schema or $ref, refused.", "error"},
	{dag.CodeInvalid, "InvalidValue", "A value of the wrong shape.", "error"},
	{dag.CodeConfig, "InvalidConfig", "A node's with that breaks its type's configuration.", "error"},
	{dag.CodeVersion, "UnsupportedVersion", "An unsupported version.", "error"},
	{dag.CodeDuplicateKey, "DuplicateKey", "A mapping key written twice.", "error"},
	{dag.CodeUndeclaredEnv, "UndeclaredEnv", "env.NAME where the DAG does not declare NAME under env.", "error"},
	{dag.CodeSubDAG, "SubDAGNotLoaded", "A dag node's file that cannot be read or does not load.", "error"},
	{codeUnreadable, "UnreadableFile", "A DAG file that cannot be read.", "error"},
	{dag.CodeLimit, "BeyondLimits", "A schema or number beyond seam's limits.", "error"},
}, findingRules()...)

// findingRules are lint's rules as SARIF describes them.
func findingRules() []lintRule {
	var rs []lintRule
	for _, r := range lint.Rules() {
		rs = append(rs, lintRule{code: r.Code, name: r.Name, text: r.Doc, level: r.Severity})
	}
	return rs
}

// docsURL is where each code is documented; SARIF viewers link rules there.
const docsURL = "https://github.com/seam-dag/seam/blob/main/docs/errors.md#"

// SARIF 2.1.0, the parts seam writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region *sarifRegion `json:"region,omitempty"`
		} `json:"physicalLocation"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
)

// printLintSARIF writes the findings as one SARIF 2.1.0 log, for code scanning.
func printLintSARIF(w io.Writer, fs []lint.Finding) error {
	drv := sarifDriver{Name: "seam", InformationURI: "https://github.com/seam-dag/seam"}
	index := map[string]int{}
	for i, r := range lintRules {
		sr := sarifRule{ID: r.code, Name: r.name, ShortDescription: sarifMessage{r.text}, HelpURI: docsURL + strings.ToLower(r.code)}
		sr.DefaultConfiguration.Level = r.level
		drv.Rules = append(drv.Rules, sr)
		index[r.code] = i
	}
	results := make([]sarifResult, 0, len(fs))
	for _, f := range fs {
		text := findingPlain(f)
		r := sarifResult{RuleID: f.Code, RuleIndex: index[f.Code], Level: sarifLevel(f.Severity), Message: sarifMessage{text}}
		if f.Fingerprint != "" {
			// Code scanning matches results across runs by it, as the policy file does.
			r.PartialFingerprints = map[string]string{"seamGate/v1": f.Fingerprint}
		}
		if f.Pos.File != "" {
			var loc sarifLocation
			loc.PhysicalLocation.ArtifactLocation.URI = fileURI(f.Pos.File)
			if f.Pos.Line > 0 { // a file that cannot be read has no line
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Pos.Line, StartColumn: max(f.Pos.Col, 1)}
			}
			r.Locations = []sarifLocation{loc}
		}
		props := map[string]any{}
		if len(f.Producers) > 0 {
			props["producers"] = f.Producers
		}
		if f.Consumer != "" {
			props["consumer"] = f.Consumer
		}
		if f.HasWitness {
			props["witness"] = f.Witness
		}
		if f.Change != "" {
			props["change"] = f.Change
		}
		if len(props) > 0 {
			r.Properties = props
		}
		results = append(results, r)
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: drv}, Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifLevel is a severity as SARIF names it.
func sarifLevel(severity string) string {
	if severity == lint.SeverityInfo {
		return "note"
	}
	return severity
}

// fileURI is a file path as a SARIF artifact URI: relative paths stay relative (to the
// repository root code scanning resolves them against), with forward slashes.
func fileURI(p string) string {
	slash := filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: slash}).String()
	}
	return (&url.URL{Path: slash}).String()
}

// printLintGitHub writes one GitHub Actions workflow command per finding, which the runner
// turns into an annotation on the file and line.
func printLintGitHub(w io.Writer, fs []lint.Finding) error {
	for _, f := range fs {
		text := findingPlain(f)
		var props []string
		if f.Pos.File != "" {
			props = append(props, "file="+ghProperty(filepath.ToSlash(f.Pos.File)))
			if f.Pos.Line > 0 { // a file that cannot be read has no line
				props = append(props, fmt.Sprintf("line=%d", f.Pos.Line), fmt.Sprintf("col=%d", f.Pos.Col))
			}
		}
		props = append(props, "title="+ghProperty(f.Code))
		cmd := f.Severity
		if cmd == lint.SeverityInfo {
			cmd = "notice"
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(text)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// findingPlain is a finding in plain lines, for annotations: the message, the witness, the fix.
func findingPlain(f lint.Finding) string {
	text := f.Message
	if f.HasWitness {
		text += "\nwitness: " + f.WitnessJSON()
	}
	if f.Hint != "" {
		text += "\nfix: " + f.Hint
	}
	if f.Fingerprint != "" {
		text += "\nfingerprint: " + f.Fingerprint
	}
	return text
}

// loadFindings are the errors of a DAG file that did not load (err from a workspace's Load) as error
// findings; a file that could not be read at all is one codeUnreadable finding on the file.
func loadFindings(path string, err error) []lint.Finding {
	var ds dag.Diagnostics
	if !errors.As(err, &ds) {
		return []lint.Finding{{Pos: dag.Pos{File: path}, Severity: lint.SeverityError, Code: codeUnreadable,
			Message: err.Error()}}
	}
	fs := make([]lint.Finding, len(ds))
	for i, d := range ds {
		fs[i] = lint.Finding{Pos: d.Pos, Severity: lint.SeverityError, Code: d.Code, Message: d.Message, Hint: d.Hint}
	}
	return fs
}
