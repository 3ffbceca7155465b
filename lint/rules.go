package lint

import "slices"

// Lint finding codes. They are stable: tools and docs refer to them.
const (
	CodeRequired   = "SEAM-E301" // the consumer requires a field the producer does not produce
	CodeType       = "SEAM-E302" // types disagree
	CodeConstraint = "SEAM-E303" // the producer's constraints do not fit within the consumer's
	CodeOptional   = "SEAM-E304" // a field the producer only may emit is required
	CodeUndeclared = "SEAM-E305" // a reference to a path the producer's contract forbids
	CodeNotList    = "SEAM-E306" // a foreach list that is never a list
	CodeAbsent     = "SEAM-E311" // a reference reads a member the producer may leave out
	CodeWhenType   = "SEAM-E312" // a when whose value is never a boolean
	CodeExprType   = "SEAM-E313" // a CEL expression whose operators cannot take its references' types
	CodeStatusName = "SEAM-E317" // nodes.<id>.status compared with a string that is no status
	// type: approval (issue 37).
	CodeNoApprovers       = "SEAM-E320" // an approval that names no approvers and not anyone
	CodeApprovalForeach   = "SEAM-E321" // an approval inside a foreach
	CodeFormNotRenderable = "SEAM-E322" // a form the web view cannot render as fields
	CodeAnswerInvalid     = "SEAM-E323" // an on_timeout answer or a form default the form rejects
	CodeNeverTrue         = "SEAM-E324" // a decision (or form enum) compared with a value outside its set
	CodeRewindNotUpstream = "SEAM-E325" // on_reject rewinds to a node the approval does not depend on
	// Triggers (issue 38).
	CodeCron          = "SEAM-E330" // a trigger's cron that does not parse
	CodeTimezone      = "SEAM-E331" // a trigger's time zone that is not known
	CodeTriggerParams = "SEAM-E332" // a trigger's params that the DAG's params schema rejects
	CodeTriggerRef    = "SEAM-E333" // trigger.<x> that the trigger does not provide
	CodeUnknown       = "SEAM-W301" // compatibility could not be proved either way
	CodeNoContract    = "SEAM-W302" // a node whose output is read has no contract beyond the standard one
	CodeContent       = "SEAM-W303" // a contract constrains content (wording) instead of structure
	CodeAllReq        = "SEAM-W304" // every field required although consumers read few
	CodeWeakened      = "SEAM-W305" // seam lint --against: a producer guarantees less than before
	CodeStored        = "SEAM-W306" // seam lint --against-store: stored outputs fail a new contract
	// CodeStillUnknown: seam lint --against: an edge the change touches is unknown at both revisions
	CodeStillUnknown = "SEAM-W308"
	// What a contract's declared draft ignores (issue 43).
	CodeUndefinedKeyword = "SEAM-W309" // a keyword the contract's draft does not define
	CodeBesideRef        = "SEAM-W310" // keywords beside a $ref, which drafts up to 07 ignore
	CodeSchemaNotAtRoot  = "SEAM-W311" // a $schema below a resource's root, which is ignored
	CodeNeverOutcome     = "SEAM-W312" // a when that its contracts make never true, or never false
	// CodeCatchupAll: catchup runs all missed times, but the params do not read which time
	CodeCatchupAll = "SEAM-W313"
)

// The contract evolution gate's own codes (lint/gate): a file it could not judge.
const (
	CodeOutsideRepo      = "SEAM-E307" // a DAG file outside the git repository
	CodeRevUnreadable    = "SEAM-E308" // a DAG file that cannot be read or loaded at the revision
	CodeConsumerUnusable = "SEAM-E309" // a consumer that cannot be fetched or read
	CodeStoreUnreadable  = "SEAM-E310" // --against-store: the run store cannot be read
)

// Strict turns the warnings that say an edge was not proved either way (SEAM-W301, and the
// gate's SEAM-W308) into errors: seam lint --strict.
func Strict(fs []Finding) {
	for i := range fs {
		if fs[i].Severity == SeverityWarning && (fs[i].Code == CodeUnknown || fs[i].Code == CodeStillUnknown) {
			fs[i].Severity = SeverityError
		}
	}
}

// Severities of a Finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Rule describes one code lint reports. Rules is the one place they are described: SARIF's
// rule list (seam lint --format sarif) is made from it, and a test checks that
// docs/errors.md lists exactly these codes, names and texts.
type Rule struct {
	Code     string
	Name     string // CamelCase, SARIF's rule name
	Severity string // SeverityError or SeverityWarning: its findings' (SARIF's default level)
	Doc      string // what the rule finds, in one sentence
	Fix      string // how such a finding is fixed, in Markdown (docs/errors.md's **Fix:**)
}

// Rules returns every rule, in code order.
func Rules() []Rule {
	return slices.Clone(rules[:])
}

var rules = [...]Rule{
	{CodeRequired, "MissingRequiredField", SeverityError,
		"The consumer requires a field its producers do not produce.",
		"add the field to the producer's `contract.output` (and make the producer emit it), map it in the consumer's `input`, or put a `transform` node between them that builds it."},
	{CodeType, "TypeMismatch", SeverityError,
		"The producers may deliver a type the consumer does not accept.",
		"agree on the type in both contracts, or convert in a `transform` node."},
	{CodeConstraint, "ConstraintMismatch", SeverityError,
		"The producers' constraints do not fit within the consumer's.",
		"narrow the producer's contract, or widen the consumer's."},
	{CodeOptional, "OptionalButRequired", SeverityError,
		"The consumer requires a field its producers only may produce.",
		"make the field required in the producer's contract (`minItems: 1` for an index), or give the consumer a default in a `transform` node."},
	{CodeUndeclared, "UndeclaredReference", SeverityError,
		"A reference to a path the producer's schema does not declare.",
		"correct the reference, or declare the member."},
	{CodeNotList, "ForeachNotList", SeverityError,
		"A foreach list that its producers never deliver as a list.",
		"reference the list itself (`nodes.tickets.output.data.tickets`, not its count), or declare the member as `type: array` in the producer's `contract.output`."},
	{CodeOutsideRepo, "OutsideRepository", SeverityError,
		"`seam lint --against`: a DAG file, or a sub-DAG file one runs, that is outside the git repository, so it has no older revision.",
		"name paths inside the repository, or lint that file with plain `seam lint`."},
	{CodeRevUnreadable, "UnreadableAtRevision", SeverityError,
		"`seam lint --against`: a DAG file that is at the revision but cannot be read or loaded there for a reason of its own (over the size limit, not a regular file, git failing).",
		"check the file at the revision (`git show REV:path`), or judge against another revision."},
	{CodeConsumerUnusable, "ConsumerUnavailable", SeverityError,
		"`seam lint --against`: a consumer the policy file names that cannot be fetched, or whose files cannot be read.",
		"check the consumer's `repo` and `ref` in the policy file, and that this machine may fetch it (`git ls-remote REPO REF`)."},
	{CodeStoreUnreadable, "StoreUnreadable", SeverityError,
		"`seam lint --against-store`: the runs or outputs of a DAG cannot be read from the run store.",
		"check the store (`seam runs list --store …`), or leave `--against-store` out."},
	{CodeAbsent, "MayBeAbsent", SeverityError,
		"A reference reads a member (or an item) that its producer's output contract allows to be absent, so the run fails to resolve it when it is.",
		"require the member in the producer's `contract.output` (`minItems` for an index, not `null` for an object walked through), or guard the read: `has(nodes.a.output.data.x) ? nodes.a.output.data.x : <default>`, or `when: \"${{ has(nodes.a.output.data.x) }}\"` on the node."},
	{CodeWhenType, "WhenNotBoolean", SeverityError,
		"A `when` whose value is never a boolean, by the types its producers' contracts give.",
		"write a condition: compare the value (`== 'pass'`, `> 0`), test an array's size (`size(…) > 0`) or a member's presence (`has(…)`)."},
	{CodeExprType, "ExpressionTypeMismatch", SeverityError,
		"A CEL expression whose operators or functions cannot take the types its producers' contracts give its references, such as a string compared with an integer.",
		"compare values of one type (convert with `string(…)`, `int(…)` or `double(…)`), or correct the reference or the producer's contract."},
	{CodeStatusName, "UnknownStatus", SeverityError,
		"A comparison of `nodes.<id>.status` with a string that is none of the statuses a node ends with (`passed`, `warned`, `failed`, `skipped`, `canceled`), so it is never equal.",
		"compare with one of those statuses; what a node's output says of itself (`pass`, `warn`, `fail`) is `nodes.<id>.output.status`."},
	{CodeNoApprovers, "ApprovalWithoutApprovers", SeverityError,
		"An approval names no approvers, so no one may answer it.",
		"name who may answer (`approvers: {principals: [alice], groups: [leads]}`), or write `approvers: anyone`."},
	{CodeApprovalForeach, "ApprovalInForeach", SeverityError,
		"An approval inside a `foreach`, which this version cannot wait on.",
		"ask once for the whole list: give the approval the list as evidence (`show`) and move the `foreach` after it."},
	{CodeFormNotRenderable, "FormNotRenderable", SeverityError,
		"An approval's form uses a keyword or shape the web view cannot render as fields; the finding names it.",
		"write the form with scalars (`string`, `integer`, `number`, `boolean`), enums, arrays of scalars and nested objects."},
	{CodeAnswerInvalid, "ApprovalAnswerInvalid", SeverityError,
		"An approval's `on_timeout` answer, or a default its form gives a field, is one the form rejects, so it would break only when used.",
		"give `on_timeout` one of the `decisions` and fields the form accepts; give defaults the field accepts."},
	{CodeNeverTrue, "DecisionNeverMatches", SeverityError,
		"An expression compares an approval's `decision` (or another field of its form with an `enum`) with a string outside that set, so the comparison never holds.",
		"compare with one of the node's `decisions` (by default `approve`, `reject`) or of the field's `enum`."},
	{CodeRewindNotUpstream, "RewindNotUpstream", SeverityError,
		"An approval's `on_reject: {rewind: …}` names a node the approval does not depend on, so there is no chain to run again.",
		"name a node upstream of the approval (one whose output its evidence reads)."},
	{CodeCron, "CronDoesNotParse", SeverityError,
		"A trigger's `cron` that does not parse as five crontab fields or a descriptor.",
		"write five fields, minute hour day-of-month month day-of-week (`0 2 * * *`), or one of `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`; an interval is `every: 10m`."},
	{CodeTimezone, "UnknownTimeZone", SeverityError,
		"A trigger's `timezone` that is not a zone of the tz database (or is `Local`, which depends on the machine).",
		"name an IANA zone such as `Europe/Berlin` or `America/New_York`, or leave `timezone` out for UTC."},
	{CodeTriggerParams, "TriggerParamsMismatch", SeverityError,
		"A trigger's `params` that the DAG's `params` schema does not accept: its `trigger.*` values (the webhook body's contract, `trigger.scheduled_time` as a date-time string) or its literals are proved against the schema as any edge is.",
		"give the trigger the params the schema requires, with values of the types it accepts, or widen the params schema."},
	{CodeTriggerRef, "UnknownTriggerValue", SeverityError,
		"A trigger's `params` or `key` reads a `trigger.*` value that the trigger does not provide: a schedule has `trigger.scheduled_time`, a webhook `trigger.body`.",
		"read `trigger.scheduled_time` in a schedule's params and `trigger.body` in a webhook's."},
	{CodeUnknown, "UnknownCompatibility", SeverityWarning,
		"Compatibility could not be decided either way.",
		"reference plain paths where you can (`${{ nodes.a.output.data.n }}`), declare what you reference, or accept the warning. `--strict` turns these into errors."},
	{CodeNoContract, "NoOutputContract", SeverityWarning,
		"A node whose output is read has no contract beyond the standard one.",
		"declare `contract.output`; `seam runs output RUN NODE > sample.json` saves what the node handed on in a run, and `seam schema infer sample.json` drafts the contract from such samples."},
	{CodeContent, "ContentConstraint", SeverityWarning,
		"A contract constrains content (wording) instead of structure.",
		"constrain types, required members and enums; leave wording free."},
	{CodeAllReq, "EverythingRequired", SeverityWarning,
		"A contract requires every field although its consumers read few.",
		"require only what consumers need."},
	{CodeWeakened, "WeakenedGuarantee", SeverityWarning,
		"`seam lint --against`: a node's output contract allows a value it rejected at the older revision, which consumers seam cannot see may not accept.",
		"keep the old guarantee, or tell the consumers outside the repository and accept the finding's fingerprint in the policy file."},
	{CodeStored, "StoredOutputsFail", SeverityWarning,
		"`seam lint --against-store`: outputs a changed node delivered in stored runs fail its new output contract, or a consumer's input contract.",
		"make sure the node no longer delivers such values before the change ships, or keep the contract accepting them."},
	{CodeStillUnknown, "UnjudgedChange", SeverityWarning,
		"`seam lint --against`: an edge the change touches (a producer's output contract, the consumer's definition or its input contract changed, a file they refer to included) is unknown at both revisions, so the gate cannot tell whether the change breaks it.",
		"make the edge decidable (the reason names what lint cannot follow), then the gate judges the change; `--strict` makes this an error."},
	{CodeUndefinedKeyword, "KeywordNotInDraft", SeverityWarning,
		"A contract uses a keyword its declared draft does not define (`const` in draft-04, `$defs` in draft-07, `prefixItems` in 2019-09), so validation ignores it.",
		"declare a draft that defines the keyword in `$schema` (the finding names it), or write what the declared draft says instead (`enum: [x]` for `const` in draft-04, `definitions` for `$defs`, `items` after `prefixItems` for 2020-12's `additionalItems`)."},
	{CodeBesideRef, "KeywordsBesideRef", SeverityWarning,
		"A contract in draft-07 or earlier writes keywords beside a `$ref`, which that draft ignores: the object is the `$ref` alone.",
		"move them into an `allOf` with the `$ref` (`allOf: [{$ref: …}, {maxLength: 3}]`), or declare `\"$schema\": \"https://json-schema.org/draft/2019-09/schema\"` or later."},
	{CodeSchemaNotAtRoot, "SchemaNotAtResourceRoot", SeverityWarning,
		"A contract declares `$schema` below the root of a resource, where no draft reads it.",
		"give that schema the draft's resource keyword (`id` in draft-04, `$id` after) so that it is a resource of its own, or remove the `$schema`."},
	{CodeNeverOutcome, "WhenNeverTrueOrFalse", SeverityWarning,
		"A node's `when` can never be true (the node is always skipped), or never false (the `when` decides nothing): the contract of a value it reads and the condition cannot meet.",
		"compare with a value the producer's contract allows (a member of its enum, a number within its bounds), or widen the contract if the value can occur; remove a `when` that is never false."},
	{CodeCatchupAll, "CatchupAllSameParams", SeverityWarning,
		"A schedule catches up every missed time (`catchup: {runs: all}`) but its params do not read `trigger.scheduled_time`, so each catch-up run processes the same as a run on time.",
		"pass the time in the trigger's params (`params: {since: \"${{ trigger.scheduled_time }}\"}`), or catch up only the latest time: `catchup: {runs: latest}`."},
}
