package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes/internal/proc"
)

// execType runs a command with the node's input as JSON on stdin and turns its stdout into
// the node's output.
type execType struct {
	guard *proc.Watchdog // kills the commands' groups when seam dies; nil for none
}

const (
	defaultStderrLimit = 64 << 10
	// summaryMax bounds a text-mode summary: a summary is a sentence, not a dump.
	summaryMax = 200
	// errStderrMax bounds the stderr excerpt put in an error message; Result.Log has more.
	errStderrMax = 2 << 10
)

// Output modes of exec.
const (
	outputJSON = "json"
	outputWrap = "wrap"
	outputText = "text"
)

func (execType) Name() string { return "exec" }
func (execType) Doc() string {
	return "Runs a command with the input as JSON on stdin; stdout is the output (json), or is wrapped (wrap, text)."
}

func (execType) ConfigSchema() []byte { return schema("exec.config.json") }
func (execType) OutputSchema() []byte { return schema("exec.output.json") }

// OutputSchemaFor narrows the output schema by mode: wrap and text build the output
// themselves, so they guarantee data.
func (t execType) OutputSchemaFor(with map[string]any) []byte {
	switch with["output"] {
	case outputWrap:
		return schema("exec.output.wrap.json")
	case outputText:
		return schema("exec.output.text.json")
	}
	return t.OutputSchema()
}

// Check checks the configuration's shape at load time; references are unknown and pass.
func (execType) Check(with map[string]any) error {
	_, err := parseExecConfig(with, true)
	return err
}

// LocalFiles names what the command runs by a relative path: the folder it runs in (dir) and
// the files of its command, relative to that folder: a program named with a slash
// (./classify.py), and arguments that may be files ([python3, classify.py]). A dir that is
// absolute or computed leaves every path of the command unknown before the run.
func (execType) LocalFiles(with map[string]any) []LocalFile {
	var files []LocalFile
	wd := ""
	if v, ok := with["dir"]; ok {
		s, isString := v.(string)
		if !isString || isRef(s) || filepath.IsAbs(s) {
			return nil
		}
		wd = filepath.Clean(s)
		files = append(files, LocalFile{Path: wd, Written: s, Dir: true})
	}
	if shell, _ := with["shell"].(bool); shell {
		return files
	}
	args, _ := with["command"].([]any)
	for i, a := range args {
		s, _ := a.(string)
		if s == "" || filepath.IsAbs(s) || isRef(s) || (i == 0 && !strings.ContainsRune(s, '/')) {
			continue // a program on the PATH, or not known before the run
		}
		files = append(files, LocalFile{Path: filepath.Join(wd, s), Written: s})
	}
	return files
}

// Ways to write a node's input on stdin.
const (
	stdinInput    = "input"    // the input as JSON
	stdinEnvelope = "envelope" // the input beside what seam knows of the attempt
)

// envelope is what an exec node with `stdin: envelope` reads: its input, and the attempt it
// is, with the violations of the previous output when seam asks it to repair that output.
type envelope struct {
	Input any          `json:"input"`
	Seam  envelopeSeam `json:"seam"`
}

type envelopeSeam struct {
	Node       string               `json:"node"`
	Attempt    int                  `json:"attempt"`
	Violations []contract.Violation `json:"violations"`
}

// execConfig is a parsed `with` of an exec node.
type execConfig struct {
	argv        []string // the command; with shell, the script alone
	shell       bool
	env         []string // KEY=VALUE, sorted by key
	dir         string
	output      string
	stdin       string // input, or envelope: {input, seam: {node, attempt, violations}}
	stderrLimit int
}

// parseExecConfig reads with. When checking (load time), values holding references are
// unknown and skipped; otherwise every value must be final.
func parseExecConfig(with map[string]any, checking bool) (execConfig, error) {
	cfg := execConfig{output: outputJSON, stdin: stdinInput, stderrLimit: defaultStderrLimit}
	if err := checkKeys(with, "command", "shell", "env", "dir", "output", "stdin", "stderr_limit"); err != nil {
		return cfg, err
	}
	unknown := func(v any) bool { return checking && isRef(v) }

	shellKnown := true
	if v, ok := with["shell"]; ok {
		switch b, isBool := v.(bool); {
		case isBool:
			cfg.shell = b
		case unknown(v):
			shellKnown = false
		default:
			return cfg, configErr("/shell", i18n.M("must be a boolean, got %s", jsonType(v)))
		}
	}

	cmd, ok := with["command"]
	switch {
	case !ok:
		return cfg, configErr("/command", i18n.M("required"))
	case unknown(cmd):
	case !shellKnown:
		// Either shape may be right; check what does not depend on shell.
		if _, isString := cmd.(string); !isString {
			if _, err := argvOf(cmd); err != nil {
				return cfg, err
			}
		}
	case cfg.shell:
		s, isString := cmd.(string)
		if !isString {
			return cfg, configErr("/command", i18n.M("must be a script string with shell: true, got %s", jsonType(cmd)))
		}
		if strings.TrimSpace(s) == "" {
			return cfg, configErr("/command", i18n.M("must not be empty"))
		}
		cfg.argv = []string{s}
	default:
		if _, isString := cmd.(string); isString {
			return cfg, configErr("/command", i18n.M("must be an array of strings (argv); set shell: true to run a string with /bin/sh -c"))
		}
		argv, err := argvOf(cmd)
		if err != nil {
			return cfg, err
		}
		cfg.argv = argv
	}

	if v, ok := with["env"]; ok && !unknown(v) {
		env, err := envOf(v)
		if err != nil {
			return cfg, err
		}
		cfg.env = env
	}

	if v, ok := with["dir"]; ok && !unknown(v) {
		s, isString := v.(string)
		if !isString {
			return cfg, configErr("/dir", i18n.M("must be a string, got %s", jsonType(v)))
		}
		cfg.dir = s
	}

	if v, ok := with["output"]; ok && !unknown(v) {
		s, _ := v.(string)
		if s != outputJSON && s != outputWrap && s != outputText {
			return cfg, configErr("/output", i18n.M("must be one of json, wrap, text; got %s", jsonValue(v)))
		}
		cfg.output = s
	}

	if v, ok := with["stdin"]; ok && !unknown(v) {
		s, _ := v.(string)
		if s != stdinInput && s != stdinEnvelope {
			return cfg, configErr("/stdin", i18n.M("must be input or envelope; got %s", jsonValue(v)))
		}
		cfg.stdin = s
	}

	if v, ok := with["stderr_limit"]; ok && !unknown(v) {
		n, isInt := intValue(v)
		if !isInt || n < 0 || n > 1<<30 {
			return cfg, configErr("/stderr_limit", i18n.M("must be an integer number of bytes from 0 to 1 GiB, got %s", jsonValue(v)))
		}
		cfg.stderrLimit = int(n)
	}
	return cfg, nil
}

func argvOf(v any) ([]string, error) {
	var items []any
	switch a := v.(type) {
	case []any:
		items = a
	case []string: // configurations built in Go rather than decoded
		return slices.Clone(a), checkArgv(a)
	default:
		return nil, configErr("/command", i18n.M("must be an array of strings, got %s", jsonType(v)))
	}
	argv := make([]string, len(items))
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, configErr(fmt.Sprintf("/command/%d", i), i18n.M("must be a string, got %s", jsonType(item)))
		}
		argv[i] = s
	}
	return argv, checkArgv(argv)
}

func checkArgv(argv []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return configErr("/command", i18n.M("must name a program"))
	}
	return nil
}

func envOf(v any) ([]string, error) {
	var m map[string]string
	switch e := v.(type) {
	case map[string]string:
		m = e
	case map[string]any:
		m = make(map[string]string, len(e))
		for k, val := range e {
			s, ok := val.(string)
			if !ok {
				return nil, configErr("/env/"+pointerEscape(k), i18n.M("must be a string, got %s (quote it)", jsonType(val)))
			}
			m[k] = s
		}
	default:
		return nil, configErr("/env", i18n.M("must be a mapping of names to strings, got %s", jsonType(v)))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, configErr("/env/"+pointerEscape(k), i18n.M("invalid variable name %q", k))
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + m[k]
	}
	return env, nil
}

// Run runs the command once. See DESIGN.md, "The engine", for the contract of each mode.
// The command may print a secret it was given (in its arguments or environment): the log and
// the error, which quotes stderr, have the call's secrets masked.
func (t execType) Run(ctx context.Context, call *Call) (*Result, error) {
	res, err := t.run(ctx, call)
	if res != nil {
		res.Log = MaskString(res.Log, call.Secrets)
	}
	return res, MaskError(err, call.Secrets)
}

func (t execType) run(ctx context.Context, call *Call) (*Result, error) {
	cfg, err := parseExecConfig(call.With, false)
	if err != nil {
		return nil, err
	}
	var stdin []byte
	if cfg.stdin == stdinEnvelope {
		vs := call.Violations
		if vs == nil {
			vs = []contract.Violation{} // a list, so that scripts can iterate without a check
		}
		stdin, err = json.Marshal(envelope{Input: call.Input, Seam: envelopeSeam{
			Node: call.Node, Attempt: call.Attempt, Violations: vs,
		}})
	} else {
		stdin, err = json.Marshal(call.Input)
	}
	if err != nil {
		return nil, fmt.Errorf("exec: encode input: %w", err)
	}
	dir := cfg.dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(call.Dir, dir)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("exec: working directory: %w", err)
	}
	// Starting in a missing directory fails as "fork/exec PROGRAM: no such file or directory",
	// which blames the program.
	if err := checkDir(call.Lang, dir); err != nil {
		return nil, err
	}

	name := cfg.argv[0] // as the user wrote it, for messages
	argv := slices.Clone(cfg.argv)
	if cfg.shell {
		name, argv = "sh -c", []string{"/bin/sh", "-c", cfg.argv[0]}
	} else if !filepath.IsAbs(argv[0]) && strings.ContainsRune(argv[0], filepath.Separator) {
		// ./x.py means the one next to the node's files, wherever seam was started.
		argv[0] = filepath.Join(dir, argv[0])
	}
	// exec sets PWD only when it builds the environment itself; shells and os.Getwd trust it.
	env := append(baseEnv(os.Environ()), "PWD="+dir)
	env = append(env, call.Env...)
	env = append(env, cfg.env...)
	cmd := proc.Command{
		Argv:        argv,
		Dir:         dir,
		Env:         env,
		Stdin:       stdin,
		OutputLimit: call.outputLimit(),
		StderrLimit: cfg.stderrLimit,
		Lang:        call.Lang,
		Guard:       t.guard,
	}
	if call.Live != nil { // not a nil *LiveLog in a non-nil io.Writer
		cmd.Live = call.Live
		if cfg.output == outputText {
			// Plain text on stdout is what such a command says as it goes: a watcher sees it
			// with stderr, as the two are written.
			cmd.LiveStdout = call.Live.Stdout()
		}
	}
	p, err := proc.Run(ctx, cmd)
	res := &Result{Log: stderrLog(p)}
	var out string // the end of a failed command's stdout, not of one that wrote too much
	var dropped int64
	if errors.Is(err, proc.ErrOutputLimit) {
		err = &OutputLimitError{Limit: call.outputLimit(), Lang: call.Lang}
	} else if err != nil {
		out, dropped = stdoutTail(p.Stdout, cfg.stderrLimit)
	}
	if err != nil {
		switch excerpt := stderrExcerpt(res.Log); {
		case excerpt != "":
			err = fmt.Errorf("%w; stderr:\n%s", err, excerpt)
		case out != "":
			err = fmt.Errorf("%w; stdout:\n%s", err, stderrExcerpt(out))
		}
		// Scripts that print their errors on stdout say nothing else: the log keeps its end.
		switch {
		case out == "":
		case dropped > 0:
			res.Log += fmt.Sprintf("stdout: [%s dropped]\n%s", formatSize(dropped), out)
		default:
			res.Log += "stdout:\n" + out
		}
		return res, fmt.Errorf("exec %s: %w", name, err)
	}

	switch cfg.output {
	case outputWrap:
		res.Output, err = wrapJSON(call.Lang, p.Stdout)
	case outputText:
		res.Output, err = wrapText(p.Stdout)
	default:
		res.Output = p.Stdout
		// The engine reports stdout that is not JSON as a broken contract; a script that
		// prints its logs on stdout meets that first.
		res.NotJSONHint = i18n.Sprintf(call.Lang, "exec reads the output as JSON on stdout: print logs to stderr, or use output: text for plain text")
	}
	if err != nil {
		return res, fmt.Errorf("exec %s: %w", name, err)
	}
	return res, nil
}

// stderrLog is the tail of a command's stderr kept with the attempt, saying how much of it
// was dropped before.
func stderrLog(p proc.Result) string {
	if p.StderrDropped == 0 {
		return string(p.Stderr)
	}
	return fmt.Sprintf("[%s of stderr dropped]\n%s", formatSize(p.StderrDropped), p.Stderr)
}

// stdoutTail is the end of a failed command's stdout, at most limit bytes from a line's start
// (unless that leaves nothing) and a character's, without trailing newlines, and how many
// bytes before it were dropped.
func stdoutTail(stdout []byte, limit int) (string, int64) {
	out := bytes.TrimRight(stdout, "\n")
	if len(out) <= limit {
		return string(out), 0
	}
	tail := out[len(out)-limit:]
	if out[len(out)-limit-1] != '\n' {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			tail = tail[i+1:]
		}
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return string(tail), int64(len(out) - len(tail))
}

// checkDir says in lang what is wrong with dir as a working directory, if anything.
func checkDir(lang i18n.Lang, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return i18n.Errorf(lang, "exec: dir %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("exec: dir %s: %w", dir, errors.Unwrap(err)) // not "stat DIR: …"
	case !fi.IsDir():
		return i18n.Errorf(lang, "exec: dir %s: not a directory", dir)
	}
	return nil
}

// wrapJSON puts stdout, any one JSON value, into a passing output's data; its errors are
// said in lang.
func wrapJSON(lang i18n.Lang, stdout []byte) ([]byte, error) {
	v := bytes.TrimSpace(stdout)
	if len(v) == 0 {
		return nil, i18n.Errorf(lang, "output: wrap needs one JSON value on stdout, got nothing")
	}
	if !json.Valid(v) {
		return nil, i18n.Errorf(lang, "output: wrap needs one JSON value on stdout, got %s (use output: text for plain text)", excerpt(v, 80))
	}
	data := json.RawMessage(v)
	if v[0] != '{' {
		data = slices.Concat([]byte(`{"value":`), v, []byte("}"))
	}
	return json.Marshal(struct {
		Status  string          `json:"status"`
		Summary string          `json:"summary"`
		Data    json.RawMessage `json:"data"`
	}{"pass", "exited 0", data})
}

// wrapText puts stdout into a passing output's data.text, less one trailing newline (as a
// shell's $(…) drops the newline echo adds); its first line is the summary.
func wrapText(stdout []byte) ([]byte, error) {
	stdout = bytes.TrimSuffix(stdout, []byte("\n"))
	summary := "exited 0 with no output"
	for line := range strings.Lines(string(stdout)) {
		if line = strings.TrimSpace(line); line != "" {
			summary = truncateRunes(line, summaryMax)
			break
		}
	}
	type data struct {
		Text string `json:"text"`
	}
	return json.Marshal(struct {
		Status  string `json:"status"`
		Summary string `json:"summary"`
		Data    data   `json:"data"`
	}{"pass", summary, data{string(stdout)}})
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// stderrExcerpt is the last lines of the log, short enough for an error message.
func stderrExcerpt(log string) string {
	log = strings.TrimRight(log, "\n\t ")
	if len(log) <= errStderrMax {
		return log
	}
	log = log[len(log)-errStderrMax:]
	if i := strings.IndexByte(log, '\n'); i >= 0 {
		return "…" + log[i:]
	}
	return "…" + strings.ToValidUTF8(log, "")
}

// excerpt quotes the start of b for a message.
func excerpt(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return fmt.Sprintf("%q", truncateRunes(s, n))
}

// jsonType names v's JSON type for messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any, []string:
		return "array"
	case map[string]any, map[string]string:
		return "object"
	case int, int64, uint64, float64, json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonValue renders v as JSON for messages.
func jsonValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncateRunes(string(b), 60)
}

// pointerEscape escapes a key for a JSON Pointer.
func pointerEscape(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
