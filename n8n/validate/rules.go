package validate

import "fmt"

// sev is how a profile reports a code.
type sev byte

const (
	off  sev = iota // not reported
	warn            // a warning
	fail            // an error
)

// rule is one code: its severity in minimal, runtime, ai-friendly and strict, and its
// message and fix in English and Japanese (fmt templates over the arguments; the fix
// has its own).
type rule struct {
	sev          [4]sev
	en, ja       string
	fixEn, fixJa string
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
		return rule{always, "the workflow must be a JSON object, got %s", "ワークフローは JSON オブジェクトでなければなりません（%s が与えられました）", "send the workflow object: {\"name\", \"nodes\", \"connections\"}", "ワークフローのオブジェクト {\"name\", \"nodes\", \"connections\"} を渡してください"}
	case "NODES_MISSING":
		return rule{always, "the workflow has no nodes array", "nodes 配列がありません", "add \"nodes\": [...] with at least one node", "少なくとも 1 つのノードを持つ \"nodes\": [...] を追加してください"}
	case "CONNECTIONS_MISSING":
		return rule{always, "the workflow has no connections object (got %s); n8n's API requires one", "connections オブジェクトがありません（%s）。n8n の API では必須です", "add \"connections\": {} (an empty object when nothing is connected)", "\"connections\": {} を追加してください（接続がなければ空のオブジェクト）"}
	case "EMPTY_WORKFLOW":
		return rule{always, "the workflow has no nodes", "ノードがありません", "add a trigger node and the nodes it starts", "トリガーノードと、それが起動するノードを追加してください"}
	case "NODE_NOT_OBJECT":
		return rule{always, "nodes[%d] must be an object, got %s", "nodes[%d] はオブジェクトでなければなりません（%s）", "", ""}
	case "NODE_NAME_MISSING":
		return rule{always, "nodes[%d] has no name; connections refer to nodes by name", "nodes[%d] に name がありません。接続はノードを名前で参照します", "give every node a unique \"name\"", "すべてのノードに一意の \"name\" を付けてください"}
	case "NODE_TYPE_MISSING":
		return rule{always, "the node has no type", "ノードに type がありません", "set \"type\", e.g. \"n8n-nodes-base.set\"", "\"type\" を設定してください（例: \"n8n-nodes-base.set\"）"}
	case "DUPLICATE_NODE_NAME":
		return rule{always, "two nodes are named %q; connections and expressions cannot tell them apart", "ノード名 %q が重複しています。接続や式で区別できません", "rename one of the nodes %q", "%q のどちらかの名前を変えてください"}
	case "DUPLICATE_NODE_ID":
		return rule{always, "two nodes have the id %q", "ノード ID %q が重複しています", "give each node its own id (a UUID), or leave id out and n8n assigns one", "ノードごとに別の id（UUID）を付けるか、id を省いて n8n に任せてください"}
	case "NODE_NAME_TOO_LONG":
		return rule{runtimeW, "the node name is %d characters long", "ノード名が %d 文字あります", "shorten the name to at most 128 characters", "名前を 128 文字以下にしてください"}
	case "POSITION_INVALID":
		return rule{always, "position must be an array of two numbers [x, y], got %s", "position は 2 つの数値の配列 [x, y] でなければなりません（%s）", "set \"position\": [0, 0]", "\"position\": [0, 0] を設定してください"}
	case "NO_TRIGGER":
		return rule{runtimeW, "the workflow has no trigger node, so it can only be run by hand or by another workflow", "トリガーノードがないため、手動か他のワークフローからしか実行できません", "add a trigger (Webhook, Schedule Trigger, Manual Trigger, Execute Workflow Trigger, ...)", "トリガー（Webhook、Schedule Trigger、Manual Trigger、Execute Workflow Trigger など）を追加してください"}

	// ---- nodes ----
	case "UNKNOWN_NODE_TYPE":
		return rule{always, "unknown node type %q%s", "不明なノードタイプ %q%s", "%s", "%s"}
	case "NODE_TYPE_PREFIX":
		return rule{always, "node type %q lacks its package prefix", "ノードタイプ %q にパッケージ接頭辞がありません", "use %q", "%q を使ってください"}
	case "TYPE_VERSION_MISSING":
		return rule{strictE, "the node has no typeVersion, so n8n picks the type's current version, which changes between releases", "typeVersion がないため、n8n はリリースごとに変わる現行版を使います", "set \"typeVersion\": %v (the newest)", "\"typeVersion\": %v（最新）を設定してください"}
	case "TYPE_VERSION_INVALID":
		return rule{always, "typeVersion must be a positive number, got %s", "typeVersion は正の数でなければなりません（%s）", "set \"typeVersion\": %v (the newest)", "\"typeVersion\": %v（最新）を設定してください"}
	case "TYPE_VERSION_TOO_NEW":
		return rule{always, "typeVersion %v is above the newest version of %s in n8n %s (%v)", "typeVersion %v は n8n %[3]s の %[2]s の最新版（%[4]v）より新しい値です", "set \"typeVersion\": %v", "\"typeVersion\": %v を設定してください"}
	case "TYPE_VERSION_ABOVE_KNOWN":
		return rule{strictE, "typeVersion %v is above the newest version of %s in n8n %s (%v); n8n runs its only version", "typeVersion %v は n8n %[3]s の %[2]s の最新版（%[4]v）より新しい値です。n8n は唯一の版で実行します", "set \"typeVersion\": %v", "\"typeVersion\": %v を設定してください"}
	case "TYPE_VERSION_UNKNOWN":
		return rule{always, "%s has no version %v; its versions are %s", "%s にバージョン %v はありません。存在するのは %s です", "set \"typeVersion\" to one of %s", "\"typeVersion\" を %s のいずれかにしてください"}
	case "TYPE_VERSION_OUTDATED":
		return rule{adviceW, "typeVersion %v is older than the current %v", "typeVersion %v は現行の %v より古い版です", "new workflows should use typeVersion %v (check the parameters when upgrading)", "新しいワークフローでは typeVersion %v を使ってください（上げるときはパラメータを確認）"}
	case "PARAMETERS_NOT_OBJECT":
		return rule{always, "parameters must be an object, got %s", "parameters はオブジェクトでなければなりません（%s）", "set \"parameters\": {}", "\"parameters\": {} を設定してください"}
	case "REQUIRED_PARAMETER_MISSING":
		return rule{runtimeE, "required parameter %q (%s) is empty", "必須パラメータ %q（%s）が空です", "set parameters.%s", "parameters.%s を設定してください"}
	case "INVALID_OPERATION":
		return rule{runtimeE, "parameter %q is %s, which the node does not know (it knows %s); the node fails", "パラメータ %q の値 %s はノードが知らない値です（%s）。ノードは失敗します", "set parameters.%s to one of: %s", "parameters.%s を次のいずれかにしてください: %s"}
	case "INVALID_OPTION_VALUE":
		return rule{strictE, "parameter %q is %s, which is not one of its options: %s", "パラメータ %q の値 %s は選択肢にありません: %s", "set parameters.%s to one of: %s", "parameters.%s を次のいずれかにしてください: %s"}
	case "FILTER_OPERATOR_INVALID":
		return rule{runtimeE, "condition %s %s; n8n needs {\"type\": \"string\", \"operation\": \"equals\"} and the like", "条件 %s %s。n8n には {\"type\": \"string\", \"operation\": \"equals\"} のような形が必要です", "write the operator as an object with type (string, number, dateTime, boolean, array, object) and operation", "operator は type（string、number、dateTime、boolean、array、object）と operation を持つオブジェクトにしてください"}
	case "NODE_SETTING_IN_PARAMETERS":
		return rule{strictE, "%q is a node setting, but it is inside parameters, where n8n ignores it", "%q はノード設定ですが parameters の中にあり、n8n に無視されます", "move %q out of parameters to the node itself", "%q を parameters からノード直下へ移してください"}
	case "INVALID_ON_ERROR":
		return rule{always, "onError is %s; n8n knows stopWorkflow, continueRegularOutput and continueErrorOutput", "onError の値 %s は不正です（stopWorkflow、continueRegularOutput、continueErrorOutput のいずれか）", "set \"onError\" to stopWorkflow, continueRegularOutput or continueErrorOutput", "\"onError\" を stopWorkflow、continueRegularOutput、continueErrorOutput のいずれかにしてください"}
	case "INVALID_NODE_SETTING":
		return rule{runtimeE, "%s must be %s, got %s", "%s は %s でなければなりません（%s）", "set %s to %s", "%s を %s にしてください"}
	case "RETRY_SETTING_RANGE":
		return rule{runtimeW, "%s is %v; n8n uses %s", "%s が %v です。n8n は %s を使います", "set %s within %s", "%s を %s の範囲にしてください"}
	case "CREDENTIALS_WITHOUT_ID":
		return rule{strictE, "credential %q has no id; n8n finds credentials by id", "認証情報 %q に id がありません。n8n は id で認証情報を探します", "set credentials.%s.id to the credential's id (see GET /credentials or the n8n UI)", "credentials.%s.id に認証情報の id を設定してください"}
	case "CREDENTIALS_MISSING":
		return rule{runtimeE, "the node needs the %s credential and has none; n8n refuses to activate the workflow", "ノードに %s の認証情報が必要ですが設定されていません。n8n はワークフローを有効化しません", "add \"credentials\": {%q: {\"id\": \"...\", \"name\": \"...\"}}", "\"credentials\": {%q: {\"id\": \"...\", \"name\": \"...\"}} を追加してください"}

	// ---- connections ----
	case "CONNECTION_SOURCE_UNKNOWN":
		return rule{always, "connections name a source node %q that does not exist", "接続元のノード %q が存在しません", "use the name of an existing node as the key, or remove connections[%q]", "既存ノードの名前をキーにするか、connections[%q] を削除してください"}
	case "CONNECTION_SOURCE_IS_ID":
		return rule{always, "connections use the node id %q as a source; n8n connects nodes by name", "接続元にノード ID %q が使われています。n8n はノードを名前でつなぎます", "rename connections[%q] to connections[%q]", "connections[%q] を connections[%q] に変えてください"}
	case "CONNECTION_TARGET_UNKNOWN":
		return rule{always, "a connection from %q goes to %q, which does not exist", "%q からの接続先 %q が存在しません", "%s", "%s"}
	case "CONNECTION_TARGET_IS_ID":
		return rule{always, "a connection from %q names the node id %q; n8n connects nodes by name", "%q からの接続先にノード ID %q が使われています。n8n はノードを名前でつなぎます", "use the node name %q", "ノード名 %q を使ってください"}
	case "CONNECTION_MALFORMED":
		return rule{always, "connections of %q: %s", "%q の接続: %s", "each connection is {\"node\": NAME, \"type\": \"main\", \"index\": 0} inside connections[SOURCE][TYPE][OUTPUT]", "接続は connections[接続元][種類][出力] の中の {\"node\": 名前, \"type\": \"main\", \"index\": 0} です"}
	case "UNKNOWN_CONNECTION_KEY":
		return rule{always, "connections of %q use the key %q, which is not a connection type; n8n ignores the connection", "%q の接続にキー %q が使われていますが接続の種類ではありません。n8n は無視します", "%s", "%s"}
	case "CONNECTION_TYPE_MISMATCH":
		return rule{always, "a %s connection from %q to %q says type %q", "%[2]q から %[3]q への %[1]s 接続の type が %[4]q です", "set the connection's \"type\" to %q", "接続の \"type\" を %q にしてください"}
	case "OUTPUT_INDEX_OUT_OF_RANGE":
		return rule{runtimeE, "%q has %d %s output(s), but a connection leaves from output %d; nothing ever flows on it", "%q の %[3]s 出力は %[2]d 個ですが、出力 %[4]d から接続されています。そこには何も流れません", "%s", "%s"}
	case "ERROR_OUTPUT_WITHOUT_ON_ERROR":
		return rule{runtimeW, "a connection leaves from %q's error output (main[%d]), but its onError is not continueErrorOutput, so nothing flows on it", "%q のエラー出力（main[%d]）から接続されていますが、onError が continueErrorOutput ではないため何も流れません", "set \"onError\": \"continueErrorOutput\" on %q, or connect from main[0]", "%q に \"onError\": \"continueErrorOutput\" を設定するか、main[0] から接続してください"}
	case "ERROR_OUTPUT_UNCONNECTED":
		return rule{runtimeW, "onError is continueErrorOutput, but nothing is connected to the error output (main[%d]); failed items are dropped", "onError が continueErrorOutput ですが、エラー出力（main[%d]）に何もつながっていません。失敗した項目は捨てられます", "connect an error handler to main[%d], or set onError to continueRegularOutput", "main[%d] にエラー処理をつなぐか、onError を continueRegularOutput にしてください"}
	case "INPUT_INDEX_OUT_OF_RANGE":
		return rule{runtimeE, "%q has %d %s input(s), but a connection from %q arrives at input %d", "%q の %[3]s 入力は %[2]d 個ですが、%[4]q からの接続が入力 %[5]d に届いています", "%s", "%s"}
	case "SOURCE_HAS_NO_OUTPUT_TYPE":
		return rule{runtimeE, "%q has no %s output (its outputs: %s)", "%q には %s 出力がありません（出力: %s）", "connect %q through its %s output", "%q は %s 出力でつないでください"}
	case "TARGET_HAS_NO_INPUT_TYPE":
		return rule{runtimeE, "%q does not accept a %s connection (from %q)", "%q は %s 接続を受け付けません（%q から）", "%s", "%s"}
	case "TOO_MANY_CONNECTIONS":
		return rule{runtimeE, "%q accepts at most %d %s connection(s), and has %d", "%q が受け付ける %s 接続は最大 %[2]d 個ですが、%[4]d 個あります", "keep one %s connection into %q", "%[2]q への %[1]s 接続は 1 つにしてください"}
	case "REQUIRED_INPUT_MISSING":
		return rule{runtimeE, "%q needs a %s connection (%s) and has none", "%q には %s 接続（%s）が必要ですが、ありません", "connect a node with an %s output to %q", "%s 出力を持つノードを %q につないでください"}
	case "UNREACHABLE_NODE":
		return rule{runtimeW, "no trigger leads to this node, so it never runs", "どのトリガーからもたどれないため、このノードは実行されません", "connect it to the flow, or remove it", "フローにつなぐか、削除してください"}
	case "DISCONNECTED_NODE":
		return rule{runtimeW, "the node is not connected to any other node", "ノードがどのノードにもつながっていません", "connect it, or remove it", "つなぐか、削除してください"}
	case "CYCLE_WITHOUT_EXIT":
		return rule{strictE, "the nodes %s form a loop that nothing leaves; only a node returning no items ends it", "ノード %s がループを作っており、抜け道がありません。項目を返さないノードだけが止められます", "add an exit: an IF or Switch that leaves the loop, or a Loop Over Items (Split in Batches) node", "IF や Switch でループを抜ける経路か、Loop Over Items（Split in Batches）ノードを入れてください"}

	// ---- expressions ----
	case "EXPRESSION_UNCLOSED":
		return rule{runtimeE, "parameter %s: an expression opens {{ and never closes it", "パラメータ %s: 式の {{ が閉じられていません", "close the expression with }}", "式を }} で閉じてください"}
	case "EXPRESSION_NESTED":
		return rule{runtimeE, "parameter %s: {{ inside an expression; n8n does not nest expressions", "パラメータ %s: 式の中に {{ があります。n8n の式は入れ子にできません", "write one expression, e.g. {{ 'a' + $json.b }}", "1 つの式にまとめてください（例: {{ 'a' + $json.b }}）"}
	case "EXPRESSION_EMPTY":
		return rule{runtimeW, "parameter %s: the expression {{ }} is empty", "パラメータ %s: 式 {{ }} が空です", "write the expression, or remove the braces", "式を書くか、括弧を削除してください"}
	case "EXPRESSION_UNBALANCED":
		return rule{runtimeE, "parameter %s: n8n ends the expression at the first }}, leaving %q with unbalanced brackets", "パラメータ %s: n8n は最初の }} で式を終えるため、%q の括弧が対応しません", "put a space between closing braces (} }) inside the expression", "式の中の閉じ括弧の間に空白を入れてください（} }）"}
	case "EXPRESSION_MISSING_EQUALS":
		return rule{runtimeW, "parameter %s holds {{ }} but does not start with =, so n8n uses it as literal text", "パラメータ %s に {{ }} がありますが = で始まらないため、n8n は文字列のまま使います", "start the value with =, e.g. \"={{ $json.id }}\"", "値を = で始めてください（例: \"={{ $json.id }}\"）"}
	case "EXPRESSION_UNKNOWN_NODE":
		return rule{runtimeE, "parameter %s refers to node %q, which does not exist", "パラメータ %s が存在しないノード %q を参照しています", "%s", "%s"}
	case "CODE_UNKNOWN_NODE":
		return rule{runtimeW, "the code refers to node %q, which does not exist", "コードが存在しないノード %q を参照しています", "%s", "%s"}
	case "JSON_WITHOUT_INPUT":
		return rule{runtimeW, "parameter %s reads $json, but nothing flows into this node", "パラメータ %s が $json を読みますが、このノードには入力がありません", "connect the node's input, or refer to a node by name: $('Node').item.json", "入力をつなぐか、$('ノード名').item.json でノードを名指ししてください"}

	// ---- patterns ----
	case "WEBHOOK_RESPONSE_NODE_MISSING":
		return rule{runtimeE, "the webhook responds with a Respond to Webhook node (responseMode responseNode), but none follows it; every call fails", "Webhook は Respond to Webhook ノードで応答する設定（responseMode responseNode）ですが、後続にありません。呼び出しはすべて失敗します", "add a Respond to Webhook node after %q, or set responseMode to onReceived or lastNode", "%q の後に Respond to Webhook ノードを追加するか、responseMode を onReceived か lastNode にしてください"}
	case "RESPOND_TO_WEBHOOK_UNUSED":
		return rule{runtimeE, "a Respond to Webhook node (%q) follows this webhook, but its responseMode is %q; n8n fails the call", "この Webhook の後に Respond to Webhook ノード（%q）がありますが、responseMode が %q のため n8n は呼び出しを失敗させます", "set responseMode to responseNode on %q, or remove %q", "%q の responseMode を responseNode にするか、%q を削除してください"}
	case "NO_ERROR_HANDLING":
		return rule{adviceW, "no node handles errors and no error workflow is set", "エラーを処理するノードもエラーワークフローもありません", "set onError on the nodes that call other systems, or settings.errorWorkflow", "外部を呼ぶノードに onError を設定するか、settings.errorWorkflow を設定してください"}

	// ---- AI ----
	case "AI_LANGUAGE_MODEL_MISSING":
		return rule{runtimeE, "the %s has no language model connected", "%s に言語モデルが接続されていません", "connect a chat model (e.g. OpenAI Chat Model) to %q through ai_languageModel", "チャットモデル（例: OpenAI Chat Model）を ai_languageModel で %q につないでください"}
	case "AI_TOO_MANY_LANGUAGE_MODELS":
		return rule{runtimeE, "the %s has %d language models connected and accepts %d", "%s に言語モデルが %d 個接続されていますが、受け付けるのは %d 個です", "keep one model, or set needsFallback: true to use a second one as fallback", "モデルを 1 つにするか、needsFallback: true で 2 つ目をフォールバックにしてください"}
	case "AI_TOO_MANY_MEMORIES":
		return rule{runtimeE, "the %s has %d memories connected and accepts one", "%s にメモリが %d 個接続されていますが、受け付けるのは 1 個です", "keep one memory node connected to %q", "%q につなぐメモリは 1 つにしてください"}
	case "AI_OUTPUT_PARSER_DISABLED":
		return rule{runtimeE, "an output parser (%q) is connected, but hasOutputParser is false, so the %s ignores it", "出力パーサー（%q）が接続されていますが hasOutputParser が false のため、%s は使いません", "set parameters.hasOutputParser: true on %q, or remove the parser", "%q の parameters.hasOutputParser を true にするか、パーサーを削除してください"}
	case "AI_PROMPT_MISSING":
		return rule{runtimeE, "the %s's prompt (parameters.text) is empty while promptType is define", "%s のプロンプト（parameters.text）が空です（promptType は define）", "set parameters.text, or promptType: auto to take the chat input", "parameters.text を設定するか、promptType: auto でチャット入力を使ってください"}
	case "AI_TOOL_DESCRIPTION_MISSING":
		return rule{runtimeW, "the tool has no description, so the agent cannot tell when to use it", "ツールに説明がないため、エージェントは使いどころを判断できません", "set parameters.%s", "parameters.%s を設定してください"}
	case "AI_SYSTEM_MESSAGE_MISPLACED":
		return rule{runtimeW, "systemMessage is at the top of parameters, where the %s ignores it", "systemMessage が parameters の直下にあり、%s に無視されます", "move it to parameters.options.systemMessage", "parameters.options.systemMessage に移してください"}
	case "AI_SYSTEM_MESSAGE_MISSING":
		return rule{adviceW, "the %s has no system message", "%s にシステムメッセージがありません", "set parameters.options.systemMessage to the agent's role and limits", "parameters.options.systemMessage にエージェントの役割と制約を書いてください"}
	case "AI_STREAMING_DISABLED":
		return rule{runtimeW, "%q streams its response, but the %s has streaming off, so nothing is streamed", "%q は応答をストリーミングしますが、%s のストリーミングが無効なため何も流れません", "set parameters.options.enableStreaming: true on %q, or change the trigger's responseMode", "%q の parameters.options.enableStreaming を true にするか、トリガーの responseMode を変えてください"}
	}
	panic(fmt.Sprintf("validate: no rule for %s", code))
}

// Codes lists every code, in the order of the checks.
func Codes() []string {
	return []string{"WORKFLOW_NOT_OBJECT", "NODES_MISSING", "CONNECTIONS_MISSING", "EMPTY_WORKFLOW", "NODE_NOT_OBJECT", "NODE_NAME_MISSING", "NODE_TYPE_MISSING", "DUPLICATE_NODE_NAME", "DUPLICATE_NODE_ID", "NODE_NAME_TOO_LONG", "POSITION_INVALID", "NO_TRIGGER", "UNKNOWN_NODE_TYPE", "NODE_TYPE_PREFIX", "TYPE_VERSION_MISSING", "TYPE_VERSION_INVALID", "TYPE_VERSION_TOO_NEW", "TYPE_VERSION_ABOVE_KNOWN", "TYPE_VERSION_UNKNOWN", "TYPE_VERSION_OUTDATED", "PARAMETERS_NOT_OBJECT", "REQUIRED_PARAMETER_MISSING", "INVALID_OPERATION", "INVALID_OPTION_VALUE", "FILTER_OPERATOR_INVALID", "NODE_SETTING_IN_PARAMETERS", "INVALID_ON_ERROR", "INVALID_NODE_SETTING", "RETRY_SETTING_RANGE", "CREDENTIALS_WITHOUT_ID", "CREDENTIALS_MISSING", "CONNECTION_SOURCE_UNKNOWN", "CONNECTION_SOURCE_IS_ID", "CONNECTION_TARGET_UNKNOWN", "CONNECTION_TARGET_IS_ID", "CONNECTION_MALFORMED", "UNKNOWN_CONNECTION_KEY", "CONNECTION_TYPE_MISMATCH", "OUTPUT_INDEX_OUT_OF_RANGE", "ERROR_OUTPUT_WITHOUT_ON_ERROR", "ERROR_OUTPUT_UNCONNECTED", "INPUT_INDEX_OUT_OF_RANGE", "SOURCE_HAS_NO_OUTPUT_TYPE", "TARGET_HAS_NO_INPUT_TYPE", "TOO_MANY_CONNECTIONS", "REQUIRED_INPUT_MISSING", "UNREACHABLE_NODE", "DISCONNECTED_NODE", "CYCLE_WITHOUT_EXIT", "EXPRESSION_UNCLOSED", "EXPRESSION_NESTED", "EXPRESSION_EMPTY", "EXPRESSION_UNBALANCED", "EXPRESSION_MISSING_EQUALS", "EXPRESSION_UNKNOWN_NODE", "CODE_UNKNOWN_NODE", "JSON_WITHOUT_INPUT", "WEBHOOK_RESPONSE_NODE_MISSING", "RESPOND_TO_WEBHOOK_UNUSED", "NO_ERROR_HANDLING", "AI_LANGUAGE_MODEL_MISSING", "AI_TOO_MANY_LANGUAGE_MODELS", "AI_TOO_MANY_MEMORIES", "AI_OUTPUT_PARSER_DISABLED", "AI_PROMPT_MISSING", "AI_TOOL_DESCRIPTION_MISSING", "AI_SYSTEM_MESSAGE_MISPLACED", "AI_SYSTEM_MESSAGE_MISSING", "AI_STREAMING_DISABLED"}
}
