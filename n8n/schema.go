package n8n

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// obj is a JSON object that keeps its keys in the order written, so that `seam types`
// documents a type's configuration in a sensible order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.k, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mustJSON encodes a schema built in this package; failing is a programming error.
func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("n8n: encode schema: %v", err))
	}
	return b
}

const draft = "https://json-schema.org/draft/2020-12/schema"

// connectionProps are the configuration keys every n8n type has; the DAG's n8n block
// supplies them as defaults.
var connectionProps = obj{
	{"url", obj{{"description", "n8n's base URL, e.g. https://n8n.example.com. Default: the DAG's n8n.url, then $N8N_URL."}, {"type", "string"}, {"minLength", 1}}},
	{"api_key_env", obj{{"description", "Name of the environment variable that holds the API key (never the key itself). Default: the DAG's n8n.api_key_env, then N8N_API_KEY."}, {"type", "string"}, {"pattern", "^[A-Za-z_][A-Za-z0-9_]*$"}}},
	{"insecure", obj{{"description", "Allow plain http:// to a host that is not loopback."}, {"type", "boolean"}, {"default", false}}},
}

// configSchema is the configuration schema of a type: its own keys, then the connection's.
func configSchema(title string, required []string, props obj) []byte {
	all := append(append(obj{}, props...), connectionProps...)
	s := obj{{"$schema", draft}, {"title", title}, {"type", "object"}}
	if len(required) > 0 {
		s = append(s, kv{"required", required})
	}
	s = append(s, kv{"additionalProperties", false}, kv{"properties", all})
	return mustJSON(s)
}

// outputSchema is the standard output contract with data described by data.
func outputSchema(title, dataDesc string, data obj) []byte {
	return mustJSON(obj{
		{"$schema", draft},
		{"title", title},
		{"type", "object"},
		{"required", []string{"status", "summary", "data"}},
		{"properties", obj{
			{"status", obj{{"type", "string"}, {"enum", []string{"pass", "warn", "fail"}}}},
			{"summary", obj{{"type", "string"}, {"minLength", 1}}},
			{"data", append(obj{{"description", dataDesc}}, data...)},
		}},
	})
}

var (
	str     = obj{{"type", "string"}}
	boolean = obj{{"type", "boolean"}}
	integer = obj{{"type", "integer"}, {"minimum", 0}}
	anyObj  = obj{{"type", "object"}}
)

func desc(d string, s obj) obj { return append(obj{{"description", d}}, s...) }

// idProp accepts a string or a number, as n8n's ids come either way.
func idProp(d string) obj {
	return obj{{"description", d}, {"type", []string{"string", "integer"}}, {"minLength", 1}}
}

func limitProp() obj {
	return obj{{"description", "Items per page (n8n's default 100)."}, {"type", "integer"}, {"minimum", 1}, {"maximum", 250}}
}

// workflowSummarySchema describes a workflow as the list output shows it.
var workflowSummarySchema = obj{
	{"type", "object"},
	{"required", []string{"id", "name", "active", "nodeCount", "tags"}},
	{"properties", obj{
		{"id", str},
		{"name", str},
		{"active", boolean},
		{"nodeCount", integer},
		{"tags", obj{{"type", "array"}, {"items", str}}},
		{"createdAt", str},
		{"updatedAt", str},
	}},
}

// forceProp is create and update's override of the validation gate.
var forceProp = desc("Write the workflow even when the runtime validation finds errors; the output records that it was forced.",
	obj{{"type", "boolean"}, {"default", false}})

// workflowDataSchema is the data of the types that return one workflow.
var workflowDataSchema = obj{
	{"type", "object"},
	{"required", []string{"id", "name", "active", "nodeCount", "workflow"}},
	{"properties", obj{
		{"id", str},
		{"name", str},
		{"active", boolean},
		{"nodeCount", integer},
		{"tags", obj{{"type", "array"}, {"items", str}}},
		{"validation", desc("What create and update's runtime validation found before writing.", obj{
			{"type", "object"},
			{"properties", obj{{"valid", boolean}, {"forced", boolean}, {"errors", integer}, {"warnings", integer}}},
		})},
		{"workflow", desc("The workflow as n8n returns it.", obj{
			{"type", "object"},
			{"required", []string{"id", "name", "nodes", "connections"}},
			{"properties", obj{
				{"id", str}, {"name", str}, {"active", boolean},
				{"nodes", obj{{"type", "array"}, {"items", anyObj}}},
				{"connections", anyObj},
				{"settings", anyObj},
			}},
		})},
	}},
}

// executionProps are the properties of an execution in outputs.
var executionProps = obj{
	{"id", str},
	{"workflowId", str},
	{"workflowName", desc("The workflow's name; absent when n8n no longer has the workflow.", str)},
	{"status", desc("n8n's status: success, error, crashed, canceled, running, waiting, new, unknown…", str)},
	{"mode", desc("What started it: webhook, trigger, manual, retry…", str)},
	{"finished", boolean},
	{"startedAt", str},
	{"stoppedAt", str},
	{"executionTime", desc("stoppedAt − startedAt in milliseconds; absent while it runs.", integer)},
	{"retryOf", desc("The execution this one retried.", str)},
	{"retrySuccessId", desc("The retry of this one that succeeded.", str)},
	{"lastNode", desc("With includeData: the node that ran last.", str)},
	{"error", desc("n8n's error message when it failed (in lists, with includeData).", str)},
	{"items", desc("With includeData: the json of the items the last node emitted.", obj{{"type", "array"}})},
	{"executionData", desc("With includeData: the execution's data as n8n returns it.", anyObj)},
}

// executionSchema describes one execution in outputs.
var executionSchema = obj{
	{"type", "object"},
	{"required", []string{"id", "workflowId", "status", "mode", "finished"}},
	{"properties", executionProps},
}

// nodeExecutionSchema describes what one node did in an execution.
var nodeExecutionSchema = obj{
	{"type", "object"},
	{"required", []string{"nodeName", "status", "executionTime", "hasData", "itemCount", "runs"}},
	{"properties", obj{
		{"nodeName", str},
		{"nodeId", str},
		{"nodeType", str},
		{"status", desc("n8n's status of its last run (error when one failed).", str)},
		{"executionTime", desc("Milliseconds, all runs together.", integer)},
		{"startTime", str},
		{"endTime", str},
		{"error", str},
		{"hasData", boolean},
		{"itemCount", desc("Items on all its outputs, all runs together.", integer)},
		{"runs", integer},
	}},
}

// executionDetailSchema describes the execution n8n.executions.get returns.
var executionDetailSchema = obj{
	{"type", "object"},
	{"required", []string{"id", "workflowId", "status", "mode", "finished", "nodeExecutions"}},
	{"properties", append(slices.Clone(executionProps),
		kv{"errorNode", desc("The node that failed.", str)},
		kv{"nodeExecutions", desc("Every node that ran, in the order they started.", obj{{"type", "array"}, {"items", nodeExecutionSchema}})},
		kv{"settings", desc("The workflow's settings.", anyObj)},
	)},
}
