package validate

import (
	"fmt"

	"github.com/seam-dag/seam/internal/i18n"
)

// sev is how a profile reports a code.
type sev byte

const (
	off  sev = iota // not reported
	warn            // a warning
	fail            // an error
)

// rule is one code: its severity in minimal, runtime, ai-friendly and strict, and its
// message and fix, English formats with their Japanese in the i18n catalog (fmt templates
// over the arguments; the fix has its own).
type rule struct {
	sev      [4]sev
	msg, fix string
}

// E and W rows: the usual severities.
var (
	always   = [4]sev{fail, fail, fail, fail}
	runtimeE = [4]sev{off, fail, fail, fail}
	runtimeW = [4]sev{off, warn, warn, warn}
	adviceW  = [4]sev{off, off, warn, warn}
	strictE  = [4]sev{off, warn, warn, fail}
)

// ruleOf returns the rule of a code. Every code the checker reports is here, and
// docs/n8n-validate.md lists them.
func ruleOf(code string) rule {
	switch code {
	// ---- structure ----
	case "WORKFLOW_NOT_OBJECT":
		return rule{always, i18n.Key("the workflow must be a JSON object, got %s"), i18n.Key("send the workflow object: {\"name\", \"nodes\", \"connections\"}")}
	case "NODES_MISSING":
		return rule{always, i18n.Key("the workflow has no nodes array"), i18n.Key("add \"nodes\": [...] with at least one node")}
	case "CONNECTIONS_MISSING":
		return rule{always, i18n.Key("the workflow has no connections object (got %s); n8n's API requires one"), i18n.Key("add \"connections\": {} (an empty object when nothing is connected)")}
	case "EMPTY_WORKFLOW":
		return rule{always, i18n.Key("the workflow has no nodes"), i18n.Key("add a trigger node and the nodes it starts")}
	case "NODE_NOT_OBJECT":
		return rule{always, i18n.Key("nodes[%d] must be an object, got %s"), ""}
	case "NODE_NAME_MISSING":
		return rule{always, i18n.Key("nodes[%d] has no name; connections refer to nodes by name"), i18n.Key("give every node a unique \"name\"")}
	case "NODE_TYPE_MISSING":
		return rule{always, i18n.Key("the node has no type"), i18n.Key("set \"type\", e.g. \"n8n-nodes-base.set\"")}
	case "DUPLICATE_NODE_NAME":
		return rule{always, i18n.Key("two nodes are named %q; connections and expressions cannot tell them apart"), i18n.Key("rename one of the nodes %q")}
	case "DUPLICATE_NODE_ID":
		return rule{always, i18n.Key("two nodes have the id %q"), i18n.Key("give each node its own id (a UUID), or leave id out and n8n assigns one")}
	case "NODE_NAME_TOO_LONG":
		return rule{runtimeW, i18n.Key("the node name is %d characters long"), i18n.Key("shorten the name to at most 128 characters")}
	case "POSITION_INVALID":
		return rule{always, i18n.Key("position must be an array of two numbers [x, y], got %s"), i18n.Key("set \"position\": [0, 0]")}
	case "NO_TRIGGER":
		return rule{runtimeW, i18n.Key("the workflow has no trigger node, so it can only be run by hand or by another workflow"), i18n.Key("add a trigger (Webhook, Schedule Trigger, Manual Trigger, Execute Workflow Trigger, ...)")}

	// ---- nodes ----
	case "UNKNOWN_NODE_TYPE":
		return rule{always, i18n.Key("unknown node type %q%s"), i18n.Key("%s")}
	case "NODE_TYPE_PREFIX":
		return rule{always, i18n.Key("node type %q lacks its package prefix"), i18n.Key("use %q")}
	case "TYPE_VERSION_MISSING":
		return rule{strictE, i18n.Key("the node has no typeVersion, so n8n picks the type's current version, which changes between releases"), i18n.Key("set \"typeVersion\": %v (the newest)")}
	case "TYPE_VERSION_INVALID":
		return rule{always, i18n.Key("typeVersion must be a positive number, got %s"), i18n.Key("set \"typeVersion\": %v (the newest)")}
	case "TYPE_VERSION_TOO_NEW":
		return rule{always, i18n.Key("typeVersion %v is above the newest version of %s in n8n %s (%v)"), i18n.Key("set \"typeVersion\": %v")}
	case "TYPE_VERSION_ABOVE_KNOWN":
		return rule{strictE, i18n.Key("typeVersion %v is above the newest version of %s in n8n %s (%v); n8n runs its only version"), i18n.Key("set \"typeVersion\": %v")}
	case "TYPE_VERSION_UNKNOWN":
		return rule{always, i18n.Key("%s has no version %v; its versions are %s"), i18n.Key("set \"typeVersion\" to one of %s")}
	case "TYPE_VERSION_OUTDATED":
		return rule{adviceW, i18n.Key("typeVersion %v is older than the current %v"), i18n.Key("new workflows should use typeVersion %v (check the parameters when upgrading)")}
	case "PARAMETERS_NOT_OBJECT":
		return rule{always, i18n.Key("parameters must be an object, got %s"), i18n.Key("set \"parameters\": {}")}
	case "REQUIRED_PARAMETER_MISSING":
		return rule{runtimeE, i18n.Key("required parameter %q (%s) is empty"), i18n.Key("set parameters.%s")}
	case "INVALID_OPERATION":
		return rule{runtimeE, i18n.Key("parameter %q is %s, which the node does not know (it knows %s); the node fails"), i18n.Key("set parameters.%s to one of: %s")}
	case "INVALID_OPTION_VALUE":
		return rule{strictE, i18n.Key("parameter %q is %s, which is not one of its options: %s"), i18n.Key("set parameters.%s to one of: %s")}
	case "FILTER_OPERATOR_INVALID":
		return rule{runtimeE, i18n.Key("condition %s %s; n8n needs {\"type\": \"string\", \"operation\": \"equals\"} and the like"), i18n.Key("write the operator as an object with type (string, number, dateTime, boolean, array, object) and operation")}
	case "NODE_SETTING_IN_PARAMETERS":
		return rule{strictE, i18n.Key("%q is a node setting, but it is inside parameters, where n8n ignores it"), i18n.Key("move %q out of parameters to the node itself")}
	case "INVALID_ON_ERROR":
		return rule{always, i18n.Key("onError is %s; n8n knows stopWorkflow, continueRegularOutput and continueErrorOutput"), i18n.Key("set \"onError\" to stopWorkflow, continueRegularOutput or continueErrorOutput")}
	case "INVALID_NODE_SETTING":
		return rule{runtimeE, i18n.Key("%s must be %s, got %s"), i18n.Key("set %s to %s")}
	case "RETRY_SETTING_RANGE":
		return rule{runtimeW, i18n.Key("%s is %v; n8n uses %s"), i18n.Key("set %s within %s")}
	case "CREDENTIALS_WITHOUT_ID":
		return rule{strictE, i18n.Key("credential %q has no id; n8n finds credentials by id"), i18n.Key("set credentials.%s.id to the credential's id (see GET /credentials or the n8n UI)")}
	case "CREDENTIALS_MISSING":
		return rule{runtimeE, i18n.Key("the node needs the %s credential and has none; n8n refuses to activate the workflow"), i18n.Key("add \"credentials\": {%q: {\"id\": \"...\", \"name\": \"...\"}}")}

	// ---- connections ----
	case "CONNECTION_SOURCE_UNKNOWN":
		return rule{always, i18n.Key("connections name a source node %q that does not exist"), i18n.Key("use the name of an existing node as the key, or remove connections[%q]")}
	case "CONNECTION_SOURCE_IS_ID":
		return rule{always, i18n.Key("connections use the node id %q as a source; n8n connects nodes by name"), i18n.Key("rename connections[%q] to connections[%q]")}
	case "CONNECTION_TARGET_UNKNOWN":
		return rule{always, i18n.Key("a connection from %q goes to %q, which does not exist"), i18n.Key("%s")}
	case "CONNECTION_TARGET_IS_ID":
		return rule{always, i18n.Key("a connection from %q names the node id %q; n8n connects nodes by name"), i18n.Key("use the node name %q")}
	case "CONNECTION_MALFORMED":
		return rule{always, i18n.Key("connections of %q: %s"), i18n.Key("each connection is {\"node\": NAME, \"type\": \"main\", \"index\": 0} inside connections[SOURCE][TYPE][OUTPUT]")}
	case "UNKNOWN_CONNECTION_KEY":
		return rule{always, i18n.Key("connections of %q use the key %q, which is not a connection type; n8n ignores the connection"), i18n.Key("%s")}
	case "CONNECTION_TYPE_MISMATCH":
		return rule{always, i18n.Key("a %s connection from %q to %q says type %q"), i18n.Key("set the connection's \"type\" to %q")}
	case "OUTPUT_INDEX_OUT_OF_RANGE":
		return rule{runtimeE, i18n.Key("%q has %d %s output(s), but a connection leaves from output %d; nothing ever flows on it"), i18n.Key("%s")}
	case "ERROR_OUTPUT_WITHOUT_ON_ERROR":
		return rule{runtimeW, i18n.Key("a connection leaves from %q's error output (main[%d]), but its onError is not continueErrorOutput, so nothing flows on it"), i18n.Key("set \"onError\": \"continueErrorOutput\" on %q, or connect from main[0]")}
	case "ERROR_OUTPUT_UNCONNECTED":
		return rule{runtimeW, i18n.Key("onError is continueErrorOutput, but nothing is connected to the error output (main[%d]); failed items are dropped"), i18n.Key("connect an error handler to main[%d], or set onError to continueRegularOutput")}
	case "INPUT_INDEX_OUT_OF_RANGE":
		return rule{runtimeE, i18n.Key("%q has %d %s input(s), but a connection from %q arrives at input %d"), i18n.Key("%s")}
	case "SOURCE_HAS_NO_OUTPUT_TYPE":
		return rule{runtimeE, i18n.Key("%q has no %s output (its outputs: %s)"), i18n.Key("connect %q through its %s output")}
	case "TARGET_HAS_NO_INPUT_TYPE":
		return rule{runtimeE, i18n.Key("%q does not accept a %s connection (from %q)"), i18n.Key("%s")}
	case "TOO_MANY_CONNECTIONS":
		return rule{runtimeE, i18n.Key("%q accepts at most %d %s connection(s), and has %d"), i18n.Key("keep one %s connection into %q")}
	case "REQUIRED_INPUT_MISSING":
		return rule{runtimeE, i18n.Key("%q needs a %s connection (%s) and has none"), i18n.Key("connect a node with an %s output to %q")}
	case "UNREACHABLE_NODE":
		return rule{runtimeW, i18n.Key("no trigger leads to this node, so it never runs"), i18n.Key("connect it to the flow, or remove it")}
	case "DISCONNECTED_NODE":
		return rule{runtimeW, i18n.Key("the node is not connected to any other node"), i18n.Key("connect it, or remove it")}
	case "CYCLE_WITHOUT_EXIT":
		return rule{strictE, i18n.Key("the nodes %s form a loop that nothing leaves; only a node returning no items ends it"), i18n.Key("add an exit: an IF or Switch that leaves the loop, or a Loop Over Items (Split in Batches) node")}

	// ---- expressions ----
	case "EXPRESSION_UNCLOSED":
		return rule{runtimeE, i18n.Key("parameter %s: an expression opens {{ and never closes it"), i18n.Key("close the expression with %s")}
	case "EXPRESSION_NESTED":
		return rule{runtimeE, i18n.Key("parameter %s: {{ inside an expression; n8n does not nest expressions"), i18n.Key("write one expression, e.g. {{ 'a' + $json.b }}")}
	case "EXPRESSION_EMPTY":
		return rule{runtimeW, i18n.Key("parameter %s: the expression {{ }} is empty"), i18n.Key("write the expression, or remove the braces")}
	case "EXPRESSION_UNBALANCED":
		return rule{runtimeE, i18n.Key("parameter %s: n8n ends the expression at the first }}, leaving %q with unbalanced brackets"), i18n.Key("put a space between closing braces (} }) inside the expression")}
	case "EXPRESSION_MISSING_EQUALS":
		return rule{runtimeW, i18n.Key("parameter %s holds {{ }} but does not start with =, so n8n uses it as literal text"), i18n.Key("start the value with =, e.g. \"={{ $json.id }}\"")}
	case "EXPRESSION_UNKNOWN_NODE":
		return rule{runtimeE, i18n.Key("parameter %s refers to node %q, which does not exist"), i18n.Key("%s")}
	case "CODE_UNKNOWN_NODE":
		return rule{runtimeW, i18n.Key("the code refers to node %q, which does not exist"), i18n.Key("%s")}
	case "JSON_WITHOUT_INPUT":
		return rule{runtimeW, i18n.Key("parameter %s reads $json, but nothing flows into this node"), i18n.Key("connect the node's input, or refer to a node by name: $('Node').item.json")}

	// ---- patterns ----
	case "WEBHOOK_RESPONSE_NODE_MISSING":
		return rule{runtimeE, i18n.Key("the webhook responds with a Respond to Webhook node (responseMode responseNode), but none follows it; every call fails"), i18n.Key("add a Respond to Webhook node after %q, or set responseMode to onReceived or lastNode")}
	case "RESPOND_TO_WEBHOOK_UNUSED":
		return rule{runtimeE, i18n.Key("a Respond to Webhook node (%q) follows this webhook, but its responseMode is %q; n8n fails the call"), i18n.Key("set responseMode to responseNode on %q, or remove %q")}
	case "NO_ERROR_HANDLING":
		return rule{adviceW, i18n.Key("no node handles errors and no error workflow is set"), i18n.Key("set onError on the nodes that call other systems, or settings.errorWorkflow")}

	// ---- AI ----
	case "AI_LANGUAGE_MODEL_MISSING":
		return rule{runtimeE, i18n.Key("the %s has no language model connected"), i18n.Key("connect a chat model (e.g. OpenAI Chat Model) to %q through ai_languageModel")}
	case "AI_TOO_MANY_LANGUAGE_MODELS":
		return rule{runtimeE, i18n.Key("the %s has %d language models connected and accepts %d"), i18n.Key("keep one model, or set needsFallback: true to use a second one as fallback")}
	case "AI_TOO_MANY_MEMORIES":
		return rule{runtimeE, i18n.Key("the %s has %d memories connected and accepts one"), i18n.Key("keep one memory node connected to %q")}
	case "AI_OUTPUT_PARSER_DISABLED":
		return rule{runtimeE, i18n.Key("an output parser (%q) is connected, but hasOutputParser is false, so the %s ignores it"), i18n.Key("set parameters.hasOutputParser: true on %q, or remove the parser")}
	case "AI_PROMPT_MISSING":
		return rule{runtimeE, i18n.Key("the %s's prompt (parameters.text) is empty while promptType is define"), i18n.Key("set parameters.text, or promptType: auto to take the chat input")}
	case "AI_TOOL_DESCRIPTION_MISSING":
		return rule{runtimeW, i18n.Key("the tool has no description, so the agent cannot tell when to use it"), i18n.Key("set parameters.%s")}
	case "AI_SYSTEM_MESSAGE_MISPLACED":
		return rule{runtimeW, i18n.Key("systemMessage is at the top of parameters, where the %s ignores it"), i18n.Key("move it to parameters.options.systemMessage")}
	case "AI_SYSTEM_MESSAGE_MISSING":
		return rule{adviceW, i18n.Key("the %s has no system message"), i18n.Key("set parameters.options.systemMessage to the agent's role and limits")}
	case "AI_STREAMING_DISABLED":
		return rule{runtimeW, i18n.Key("%q streams its response, but the %s has streaming off, so nothing is streamed"), i18n.Key("set parameters.options.enableStreaming: true on %q, or change the trigger's responseMode")}
	}
	panic(fmt.Sprintf("validate: no rule for %s", code))
}

// Codes lists every code, in the order of the checks.
func Codes() []string {
	return []string{"WORKFLOW_NOT_OBJECT", "NODES_MISSING", "CONNECTIONS_MISSING", "EMPTY_WORKFLOW", "NODE_NOT_OBJECT", "NODE_NAME_MISSING", "NODE_TYPE_MISSING", "DUPLICATE_NODE_NAME", "DUPLICATE_NODE_ID", "NODE_NAME_TOO_LONG", "POSITION_INVALID", "NO_TRIGGER", "UNKNOWN_NODE_TYPE", "NODE_TYPE_PREFIX", "TYPE_VERSION_MISSING", "TYPE_VERSION_INVALID", "TYPE_VERSION_TOO_NEW", "TYPE_VERSION_ABOVE_KNOWN", "TYPE_VERSION_UNKNOWN", "TYPE_VERSION_OUTDATED", "PARAMETERS_NOT_OBJECT", "REQUIRED_PARAMETER_MISSING", "INVALID_OPERATION", "INVALID_OPTION_VALUE", "FILTER_OPERATOR_INVALID", "NODE_SETTING_IN_PARAMETERS", "INVALID_ON_ERROR", "INVALID_NODE_SETTING", "RETRY_SETTING_RANGE", "CREDENTIALS_WITHOUT_ID", "CREDENTIALS_MISSING", "CONNECTION_SOURCE_UNKNOWN", "CONNECTION_SOURCE_IS_ID", "CONNECTION_TARGET_UNKNOWN", "CONNECTION_TARGET_IS_ID", "CONNECTION_MALFORMED", "UNKNOWN_CONNECTION_KEY", "CONNECTION_TYPE_MISMATCH", "OUTPUT_INDEX_OUT_OF_RANGE", "ERROR_OUTPUT_WITHOUT_ON_ERROR", "ERROR_OUTPUT_UNCONNECTED", "INPUT_INDEX_OUT_OF_RANGE", "SOURCE_HAS_NO_OUTPUT_TYPE", "TARGET_HAS_NO_INPUT_TYPE", "TOO_MANY_CONNECTIONS", "REQUIRED_INPUT_MISSING", "UNREACHABLE_NODE", "DISCONNECTED_NODE", "CYCLE_WITHOUT_EXIT", "EXPRESSION_UNCLOSED", "EXPRESSION_NESTED", "EXPRESSION_EMPTY", "EXPRESSION_UNBALANCED", "EXPRESSION_MISSING_EQUALS", "EXPRESSION_UNKNOWN_NODE", "CODE_UNKNOWN_NODE", "JSON_WITHOUT_INPUT", "WEBHOOK_RESPONSE_NODE_MISSING", "RESPOND_TO_WEBHOOK_UNUSED", "NO_ERROR_HANDLING", "AI_LANGUAGE_MODEL_MISSING", "AI_TOO_MANY_LANGUAGE_MODELS", "AI_TOO_MANY_MEMORIES", "AI_OUTPUT_PARSER_DISABLED", "AI_PROMPT_MISSING", "AI_TOOL_DESCRIPTION_MISSING", "AI_SYSTEM_MESSAGE_MISPLACED", "AI_SYSTEM_MESSAGE_MISSING", "AI_STREAMING_DISABLED"}
}
