// Package promise holds no code: its test, promise_test.go, writes down seam's promise as a
// property over random DAGs — a DAG that `seam lint` passes does not fail at run time
// because of an edge, and every error lint reports is one a run confirms (issue 42, section
// 6). It lives apart from lint because it needs lint, dag, engine, nodes and contract
// together, as a front end does.
//
// The short run is part of `go test ./...`; the long one (10,000 DAGs) is
//
//	SEAM_PROMISE_N=10000 go test ./lint/promise -run TestPromise -v -timeout 2h
//
// See docs/lint.md, "The promise as a property test".
package promise
