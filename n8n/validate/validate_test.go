package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/catalog"
)

// cat is loaded once for the package's tests, as a process would.
var testLoader catalog.Loader

func testCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := testLoader.Get()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Shorthands for building workflows in tests.
const (
	B = "n8n-nodes-base."
	L = "@n8n/n8n-nodes-langchain."
)

type obj = map[string]any

func nd(name, typ string, version float64, params obj, extra ...obj) obj {
	n := obj{"id": "id-" + name, "name": name, "type": typ, "typeVersion": version, "position": []any{0.0, 0.0}, "parameters": params}
	for _, e := range extra {
		for k, v := range e {
			n[k] = v
		}
	}
	return n
}

func to(node string, index int) obj {
	return obj{"node": node, "type": "main", "index": float64(index)}
}

func ai(t, node string) obj { return obj{t: []any{[]any{obj{"node": node, "type": t, "index": 0.0}}}} }

// main builds {"main": [[targets of output 0], [targets of output 1], ...]}.
func mainOut(outputs ...[]obj) obj {
	var slots []any
	for _, o := range outputs {
		var ts []any
		for _, t := range o {
			ts = append(ts, t)
		}
		if ts == nil {
			ts = []any{}
		}
		slots = append(slots, ts)
	}
	return obj{"main": slots}
}

func out(ts ...obj) []obj { return ts }

func workflow(nodes []obj, conns obj) obj {
	ns := make([]any, len(nodes))
	for i, n := range nodes {
		ns[i] = n
	}
	return roundTrip(obj{"name": "test", "nodes": ns, "connections": conns})
}

// roundTrip makes the value what JSON decoding gives (float64 numbers, []any).
func roundTrip(v obj) obj {
	b, _ := json.Marshal(v)
	var m obj
	_ = json.Unmarshal(b, &m)
	return m
}

var (
	trigger = nd("Start", B+"manualTrigger", 1, obj{})
	noop    = func(name string) obj { return nd(name, B+"noOp", 1, obj{}) }
	webhook = func(mode string) obj {
		return nd("Webhook", B+"webhook", 2, obj{"httpMethod": "POST", "path": "p", "responseMode": mode, "options": obj{}})
	}
	respond = nd("Respond", B+"respondToWebhook", 1.1, obj{"respondWith": "text", "responseBody": "ok", "options": obj{}})
	model   = nd("Model", L+"lmChatOpenAi", 1.2, obj{"model": obj{"__rl": true, "mode": "list", "value": "gpt-4o-mini"}, "options": obj{}})
	agent   = func(params obj) obj { return nd("Agent", L+"agent", 2.2, params) }
	chat    = nd("Chat", L+"chatTrigger", 1.1, obj{"options": obj{}})
)

// chain is Start → A → B ... with main connections.
func chain(nodes ...obj) obj {
	all := append([]obj{trigger}, nodes...)
	conns := obj{}
	for i := 0; i+1 < len(all); i++ {
		conns[all[i]["name"].(string)] = mainOut(out(to(all[i+1]["name"].(string), 0)))
	}
	return workflow(all, conns)
}

func with(wf obj, path string, v any) obj {
	wf = roundTrip(wf)
	cur := any(wf)
	keys := strings.Split(path, "/")
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case obj:
			if last {
				c[k] = v
				return wf
			}
			cur = c[k]
		case []any:
			var idx int
			fmt.Sscan(k, &idx)
			if last {
				c[idx] = v
				return wf
			}
			cur = c[idx]
		}
	}
	return wf
}

func without(wf obj, path string) obj {
	wf = roundTrip(wf)
	keys := strings.Split(path, "/")
	cur := any(wf)
	for _, k := range keys[:len(keys)-1] {
		switch c := cur.(type) {
		case obj:
			cur = c[k]
		case []any:
			var idx int
			fmt.Sscan(k, &idx)
			cur = c[idx]
		}
	}
	delete(cur.(obj), keys[len(keys)-1])
	return wf
}

func run(t *testing.T, doc any, p Profile) *Result {
	t.Helper()
	r, err := ValidateValue(context.Background(), doc, Options{Profile: p, Catalog: testCatalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func find(r *Result, code string) *Issue {
	for _, l := range [][]Issue{r.Errors, r.Warnings} {
		for i := range l {
			if l[i].Code == code {
				return &l[i]
			}
		}
	}
	return nil
}

type checkCase struct {
	name    string
	doc     any
	profile Profile
	code    string
	want    string // "error", "warning" or "" (not reported)
	message string // a substring of the message, when set
}

func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.profile
			if p == "" {
				p = Runtime
			}
			r := run(t, tt.doc, p)
			is := find(r, tt.code)
			switch {
			case tt.want == "" && is != nil:
				t.Fatalf("%s reported: %+v", tt.code, *is)
			case tt.want != "" && is == nil:
				t.Fatalf("%s not reported; errors %+v warnings %+v", tt.code, r.Errors, r.Warnings)
			case tt.want != "" && is.Type != tt.want:
				t.Fatalf("%s is a %s, want %s: %s", tt.code, is.Type, tt.want, is.Message)
			case tt.message != "" && !strings.Contains(is.Message, tt.message):
				t.Fatalf("%s message %q lacks %q", tt.code, is.Message, tt.message)
			}
			if tt.want == "error" && r.Valid {
				t.Fatalf("valid with an error")
			}
		})
	}
}

func TestStructure(t *testing.T) {
	ok := chain(noop("A"))
	runCases(t, []checkCase{
		{"not an object", []any{}, "", "WORKFLOW_NOT_OBJECT", "error", "got array"},
		{"no nodes", obj{"connections": obj{}}, "", "NODES_MISSING", "error", ""},
		{"nodes not an array", obj{"nodes": obj{}, "connections": obj{}}, "", "NODES_MISSING", "error", ""},
		{"no connections", obj{"nodes": []any{trigger}}, "", "CONNECTIONS_MISSING", "error", "got null"},
		{"connections present", ok, "", "CONNECTIONS_MISSING", "", ""},
		{"empty workflow", obj{"nodes": []any{}, "connections": obj{}}, Minimal, "EMPTY_WORKFLOW", "error", ""},
		{"node not an object", obj{"nodes": []any{"x"}, "connections": obj{}}, "", "NODE_NOT_OBJECT", "error", "nodes[0]"},
		{"node without name", with(ok, "nodes/1/name", ""), "", "NODE_NAME_MISSING", "error", ""},
		{"node without type", with(ok, "nodes/1/type", ""), "", "NODE_TYPE_MISSING", "error", ""},
		{"duplicate names", workflow([]obj{trigger, noop("A"), noop("A")}, obj{}), Minimal, "DUPLICATE_NODE_NAME", "error", `"A"`},
		{"unique names", ok, Minimal, "DUPLICATE_NODE_NAME", "", ""},
		{"duplicate ids", with(ok, "nodes/1/id", "id-Start"), "", "DUPLICATE_NODE_ID", "error", "id-Start"},
		{"unique ids", ok, "", "DUPLICATE_NODE_ID", "", ""},
		{"long name", with(ok, "nodes/1/name", strings.Repeat("n", 129)), "", "NODE_NAME_TOO_LONG", "warning", "129"},
		{"long name, minimal", with(ok, "nodes/1/name", strings.Repeat("n", 129)), Minimal, "NODE_NAME_TOO_LONG", "", ""},
		{"position missing", without(ok, "nodes/1/position"), "", "POSITION_INVALID", "error", "nothing"},
		{"position of three", with(ok, "nodes/1/position", []any{1.0, 2.0, 3.0}), "", "POSITION_INVALID", "error", "an array"},
		{"position fine", ok, "", "POSITION_INVALID", "", ""},
		{"no trigger", workflow([]obj{noop("A"), noop("B")}, obj{"A": mainOut(out(to("B", 0)))}), "", "NO_TRIGGER", "warning", ""},
		{"trigger", ok, "", "NO_TRIGGER", "", ""},
	})
}

func TestNodes(t *testing.T) {
	ok := chain(noop("A"))
	set := func(params obj) obj { return chain(nd("Set", B+"set", 3.4, params)) }
	http := func(params obj, extra ...obj) obj { return chain(nd("HTTP", B+"httpRequest", 4.2, params, extra...)) }
	runCases(t, []checkCase{
		{"unknown type", with(ok, "nodes/1/type", B+"noOps"), Minimal, "UNKNOWN_NODE_TYPE", "error", `did you mean "n8n-nodes-base.noOp"`},
		{"known type", ok, Minimal, "UNKNOWN_NODE_TYPE", "", ""},
		{"community type", with(ok, "nodes/1/type", "n8n-nodes-acme.widget"), "", "UNKNOWN_NODE_TYPE", "", ""},
		{"missing prefix", with(ok, "nodes/1/type", "noOp"), "", "NODE_TYPE_PREFIX", "error", ""},
		{"short prefix", with(ok, "nodes/1/type", "nodes-base.noOp"), "", "NODE_TYPE_PREFIX", "error", ""},
		{"full prefix", ok, "", "NODE_TYPE_PREFIX", "", ""},
		{"typeVersion missing", without(ok, "nodes/1/typeVersion"), "", "TYPE_VERSION_MISSING", "warning", ""},
		{"typeVersion missing, strict", without(ok, "nodes/1/typeVersion"), Strict, "TYPE_VERSION_MISSING", "error", ""},
		{"typeVersion a string", with(ok, "nodes/1/typeVersion", "1"), "", "TYPE_VERSION_INVALID", "error", `"1"`},
		{"typeVersion zero", with(ok, "nodes/1/typeVersion", 0.0), "", "TYPE_VERSION_INVALID", "error", ""},
		// n8n fails to load a versioned type above its newest version, and runs a plain one.
		{"typeVersion too new", with(http(obj{"url": "https://x"}), "nodes/1/typeVersion", 9.0), Minimal, "TYPE_VERSION_TOO_NEW", "error", "above the newest"},
		{"typeVersion current", http(obj{"url": "https://x"}), "", "TYPE_VERSION_TOO_NEW", "", ""},
		{"plain type too new", with(ok, "nodes/1/typeVersion", 3.0), "", "TYPE_VERSION_ABOVE_KNOWN", "warning", "runs its only version"},
		{"plain type too new, strict", with(ok, "nodes/1/typeVersion", 3.0), Strict, "TYPE_VERSION_ABOVE_KNOWN", "error", ""},
		{"typeVersion unknown", http(obj{"url": "https://x"}), "", "TYPE_VERSION_UNKNOWN", "", ""},
		{"typeVersion between", with(http(obj{"url": "https://x"}), "nodes/1/typeVersion", 4.15), "", "TYPE_VERSION_UNKNOWN", "error", "4.1, 4.2"},
		{"typeVersion outdated, ai-friendly", http(obj{"url": "https://x"}), AIFriendly, "TYPE_VERSION_OUTDATED", "warning", ""},
		{"typeVersion outdated, runtime", http(obj{"url": "https://x"}), "", "TYPE_VERSION_OUTDATED", "", ""},
		{"parameters a string", with(ok, "nodes/1/parameters", "x"), "", "PARAMETERS_NOT_OBJECT", "error", ""},
		{"required missing", http(obj{}), "", "REQUIRED_PARAMETER_MISSING", "error", `"url"`},
		{"required set", http(obj{"url": "https://x"}), "", "REQUIRED_PARAMETER_MISSING", "", ""},
		{"required set by expression", http(obj{"url": "={{ $json.u }}"}), "", "REQUIRED_PARAMETER_MISSING", "", ""},
		{"required, minimal", http(obj{}), Minimal, "REQUIRED_PARAMETER_MISSING", "", ""},
		// nodeCredentialType is required only when authentication is predefinedCredentialType.
		{"required when shown", http(obj{"url": "https://x", "authentication": "predefinedCredentialType"}), "", "REQUIRED_PARAMETER_MISSING", "error", "nodeCredentialType"},
		{"required hidden", http(obj{"url": "https://x", "authentication": "none"}), "", "REQUIRED_PARAMETER_MISSING", "", ""},
		{"shown by expression", http(obj{"url": "https://x", "authentication": "={{ 'predefinedCredentialType' }}"}), "", "REQUIRED_PARAMETER_MISSING", "", ""},
		// n8n ran method "get" in our test against the real server: a warning, not an error.
		{"option value", http(obj{"url": "https://x", "method": "get"}), "", "INVALID_OPTION_VALUE", "warning", `"get"`},
		{"option value, strict", http(obj{"url": "https://x", "method": "get"}), Strict, "INVALID_OPTION_VALUE", "error", `"get"`},
		{"unknown operation", chain(nd("Slack", B+"slack", 2.3, obj{"operation": "shout", "text": "x"}, obj{"credentials": obj{"slackApi": obj{"id": "1", "name": "S"}}})), "", "INVALID_OPERATION", "error", `"shout"`},
		{"known operation", chain(nd("Slack", B+"slack", 2.3, obj{"operation": "post", "select": "channel", "channelId": obj{"__rl": true, "mode": "id", "value": "C1"}, "text": "x", "otherOptions": obj{}}, obj{"credentials": obj{"slackApi": obj{"id": "1", "name": "S"}}})), "", "INVALID_OPERATION", "", ""},
		{"option value fine", http(obj{"url": "https://x", "method": "GET"}), "", "INVALID_OPTION_VALUE", "", ""},
		{"option by expression", http(obj{"url": "https://x", "method": "={{ $json.m }}"}), "", "INVALID_OPTION_VALUE", "", ""},
		{"nested option value", set(obj{"mode": "manual", "assignments": obj{"assignments": []any{}}, "options": obj{}, "duplicateItem": false, "includeOtherFields": true, "include": "everything"}), Strict, "INVALID_OPTION_VALUE", "error", "include"},
		// Switch v3 rules are under rules.values (n8n-mcp read rules.rules, #1097): they are checked.
		{"switch operator a string", chain(nd("Switch", B+"switch", 3.2, obj{"rules": obj{"values": []any{obj{"conditions": obj{"conditions": []any{obj{"leftValue": "={{ $json.a }}", "rightValue": "x", "operator": "equals"}}, "combinator": "and", "options": obj{}}}}}, "options": obj{}})), "", "FILTER_OPERATOR_INVALID", "error", `rules.values[].conditions.conditions[0].operator is "equals"`},
		{"switch operator fine", chain(nd("Switch", B+"switch", 3.2, obj{"rules": obj{"values": []any{obj{"conditions": obj{"conditions": []any{obj{"leftValue": "={{ $json.a }}", "rightValue": "x", "operator": obj{"type": "string", "operation": "equals"}}}, "combinator": "and", "options": obj{}}}}}, "options": obj{}})), "", "FILTER_OPERATOR_INVALID", "", ""},
		{"IF operator type", chain(nd("IF", B+"if", 2.2, obj{"conditions": obj{"conditions": []any{obj{"leftValue": "={{ $json.a }}", "rightValue": "", "operator": obj{"type": "text", "operation": "exists"}}}, "combinator": "and", "options": obj{}}, "options": obj{}})), "", "FILTER_OPERATOR_INVALID", "error", `has type "text"`},
		{"setting in parameters", http(obj{"url": "https://x", "onError": "continueRegularOutput"}), "", "NODE_SETTING_IN_PARAMETERS", "warning", "onError"},
		{"setting in parameters, strict", http(obj{"url": "https://x", "retryOnFail": true}), Strict, "NODE_SETTING_IN_PARAMETERS", "error", "retryOnFail"},
		{"setting at node level", http(obj{"url": "https://x"}, obj{"onError": "continueRegularOutput"}), Strict, "NODE_SETTING_IN_PARAMETERS", "", ""},
		{"onError invalid", http(obj{"url": "https://x"}, obj{"onError": "continue"}), Minimal, "INVALID_ON_ERROR", "error", `"continue"`},
		{"onError valid", http(obj{"url": "https://x"}, obj{"onError": "stopWorkflow"}), "", "INVALID_ON_ERROR", "", ""},
		{"retryOnFail not bool", http(obj{"url": "https://x"}, obj{"retryOnFail": "yes"}), "", "INVALID_NODE_SETTING", "error", "retryOnFail"},
		{"maxTries not a number", http(obj{"url": "https://x"}, obj{"maxTries": "3"}), "", "INVALID_NODE_SETTING", "error", "maxTries"},
		{"maxTries too high", http(obj{"url": "https://x"}, obj{"retryOnFail": true, "maxTries": 10.0}), "", "RETRY_SETTING_RANGE", "warning", "2 to 5"},
		{"maxTries fine", http(obj{"url": "https://x"}, obj{"retryOnFail": true, "maxTries": 3.0}), "", "RETRY_SETTING_RANGE", "", ""},
		{"credential without id", http(obj{"url": "https://x", "authentication": "predefinedCredentialType", "nodeCredentialType": "githubApi"}, obj{"credentials": obj{"githubApi": obj{"name": "GitHub"}}}), Strict, "CREDENTIALS_WITHOUT_ID", "error", "githubApi"},
		{"credential with id", http(obj{"url": "https://x"}, obj{"credentials": obj{"githubApi": obj{"id": "7", "name": "GitHub"}}}), Strict, "CREDENTIALS_WITHOUT_ID", "", ""},
		{"credentials missing", chain(nd("Slack", B+"slack", 2.3, obj{"select": "channel", "channelId": obj{"__rl": true, "mode": "id", "value": "C1"}, "text": "hi", "otherOptions": obj{}})), "", "CREDENTIALS_MISSING", "error", "slackApi"},
		{"credentials set", chain(nd("Slack", B+"slack", 2.3, obj{"select": "channel", "channelId": obj{"__rl": true, "mode": "id", "value": "C1"}, "text": "hi", "otherOptions": obj{}}, obj{"credentials": obj{"slackApi": obj{"id": "1", "name": "Slack"}}})), "", "CREDENTIALS_MISSING", "", ""},
		{"credentials missing, minimal", chain(nd("Slack", B+"slack", 2.3, obj{"select": "channel", "channelId": obj{"__rl": true, "mode": "id", "value": "C1"}, "text": "hi", "otherOptions": obj{}})), Minimal, "CREDENTIALS_MISSING", "", ""},
	})
}

func TestConnections(t *testing.T) {
	ifNode := nd("IF", B+"if", 2.2, obj{"conditions": obj{"conditions": []any{}, "combinator": "and", "options": obj{}}, "options": obj{}})
	ifWF := func(outs ...[]obj) obj {
		return workflow([]obj{trigger, ifNode, noop("T"), noop("F")}, obj{"Start": mainOut(out(to("IF", 0))), "IF": mainOut(outs...)})
	}
	sw := func(rules int, fallback string, outs ...[]obj) obj {
		var vals []any
		for i := 0; i < rules; i++ {
			vals = append(vals, obj{"conditions": obj{"conditions": []any{}, "combinator": "and", "options": obj{}}})
		}
		opts := obj{}
		if fallback != "" {
			opts["fallbackOutput"] = fallback
		}
		return workflow([]obj{trigger, nd("Switch", B+"switch", 3.2, obj{"rules": obj{"values": vals}, "options": opts}), noop("A"), noop("B"), noop("C")},
			obj{"Start": mainOut(out(to("Switch", 0))), "Switch": mainOut(outs...)})
	}
	loop := func(version float64, outs ...[]obj) obj {
		return workflow([]obj{trigger, nd("Loop", B+"splitInBatches", version, obj{"options": obj{}}), noop("Body"), noop("After")},
			obj{"Start": mainOut(out(to("Loop", 0))), "Loop": mainOut(outs...), "Body": mainOut(out(to("Loop", 0)))})
	}
	merge := func(inputs float64, idx int) obj {
		p := obj{}
		if inputs > 0 {
			p["numberInputs"] = inputs
		}
		return workflow([]obj{trigger, noop("A"), nd("Merge", B+"merge", 3.2, p)},
			obj{"Start": mainOut(out(to("A", 0), to("Merge", 0))), "A": mainOut(out(to("Merge", idx)))})
	}
	code := func(onError string, outs ...[]obj) obj {
		extra := obj{}
		if onError != "" {
			extra["onError"] = onError
		}
		return workflow([]obj{trigger, nd("Code", B+"code", 2, obj{"jsCode": "return $input.all();"}, extra), noop("OK"), noop("Err")},
			obj{"Start": mainOut(out(to("Code", 0))), "Code": mainOut(outs...)})
	}
	agentWF := func(conns obj) obj {
		base := obj{"Chat": mainOut(out(to("Agent", 0))), "Model": ai("ai_languageModel", "Agent")}
		for k, v := range conns {
			base[k] = v
		}
		return workflow([]obj{chat, agent(obj{"options": obj{"systemMessage": "be brief"}}), model, nd("Memory", L+"memoryBufferWindow", 1.3, obj{})}, base)
	}
	runCases(t, []checkCase{
		{"unknown source", with(chain(noop("A")), "connections/Ghost", mainOut(out(to("A", 0)))), Minimal, "CONNECTION_SOURCE_UNKNOWN", "error", `"Ghost"`},
		{"source by id", with(chain(noop("A")), "connections/id-A", mainOut(out(to("Start", 0)))), "", "CONNECTION_SOURCE_IS_ID", "error", "id-A"},
		{"unknown target", chain(noop("A")), "", "CONNECTION_TARGET_UNKNOWN", "", ""},
		{"target missing", with(chain(noop("A")), "connections/Start", mainOut(out(to("Nope", 0)))), "", "CONNECTION_TARGET_UNKNOWN", "error", `"Nope"`},
		{"target by id", with(chain(noop("A")), "connections/Start", mainOut(out(to("id-A", 0)))), "", "CONNECTION_TARGET_IS_ID", "error", "id-A"},
		{"malformed outputs", with(chain(noop("A")), "connections/Start", obj{"main": "A"}), "", "CONNECTION_MALFORMED", "error", "array of outputs"},
		{"malformed index", with(chain(noop("A")), "connections/Start", obj{"main": []any{[]any{obj{"node": "A", "type": "main", "index": -1.0}}}}), "", "CONNECTION_MALFORMED", "error", "index"},
		{"unknown key", with(chain(noop("A")), "connections/Start", obj{"0": []any{[]any{to("A", 0)}}}), "", "UNKNOWN_CONNECTION_KEY", "error", `"0"`},
		{"type mismatch", with(chain(noop("A")), "connections/Start", obj{"main": []any{[]any{obj{"node": "A", "type": "0", "index": 0.0}}}}), "", "CONNECTION_TYPE_MISMATCH", "error", ""},
		{"IF two outputs", ifWF(out(to("T", 0)), out(to("F", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"IF third output", ifWF(out(to("T", 0)), out(), out(), out(to("F", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "error", "output 3"},
		// Filter lists one output but names two (Kept, Discarded): index 1 is not reported.
		{"Filter discarded output", workflow([]obj{trigger, nd("Filter", B+"filter", 2.2, obj{"conditions": obj{"conditions": []any{}, "combinator": "and", "options": obj{}}, "options": obj{}}), noop("T"), noop("F")},
			obj{"Start": mainOut(out(to("Filter", 0))), "Filter": mainOut(out(to("T", 0)), out(to("F", 0)))}), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"IF empty third slot", ifWF(out(to("T", 0)), out(to("F", 0)), out()), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"Switch rules + fallback", sw(2, "extra", out(to("A", 0)), out(to("B", 0)), out(to("C", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"Switch without fallback", sw(1, "", out(to("A", 0)), out(), out(to("C", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "error", "1 main output"},
		{"Switch fallback index", sw(1, "", out(to("A", 0)), out(to("C", 0))), "", "ERROR_OUTPUT_WITHOUT_ON_ERROR", "warning", ""},
		{"SplitInBatches v3 done, loop", loop(3, out(to("After", 0)), out(to("Body", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"SplitInBatches v2 loop, done", loop(2, out(to("Body", 0)), out(to("After", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"SplitInBatches v1 one output", loop(1, out(to("Body", 0)), out(), out(to("After", 0))), "", "OUTPUT_INDEX_OUT_OF_RANGE", "error", ""},
		{"Merge default two inputs", merge(0, 1), "", "INPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"Merge third input of two", merge(0, 2), "", "INPUT_INDEX_OUT_OF_RANGE", "error", "arrives at input 2"},
		{"Merge of four", merge(4, 3), "", "INPUT_INDEX_OUT_OF_RANGE", "", ""},
		{"error output wired", code("continueErrorOutput", out(to("OK", 0)), out(to("Err", 0))), "", "ERROR_OUTPUT_UNCONNECTED", "", ""},
		{"error output not wired", code("continueErrorOutput", out(to("OK", 0), to("Err", 0))), "", "ERROR_OUTPUT_UNCONNECTED", "warning", "main[1]"},
		{"error slot without onError", code("", out(to("OK", 0)), out(to("Err", 0))), "", "ERROR_OUTPUT_WITHOUT_ON_ERROR", "warning", "main[1]"},
		{"error slot with onError", code("continueErrorOutput", out(to("OK", 0)), out(to("Err", 0))), "", "ERROR_OUTPUT_WITHOUT_ON_ERROR", "", ""},
		{"model through main", with(agentWF(nil), "connections/Model", mainOut(out(to("Agent", 0)))), "", "SOURCE_HAS_NO_OUTPUT_TYPE", "error", "no main output"},
		{"main into a sub-node", with(agentWF(nil), "connections/Chat", mainOut(out(to("Agent", 0), to("Memory", 0)))), "", "TARGET_HAS_NO_INPUT_TYPE", "error", ""},
		{"memory as memory", agentWF(obj{"Memory": ai("ai_memory", "Agent")}), "", "TARGET_HAS_NO_INPUT_TYPE", "", ""},
		{"memory as a tool", agentWF(obj{"Memory": obj{"ai_tool": []any{[]any{obj{"node": "Agent", "type": "ai_tool", "index": 0.0}}}}}), "", "SOURCE_HAS_NO_OUTPUT_TYPE", "error", "ai_tool"},
		{"ai into a plain node", workflow([]obj{trigger, model, noop("A")}, obj{"Start": mainOut(out(to("A", 0))), "Model": ai("ai_languageModel", "A")}), "", "TARGET_HAS_NO_INPUT_TYPE", "error", "ai_languageModel"},
		{"chain without model", workflow([]obj{trigger, nd("Chain", L+"chainSummarization", 1, obj{})}, obj{"Start": mainOut(out(to("Chain", 0)))}), "", "REQUIRED_INPUT_MISSING", "error", "ai_languageModel"},
		{"two models into a chain", workflow([]obj{trigger, nd("Chain", L+"chainRetrievalQa", 1.3, obj{}), model, nd("Model2", L+"lmChatOpenAi", 1.2, obj{"model": obj{"__rl": true, "mode": "list", "value": "x"}})},
			obj{"Start": mainOut(out(to("Chain", 0))), "Model": ai("ai_languageModel", "Chain"), "Model2": ai("ai_languageModel", "Chain")}), "", "TOO_MANY_CONNECTIONS", "error", "at most 1"},
		{"unreachable", workflow([]obj{trigger, noop("A"), noop("B"), noop("C")}, obj{"Start": mainOut(out(to("A", 0))), "B": mainOut(out(to("C", 0)))}), "", "UNREACHABLE_NODE", "warning", ""},
		{"reachable, sub-nodes too", agentWF(obj{"Memory": ai("ai_memory", "Agent")}), "", "UNREACHABLE_NODE", "", ""},
		{"disconnected", workflow([]obj{trigger, noop("A"), noop("B")}, obj{"Start": mainOut(out(to("A", 0)))}), "", "DISCONNECTED_NODE", "warning", ""},
		// An empty connection key does not connect its node (#1101).
		{"empty slots connect nothing", workflow([]obj{trigger, noop("A"), noop("B")}, obj{"Start": mainOut(out(to("A", 0))), "B": obj{"main": []any{[]any{}}}}), "", "DISCONNECTED_NODE", "warning", ""},
		{"cycle without exit", workflow([]obj{trigger, noop("A"), noop("B")}, obj{"Start": mainOut(out(to("A", 0))), "A": mainOut(out(to("B", 0))), "B": mainOut(out(to("A", 0)))}), Strict, "CYCLE_WITHOUT_EXIT", "error", `"A", "B"`},
		{"cycle through IF", workflow([]obj{trigger, ifNode, noop("B"), noop("Out")}, obj{"Start": mainOut(out(to("IF", 0))), "IF": mainOut(out(to("B", 0)), out(to("Out", 0))), "B": mainOut(out(to("IF", 0)))}), Strict, "CYCLE_WITHOUT_EXIT", "", ""},
		{"loop through SplitInBatches", loop(3, out(to("After", 0)), out(to("Body", 0))), Strict, "CYCLE_WITHOUT_EXIT", "", ""},
	})
}

func TestExpressions(t *testing.T) {
	set := func(v string) obj {
		return chain(nd("Set", B+"set", 3.4, obj{"assignments": obj{"assignments": []any{obj{"id": "1", "name": "x", "value": v, "type": "string"}}}, "options": obj{}}))
	}
	code := func(js string) obj { return chain(nd("Code", B+"code", 2, obj{"jsCode": js})) }
	runCases(t, []checkCase{
		{"fine", set("={{ $json.a }}"), "", "EXPRESSION_UNCLOSED", "", ""},
		{"unclosed", set("={{ $json.a "), "", "EXPRESSION_UNCLOSED", "error", "assignments.assignments[0].value"},
		{"nested", set("={{ $json.a {{ $json.b }} }}"), "", "EXPRESSION_NESTED", "error", ""},
		// Text around expressions is fine: "=https://x/{{ $json.id }}" (n8n-mcp #361 calls it nested).
		{"text and expressions", set("=https://x/{{ $json.id }}/{{ $json.v }}"), "", "EXPRESSION_NESTED", "", ""},
		{"empty", set("={{ }}"), "", "EXPRESSION_EMPTY", "warning", ""},
		{"unbalanced by }}", set("={{ {a: {b: 1}} }}"), "", "EXPRESSION_UNBALANCED", "error", "{a: {b: 1"},
		{"balanced with a space", set("={{ {a: {b: 1} } }}"), "", "EXPRESSION_UNBALANCED", "", ""},
		{"braces in strings", set("={{ $json.a + '}' + \"(\" }}"), "", "EXPRESSION_UNBALANCED", "", ""},
		{"missing parenthesis", set("={{ $json.a.trim( }}"), "", "EXPRESSION_UNBALANCED", "error", ""},
		// A regular expression literal's brackets are not read: not reported.
		{"regex literal", set("={{ $json.a.replace(/[(]/g, '') }}"), "", "EXPRESSION_UNBALANCED", "", ""},
		{"missing =", set("{{ $json.a }}"), "", "EXPRESSION_MISSING_EQUALS", "warning", ""},
		{"literal braces", set("Hello {{name}}"), "", "EXPRESSION_MISSING_EQUALS", "", ""},
		{"missing node $node", set(`={{ $node["Ghost"].json.a }}`), "", "EXPRESSION_UNKNOWN_NODE", "error", `"Ghost"`},
		{"missing node $()", set(`={{ $('Ghost').item.json.a }}`), "", "EXPRESSION_UNKNOWN_NODE", "error", `"Ghost"`},
		{"missing node $items", set(`={{ $items("Ghost")[0].json.a }}`), "", "EXPRESSION_UNKNOWN_NODE", "error", `"Ghost"`},
		{"existing node", set(`={{ $('Start').item.json.a + $node["Start"].json.b }}`), "", "EXPRESSION_UNKNOWN_NODE", "", ""},
		{"dynamic name", set("={{ $('Sta' + 'rt').item.json.a }}"), "", "EXPRESSION_UNKNOWN_NODE", "", ""},
		{"code with a missing node", code("return $('Ghost').all();"), "", "CODE_UNKNOWN_NODE", "warning", `"Ghost"`},
		// $input and $('X') in code are fine (n8n-mcp #294).
		{"code with $input and $()", code("const a = $input.first().json; return $('Start').all();"), "", "CODE_UNKNOWN_NODE", "", ""},
		{"code braces not expressions", code("const o = {a: {b: 1}}; return [{json: o}];"), "", "EXPRESSION_UNBALANCED", "", ""},
		{"$json without input", workflow([]obj{trigger, nd("Set", B+"set", 3.4, obj{"assignments": obj{"assignments": []any{obj{"id": "1", "name": "x", "value": "={{ $json.a }}", "type": "string"}}}, "options": obj{}})}, obj{}), "", "JSON_WITHOUT_INPUT", "warning", ""},
		{"$json with input", set("={{ $json.a }}"), "", "JSON_WITHOUT_INPUT", "", ""},
	})
}

func TestPatterns(t *testing.T) {
	wh := func(mode string, withRespond bool) obj {
		nodes := []obj{webhook(mode), noop("A")}
		conns := obj{"Webhook": mainOut(out(to("A", 0)))}
		if withRespond {
			nodes = append(nodes, respond)
			conns["A"] = mainOut(out(to("Respond", 0)))
		}
		return workflow(nodes, conns)
	}
	runCases(t, []checkCase{
		{"responseNode without respond", wh("responseNode", false), "", "WEBHOOK_RESPONSE_NODE_MISSING", "error", ""},
		{"responseNode with respond", wh("responseNode", true), "", "WEBHOOK_RESPONSE_NODE_MISSING", "", ""},
		{"respond unused", wh("onReceived", true), "", "RESPOND_TO_WEBHOOK_UNUSED", "error", `"onReceived"`},
		{"respond used", wh("responseNode", true), "", "RESPOND_TO_WEBHOOK_UNUSED", "", ""},
		// A Respond to Webhook next to a side effect on main[0] is right (n8n-mcp #1111).
		{"respond fan-out", workflow([]obj{webhook("responseNode"), noop("Prepare"), respond, noop("Save")},
			obj{"Webhook": mainOut(out(to("Prepare", 0))), "Prepare": mainOut(out(to("Respond", 0), to("Save", 0)))}), Strict, "", "", ""},
		{"no error handling, ai-friendly", chain(noop("A"), noop("B")), AIFriendly, "NO_ERROR_HANDLING", "warning", ""},
		{"no error handling, runtime", chain(noop("A"), noop("B")), "", "NO_ERROR_HANDLING", "", ""},
		{"error workflow set", with(chain(noop("A"), noop("B")), "settings", obj{"errorWorkflow": "12"}), AIFriendly, "NO_ERROR_HANDLING", "", ""},
	})
}

func TestRespondFanOutIsValid(t *testing.T) {
	r := run(t, workflow([]obj{webhook("responseNode"), noop("Prepare"), respond, noop("Save")},
		obj{"Webhook": mainOut(out(to("Prepare", 0))), "Prepare": mainOut(out(to("Respond", 0), to("Save", 0)))}), Strict)
	if !r.Valid {
		t.Fatalf("errors: %+v", r.Errors)
	}
}

func TestAgents(t *testing.T) {
	wf := func(params obj, conns obj, extra ...obj) obj {
		nodes := append([]obj{chat, agent(params), model}, extra...)
		base := obj{"Chat": mainOut(out(to("Agent", 0))), "Model": ai("ai_languageModel", "Agent")}
		for k, v := range conns {
			base[k] = v
		}
		return workflow(nodes, base)
	}
	sys := obj{"options": obj{"systemMessage": "You answer questions about orders."}}
	memory := func(name string) obj { return nd(name, L+"memoryBufferWindow", 1.3, obj{}) }
	model2 := nd("Model2", L+"lmChatOpenAi", 1.2, obj{"model": obj{"__rl": true, "mode": "list", "value": "x"}})
	toolCode := func(desc string) obj {
		return nd("Tool", L+"toolCode", 1.3, obj{"description": desc, "jsCode": "return 'x';"})
	}
	runCases(t, []checkCase{
		{"model", wf(sys, nil), "", "AI_LANGUAGE_MODEL_MISSING", "", ""},
		{"no model", wf(sys, obj{"Model": obj{}}), "", "AI_LANGUAGE_MODEL_MISSING", "error", "AI Agent"},
		{"two models", wf(sys, obj{"Model2": ai("ai_languageModel", "Agent")}, model2), "", "AI_TOO_MANY_LANGUAGE_MODELS", "error", "2 language models"},
		{"two models with fallback", wf(obj{"needsFallback": true, "options": sys["options"]}, obj{"Model2": obj{"ai_languageModel": []any{[]any{obj{"node": "Agent", "type": "ai_languageModel", "index": 1.0}}}}}, model2), "", "AI_TOO_MANY_LANGUAGE_MODELS", "", ""},
		{"one memory", wf(sys, obj{"M1": ai("ai_memory", "Agent")}, memory("M1")), "", "AI_TOO_MANY_MEMORIES", "", ""},
		{"two memories", wf(sys, obj{"M1": ai("ai_memory", "Agent"), "M2": ai("ai_memory", "Agent")}, memory("M1"), memory("M2")), "", "AI_TOO_MANY_MEMORIES", "error", "2 memories"},
		{"parser disabled", wf(obj{"hasOutputParser": false, "options": sys["options"]}, obj{"P": ai("ai_outputParser", "Agent")}, nd("P", L+"outputParserStructured", 1.2, obj{})), "", "AI_OUTPUT_PARSER_DISABLED", "error", `"P"`},
		{"parser enabled", wf(obj{"hasOutputParser": true, "options": sys["options"]}, obj{"P": ai("ai_outputParser", "Agent")}, nd("P", L+"outputParserStructured", 1.2, obj{})), "", "AI_OUTPUT_PARSER_DISABLED", "", ""},
		{"prompt missing", wf(obj{"promptType": "define", "options": sys["options"]}, nil), "", "AI_PROMPT_MISSING", "error", "parameters.text"},
		{"prompt defined", wf(obj{"promptType": "define", "text": "={{ $json.q }}", "options": sys["options"]}, nil), "", "AI_PROMPT_MISSING", "", ""},
		{"prompt from chat", wf(sys, nil), "", "AI_PROMPT_MISSING", "", ""},
		{"tool with description", wf(sys, obj{"Tool": ai("ai_tool", "Agent")}, toolCode("Looks orders up")), "", "AI_TOOL_DESCRIPTION_MISSING", "", ""},
		{"tool without description", wf(sys, obj{"Tool": ai("ai_tool", "Agent")}, toolCode("")), "", "AI_TOOL_DESCRIPTION_MISSING", "warning", ""},
		{"tool variant, auto description", wf(sys, obj{"Tool": ai("ai_tool", "Agent")}, nd("Tool", B+"httpRequestTool", 4.2, obj{"url": "https://x"})), "", "AI_TOOL_DESCRIPTION_MISSING", "", ""},
		{"tool variant, manual without text", wf(sys, obj{"Tool": ai("ai_tool", "Agent")}, nd("Tool", B+"httpRequestTool", 4.2, obj{"url": "https://x", "descriptionType": "manual"})), "", "AI_TOOL_DESCRIPTION_MISSING", "warning", ""},
		// n8n-mcp read parameters.systemMessage (#956); n8n reads options.systemMessage.
		{"system message in options", wf(sys, nil), AIFriendly, "AI_SYSTEM_MESSAGE_MISSING", "", ""},
		{"no system message", wf(obj{}, nil), AIFriendly, "AI_SYSTEM_MESSAGE_MISSING", "warning", ""},
		{"no system message, runtime", wf(obj{}, nil), "", "AI_SYSTEM_MESSAGE_MISSING", "", ""},
		{"system message misplaced", wf(obj{"systemMessage": "hi"}, nil), "", "AI_SYSTEM_MESSAGE_MISPLACED", "warning", ""},
		{"streaming off", wf(obj{"options": obj{"systemMessage": "x", "enableStreaming": false}}, nil), "", "AI_STREAMING_DISABLED", "", ""},
		{"streaming trigger, streaming off", with(wf(obj{"options": obj{"systemMessage": "x", "enableStreaming": false}}, nil), "nodes/0/parameters", obj{"public": true, "mode": "webhook", "options": obj{"responseMode": "streaming"}}), "", "AI_STREAMING_DISABLED", "warning", "Chat"},
		{"streaming trigger, streaming on", with(wf(sys, nil), "nodes/0/parameters", obj{"public": true, "mode": "webhook", "options": obj{"responseMode": "streaming"}}), "", "AI_STREAMING_DISABLED", "", ""},
	})
}

func TestProfiles(t *testing.T) {
	for _, s := range []string{"", "minimal", "runtime", "ai-friendly", "strict"} {
		if _, err := ParseProfile(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	_, err := ParseProfile("lenient")
	if err == nil || err.Error() != `unknown profile "lenient" (want minimal, runtime, ai-friendly or strict)` {
		t.Errorf("lenient: %v", err)
	}
	_, err = Validate(context.Background(), &Workflow{}, Options{Profile: "x"})
	if err == nil || !strings.Contains(err.Error(), `unknown profile "x"`) {
		t.Errorf("Validate with a bad profile: %v", err)
	}
	// Minimal reports no warnings at all.
	r := run(t, workflow([]obj{noop("A"), noop("B")}, obj{}), Minimal)
	if len(r.Warnings) != 0 {
		t.Errorf("minimal warnings: %+v", r.Warnings)
	}
}

func TestOptionsGroups(t *testing.T) {
	bad := with(chain(nd("Set", B+"set", 3.4, obj{"assignments": obj{"assignments": []any{obj{"id": "1", "name": "x", "value": "={{ $json.a ", "type": "string"}}}, "options": obj{}})), "connections/Ghost", obj{})
	tests := []struct {
		name        string
		opts        Options
		wantUnclose bool
		wantGhost   bool
	}{
		{"all by default", Options{}, true, true},
		{"expressions only", Options{Expressions: true}, true, false},
		{"connections only", Options{Connections: true}, false, true},
	}
	for _, tt := range tests {
		tt.opts.Catalog = testCatalog(t)
		r, err := ValidateValue(context.Background(), bad, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if (find(r, "EXPRESSION_UNCLOSED") != nil) != tt.wantUnclose || (find(r, "CONNECTION_SOURCE_UNKNOWN") != nil) != tt.wantGhost {
			t.Errorf("%s: errors %+v", tt.name, r.Errors)
		}
	}
}

func TestStatistics(t *testing.T) {
	wf := workflow([]obj{trigger, noop("A"), nd("Off", B+"noOp", 1, obj{}, obj{"disabled": true}), nd("Note", B+"stickyNote", 1, obj{"content": "x"}),
		nd("Set", B+"set", 3.4, obj{"assignments": obj{"assignments": []any{obj{"id": "1", "name": "x", "value": "={{ $json.a }}", "type": "string"}}}, "options": obj{}})},
		obj{"Start": mainOut(out(to("A", 0), to("Ghost", 0))), "A": mainOut(out(to("Off", 0), to("Set", 0)))})
	r := run(t, wf, Runtime)
	want := Statistics{TotalNodes: 4, EnabledNodes: 3, TriggerNodes: 1, ValidConnections: 3, InvalidConnections: 1, ExpressionsValidated: 1}
	if r.Statistics != want {
		t.Errorf("statistics %+v, want %+v", r.Statistics, want)
	}
	if len(r.Suggestions) == 0 {
		t.Errorf("no suggestions for %+v", r.Errors)
	}
}

func TestJapanese(t *testing.T) {
	r, err := ValidateValue(context.Background(), workflow([]obj{trigger}, obj{"Ghost": obj{}}), Options{Catalog: testCatalog(t), Lang: "ja"})
	if err != nil {
		t.Fatal(err)
	}
	is := find(r, "CONNECTION_SOURCE_UNKNOWN")
	if is == nil || is.Message != `接続元のノード "Ghost" が存在しません` || !strings.Contains(is.Fix, "connections[\"Ghost\"] を削除") {
		t.Errorf("ja: %+v", is)
	}
}

// TestJapaneseErrors: what ValidateJSON and ValidateValue refuse is said in opts.Lang, and an
// unknown profile in whoever prints it's.
func TestJapaneseErrors(t *testing.T) {
	ja := Options{Catalog: testCatalog(t), Lang: "ja"}
	_, err := ValidateJSON(context.Background(), []byte("{"), ja)
	if err == nil || !strings.HasPrefix(err.Error(), "ワークフローが JSON ではありません：") {
		t.Errorf("not JSON: %v", err)
	}
	want := `不明なプロファイル "x" です（minimal、runtime、ai-friendly、strict のいずれかを指定してください）`
	ja.Profile = "x"
	if _, err := Validate(context.Background(), &Workflow{}, ja); err == nil || err.Error() != want {
		t.Errorf("Validate with a bad profile: %v", err)
	}
	_, err = ParseProfile("x")
	var m i18n.Message
	if !errors.As(err, &m) || m.In("ja") != want {
		t.Errorf("ParseProfile: %v", err)
	}
}

func TestValidateJSONErrors(t *testing.T) {
	_, err := ValidateJSON(context.Background(), []byte("{"), Options{Catalog: testCatalog(t)})
	if err == nil || !strings.HasPrefix(err.Error(), "workflow is not JSON: ") {
		t.Errorf("not JSON: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ValidateJSON(ctx, []byte(`{"nodes": [], "connections": {}}`), Options{Catalog: testCatalog(t)})
	if err == nil || err.Error() != "validate workflow: context canceled" {
		t.Errorf("canceled: %v", err)
	}
	r, err := Validate(context.Background(), nil, Options{Catalog: testCatalog(t)})
	if err != nil || find(r, "NODES_MISSING") == nil {
		t.Errorf("nil workflow: %v %+v", err, r)
	}
}

// TestEveryCodeHasARule: every code reported anywhere renders in both languages.
func TestEveryCodeHasARule(t *testing.T) {
	for _, code := range Codes() {
		r := ruleOf(code)
		if r.msg == "" || i18n.Format(i18n.Japanese, r.msg) == r.msg {
			t.Errorf("%s: missing message", code)
		}
		if r.fix != "" && r.fix != "%s" && i18n.Format(i18n.Japanese, r.fix) == r.fix { // "%s": a fix said elsewhere
			t.Errorf("%s: fix in one language only", code)
		}
	}
}

// TestConcurrent: one catalog serves validations running at once (types decode once).
func TestConcurrent(t *testing.T) {
	var l catalog.Loader
	wf := benchWorkflow(40)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			cat, err := l.Get()
			if err == nil {
				var r *Result
				r, err = ValidateValue(context.Background(), wf, Options{Catalog: cat})
				if err == nil && !r.Valid {
					err = fmt.Errorf("invalid: %+v", r.Errors)
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
