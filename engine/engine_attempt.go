package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// job is one attempt handed to a worker: the scheduler fills it, the worker reads it.
type job struct {
	ctx     context.Context // the attempt's: the run's, with the attempt's span when tracing
	u       *unit
	node    *dag.Node
	call    *nodes.Call
	timeout time.Duration
	guard   guard
}

// attempt is what a worker hands back: the attempt's outcome, its output already parsed and
// validated (schemas are safe for concurrent use, so that work is spread over the workers).
// The worker fills it, the scheduler reads it once received.
type attempt struct {
	u          *unit
	started    time.Time
	ended      time.Time
	raw        []byte
	ref        string // on a host, the hash of the stored output when raw is its stub (AttemptOutcome.OutputHash)
	output     any
	valid      bool // output parsed and met the effective contract
	violations []contract.Violation
	log        string
	err        error
	reason     string // set when the attempt failed before its output could be judged
	timedOut   bool
	canceled   bool
}

// job prepares the next attempt of u.
func (r *runner) job(ctx context.Context, u *unit) job {
	node := r.d.Nodes[u.nr.idx]
	u.attempts++
	u.call.Attempt = u.attempts
	attempt := "SEAM_ATTEMPT=1" // the usual case, without building a string
	if u.attempts > 1 {
		attempt = "SEAM_ATTEMPT=" + strconv.Itoa(u.attempts)
	}
	u.call.Env = append(u.envBuf[:0], attempt)
	if len(u.call.Violations) > 0 {
		b, _ := json.Marshal(u.call.Violations) // violations are strings only
		u.call.Env = append(u.call.Env, "SEAM_VIOLATIONS="+string(b))
	}
	if review := r.rewind.review(u.nr.idx); review != "" {
		u.call.Env = append(u.call.Env, "SEAM_REVIEW="+review)
	}
	actx, traceEnv := r.tracing.startAttempt(ctx, u)
	u.call.Env = append(u.call.Env, traceEnv...)
	return job{ctx: actx, u: u, node: node, call: u.call, timeout: node.Timeout, guard: r.guard}
}

// isPure reports whether u's node is of a pure type (nodes.Pure): quick, and safe to run
// on the scheduler's goroutine.
func (r *runner) isPure(u *unit) bool {
	return r.pure(u.nr.idx)
}

// pure reports whether node i is of a pure type.
func (r *runner) pure(i int32) bool { return pureNode(r.d.Nodes[i]) }

// pureNode reports whether node is of a pure type (nodes.Pure).
func pureNode(node *dag.Node) bool {
	_, ok := node.Type.(nodes.Pure)
	return ok
}

// work runs one attempt on a worker goroutine: the node's Run under its timeout, then the
// output's parsing and validation. ctx is the run's: when it is done, the attempt was canceled.
func work(ctx context.Context, j job, lang i18n.Lang) attempt {
	a := attempt{u: j.u, started: time.Now()}
	nctx, cancel := j.ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		nctx, cancel = context.WithTimeout(j.ctx, j.timeout)
	}
	res, err := runType(nctx, j)
	cancel()
	if secrets := j.call.Secrets; len(secrets) > 0 {
		// Whatever a type does itself: const and transform echo what they were given.
		perr := j.guard.call("secret masking", func() {
			err = nodes.MaskError(err, secrets)
			if res != nil {
				res.Log = nodes.MaskString(res.Log, secrets)
				res.Output = maskOutput(res.Output, secrets)
			}
		})
		if perr != nil {
			res, err = nil, perr // nothing unmasked may go on
		}
	}
	if res != nil {
		a.log = res.Log
	}
	switch {
	case err != nil && ctx.Err() != nil:
		a.canceled, a.err = true, err
	case err != nil && errors.Is(nctx.Err(), context.DeadlineExceeded):
		a.err, a.reason, a.timedOut = err, i18n.Sprintf(lang, "timed out after %s", j.timeout), true
	case err != nil:
		a.err, a.reason = err, err.Error()
	case res == nil:
		a.reason = i18n.Sprintf(lang, "the node returned no result")
	case int64(len(res.Output)) > j.call.OutputLimit:
		// Types bound what they read; this holds the limit for every type all the same.
		a.err = &nodes.OutputLimitError{Limit: j.call.OutputLimit, Lang: j.call.Lang}
		a.reason = a.err.Error()
	default:
		a.raw = res.Output
		if perr := j.guard.call("output validation", func() { a.judge(res, j.node.Effective, lang) }); perr != nil {
			a.valid, a.violations = false, nil
			a.err, a.reason = perr, perr.Error()
		}
	}
	a.ended = time.Now()
	return a
}

// runType calls the node type's Run, turning a panic into an error so that one broken node
// type fails its node rather than the whole process.
func runType(ctx context.Context, j job) (res *nodes.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, j.guard.recovered("node type "+j.node.Type.Name(), p)
		}
	}()
	return j.node.Type.Run(ctx, j.call)
}

// judge parses res's output and validates it against the effective contract. An output that
// does not parse, or holds a number beyond what validation compares, is one violation.
func (a *attempt) judge(res *nodes.Result, effective *contract.Schema, lang i18n.Lang) {
	out := res.Output
	v, err := contract.ParseJSON(out)
	if err != nil {
		nj := contract.ParseViolation(err, lang)
		if nj.Value == "" {
			// Quoted, since a violation's value is JSON.
			q, _ := json.Marshal(excerpt(out))
			nj.Value = string(q)
			if res.NotJSONHint != "" {
				nj.Message += "; " + res.NotJSONHint
			}
		}
		a.violations = []contract.Violation{nj}
		return
	}
	a.output = v
	a.violations = effective.Validate(v, lang)
	a.valid = len(a.violations) == 0
}

// excerpt is the start of b for a violation's value.
func excerpt(b []byte) string {
	const limit = 120
	if len(b) <= limit {
		return string(b)
	}
	return string(b[:limit]) + "…"
}

// maskOutput masks secrets in an output: in its decoded values when it is JSON, since JSON
// can escape a secret in more ways than a text search finds (\/, \u00e9), else in its text.
// An output that holds no secret is returned as it is, not re-encoded: its bytes, and so its
// hash, must not depend on whether the run holds secrets (a store's password, say).
func maskOutput(out []byte, secrets []string) []byte {
	v, err := contract.ParseJSON(out)
	if err != nil {
		return []byte(nodes.MaskString(string(out), secrets))
	}
	masked := nodes.MaskValue(v, secrets)
	if reflect.DeepEqual(masked, v) {
		return out
	}
	b, err := json.Marshal(masked)
	if err != nil {
		return []byte(nodes.MaskString(string(out), secrets))
	}
	return b
}
