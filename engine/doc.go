// Package engine runs loaded DAGs: the embedded scheduler, the Engine interface another
// engine implements, the `dag` node type that runs sub-DAGs, and the tracing of runs.
//
// # A node's life
//
// Run (engine_sched.go) keeps all of a run's state on the goroutine that called it, the
// scheduler: only it evaluates templates and writes the scope that references read. Worker
// goroutines, at most the DAG's concurrency, only run attempts. The scheduler's loop (runner)
// holds four parts, each a type in its own file: the graph (engine_graph.go: what each node
// waits for, what is ready), the committer (engine_commit.go: the records, written in
// batches, and the outputs held back until theirs commit), the retrier (engine_retry.go: what
// follows a failed attempt, and the backoff timers) and the tracer (engine_trace.go). Preparing
// a node is in engine_prepare.go, an attempt in engine_attempt.go. A node goes through:
//
//  1. Ready. A node with no dependencies is ready when the run starts; any other when the
//     last of its dependencies settles (settle). Its run_if decides then whether it runs:
//     by default a failed, skipped or canceled dependency skips it, saying which ("upstream a
//     failed"), and the skip cascades to its own dependents without running anything. An
//     upstream whose status the node's `when` reads (nodes.a.status) may have ended any way:
//     the `when` decides (Argo's depends: "a.Failed").
//  2. Prepare. When a worker is free the scheduler takes the next ready node (prepare):
//     `when` is evaluated (false skips the node), a resume's earlier output is reused when
//     the node's key (its definition, the params it reads, the outputs handed to it) is
//     unchanged, and `with` and `input` are resolved and checked against the type's config
//     schema and the input contract. A node that cannot run fails here, recorded as an
//     attempt that never ran; but a node whose `when` reads a status, and that reads the
//     output of an upstream that handed none on, is skipped saying so (unread). A foreach node becomes one unit per item, each resolved with
//     `item` and `index`; a plain node is one unit.
//  3. Attempt. Each unit's attempt is handed to a worker as a job (job, work): the type's
//     Run under the node's timeout, with SEAM_ATTEMPT in its environment and, after an
//     output that broke its contract, SEAM_VIOLATIONS saying how; on a chain an approval's reject
//     rewinds (engine_approval.go), SEAM_REVIEW holding the answer. A panic in the type fails the node, not the process. When no other
//     work could run meanwhile, an attempt of a pure type runs on the scheduler itself.
//  4. Validate. Still on the worker, the output is masked of secrets, bounded by
//     OutputLimit, parsed and validated against the node's effective contract (the standard
//     output contract with the node's own) (judge). Back on the scheduler, decide says
//     what the attempt means: a broken contract is repaired (on_invalid.repair) at once, a
//     timeout, an error or a broken contract is retried by the node's retry policy after its
//     backoff, and a valid output's own status (pass, warn, fail) is final; a node's own
//     "fail" is not retried. A retry tells the observer (NodeRetrying) and queues the unit
//     again.
//  5. Commit. Every attempt, final or not, is recorded for RunOptions.Recorder (finish). The
//     records are written in batches by one goroutine while the scheduler goes on (committer,
//     group commit): attempts that end during a write go with the next one. A foreach node
//     whose items are all final combines them into one standard output, items in input
//     order (combine).
//  6. Hand on. Once its final attempt is written (at once for a pure type, or without a
//     recorder), the node is applied (apply): a valid output is put in the scope under the
//     node's id (hand), where its dependents' references read it, and the node settles
//     passed, warned or failed; an output that broke its contract never crosses the edge.
//     If the store could not write the attempt, the node fails instead: a dependent must
//     not have seen what a crash could lose. Settling counts down its dependents' waiting
//     dependencies, which makes them ready (step 1).
//
// When ctx is canceled or the DAG's timeout passes, running attempts see their contexts
// canceled, waiting retries are dropped, and nodes not settled are marked canceled; Run
// returns once the workers have returned and the last records are written.
package engine
