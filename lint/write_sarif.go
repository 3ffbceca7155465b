package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/dag"
)

// sarifRules are every code seam lint reports, in code order, as SARIF describes them: the
// load errors of files that do not load, then the rule table's.
func sarifRules() []Rule {
	load := []Rule{
		{dag.CodeYAML, "YAMLSyntax", SeverityError, "The file is not valid YAML.", ""},
		{dag.CodeUnknownKey, "UnknownKey", SeverityError, "A key the DAG format does not have.", ""},
		{dag.CodeDuplicateNode, "DuplicateNode", SeverityError, "A node id written twice.", ""},
		{dag.CodeBadID, "BadNodeID", SeverityError, "A node id that is not [a-z][a-z0-9_-]*.", ""},
		{dag.CodeUnknownType, "UnknownNodeType", SeverityError, "An unknown node type.", ""},
		{dag.CodeUnknownNode, "UnknownNode", SeverityError, "A reference or needs entry naming no node.", ""},
		{dag.CodeUnknownParam, "UnknownParam", SeverityError, "A reference to a parameter the params schema does not declare.", ""},
		{dag.CodeCycle, "DependencyCycle", SeverityError, "A dependency cycle.", ""},
		{dag.CodeDuration, "BadDuration", SeverityError, "A bad duration.", ""},
		{dag.CodeExpr, "BadExpression", SeverityError, "An expression that does not compile.", ""},
		{dag.CodeSchema, "InvalidSchema", SeverityError, "An invalid JSON Schema.", ""},
		{dag.CodeSchemaMissing, "SchemaFileMissing", SeverityError, "A schema file that does not exist.", ""},
		{dag.CodeRemoteRef, "RemoteRef", SeverityError, "A remote schema or $ref, refused.", ""},
		{dag.CodeInvalid, "InvalidValue", SeverityError, "A value of the wrong shape.", ""},
		{dag.CodeConfig, "InvalidConfig", SeverityError, "A node's with that breaks its type's configuration.", ""},
		{dag.CodeVersion, "UnsupportedVersion", SeverityError, "An unsupported version.", ""},
		{dag.CodeDuplicateKey, "DuplicateKey", SeverityError, "A mapping key written twice.", ""},
		{dag.CodeUndeclaredEnv, "UndeclaredEnv", SeverityError, "env.NAME where the DAG does not declare NAME under env.", ""},
		{dag.CodeSubDAG, "SubDAGNotLoaded", SeverityError, "A dag node's file that cannot be read or does not load.", ""},
		{CodeUnreadable, "UnreadableFile", SeverityError, "A DAG file that cannot be read.", ""},
		{dag.CodeLimit, "BeyondLimits", SeverityError, "A schema or number beyond seam's limits.", ""},
	}
	return append(load, rules[:]...)
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

// WriteSARIF writes the findings as one SARIF 2.1.0 log, for code scanning.
func WriteSARIF(w io.Writer, fs []Finding) error {
	drv := sarifDriver{Name: "seam", InformationURI: "https://github.com/seam-dag/seam"}
	index := map[string]int{}
	for i, r := range sarifRules() {
		sr := sarifRule{ID: r.Code, Name: r.Name, ShortDescription: sarifMessage{r.Doc}, HelpURI: docsURL + strings.ToLower(r.Code)}
		sr.DefaultConfiguration.Level = r.Severity
		drv.Rules = append(drv.Rules, sr)
		index[r.Code] = i
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
	if severity == SeverityInfo {
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
