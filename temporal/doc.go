// Package temporal runs seam's DAGs on Temporal: the client side (Engine, an engine.Engine
// that bundles a DAG and starts its run workflow), and the worker side (Worker, which hosts
// the run workflow and the attempt activity for `seam worker`).
//
// The run workflow is the embedded engine's scheduler itself, run through engine.RunHosted
// with a Host made of Temporal's primitives: each attempt of an impure node is an activity,
// judged (masked, bounded, validated) where it runs; a retry's backoff and the DAG's timeout
// are workflow timers; every event comes back through one selector, in history order, so a
// replay makes the same decisions. Records go to the worker's run store through local
// activities before an output is handed on. docs/temporal.md says what runs where.
package temporal
