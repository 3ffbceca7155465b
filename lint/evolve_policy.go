package lint

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
)

// Policy is what a team decided about the findings of seam lint --against (the policy file,
// --policy): breaks it accepts, by fingerprint, and severities it overrides.
type Policy struct {
	Accept []Accepted `yaml:"accept"`
	// Severity maps a code (SEAM-W305) or a change (newly-unknown) to error, warning, info or
	// off (the finding is dropped). A code's entry wins over its change's.
	Severity map[string]string `yaml:"severity"`
	// Consumers are DAG files in other repositories that read this one's contracts.
	Consumers []Consumer `yaml:"consumers"`
}

// Consumer is a directory of DAG files in another git repository that reads this
// repository's files through a path of its own (a submodule, say): Mount is that path,
// relative to its top level. Its DAGs are judged with this repository's files as they are
// now and as they were at the revision, read at Mount.
type Consumer struct {
	Repo  string `yaml:"repo"` // a git URL: https://…, ssh, file://…
	Ref   string `yaml:"ref"`  // a branch or a tag
	Dir   string `yaml:"dir"`  // the directory of its DAG files; "" for all
	Mount string `yaml:"mount"`
	// Timeout bounds fetching and judging the consumer (a Go duration, 1s to 1h; default
	// DefaultConsumerTimeout): a repository that never answers must not hang the gate.
	Timeout string `yaml:"timeout"`
}

// DefaultConsumerTimeout is a consumer's timeout when its policy entry names none.
const DefaultConsumerTimeout = 2 * time.Minute

// Deadline is how long the gate may take over c: its timeout, else the default. ParsePolicy
// has checked it.
func (c Consumer) Deadline() time.Duration {
	if d, err := time.ParseDuration(c.Timeout); err == nil {
		return d
	}
	return DefaultConsumerTimeout
}

// Accepted is a finding a team accepts: it is kept, as a note, with the reason.
type Accepted struct {
	Fingerprint string `yaml:"fingerprint"`
	Reason      string `yaml:"reason"`
}

// severityOff drops a finding (Policy.Severity).
const severityOff = "off"

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ParsePolicy reads a policy file (YAML). Unknown keys, a fingerprint that is not one, an
// accepted break without a reason and a severity that is none are errors, said in lang.
func ParsePolicy(src []byte, lang i18n.Lang) (Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return Policy{}, i18n.Errorf(lang, "policy file: %v", err)
	}
	for i, a := range p.Accept {
		if !fingerprintRE.MatchString(a.Fingerprint) {
			return Policy{}, i18n.Errorf(lang, "policy file: accept[%d]: fingerprint %q is not 16 hexadecimal digits, as seam lint --against prints them", i, a.Fingerprint)
		}
		if a.Reason == "" {
			return Policy{}, i18n.Errorf(lang, "policy file: accept[%d]: say why the break is accepted (reason)", i)
		}
	}
	for i, c := range p.Consumers {
		if c.Repo == "" || c.Ref == "" || c.Mount == "" {
			return Policy{}, i18n.Errorf(lang, "policy file: consumers[%d]: repo, ref and mount are required", i)
		}
		if m := path.Clean(c.Mount); path.IsAbs(m) || m == "." || m == ".." || strings.HasPrefix(m, "../") {
			return Policy{}, i18n.Errorf(lang, "policy file: consumers[%d]: mount %q must be a path inside the consumer's repository", i, c.Mount)
		}
		if c.Timeout != "" {
			if d, err := time.ParseDuration(c.Timeout); err != nil || d < time.Second || d > time.Hour {
				return Policy{}, i18n.Errorf(lang, "policy file: consumers[%d]: timeout %q: want a duration from 1s to 1h (default %s)", i, c.Timeout, DefaultConsumerTimeout)
			}
		}
	}
	for k, v := range p.Severity {
		if !slices.Contains([]string{SeverityError, SeverityWarning, SeverityInfo, severityOff}, v) {
			return Policy{}, i18n.Errorf(lang, "policy file: severity of %s: want error, warning, info or off, not %q", k, v)
		}
	}
	return p, nil
}

// Apply returns fs with the policy applied: severities overridden (or findings dropped), then
// accepted breaks turned into notes that say why.
func (p Policy) Apply(fs []Finding, lang i18n.Lang) []Finding {
	reasons := map[string]string{}
	for _, a := range p.Accept {
		reasons[a.Fingerprint] = a.Reason
	}
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		sev, ok := p.Severity[f.Code]
		if !ok {
			sev, ok = p.Severity[f.Change]
		}
		if ok {
			if sev == severityOff {
				continue
			}
			f.Severity = sev
		}
		if r, ok := reasons[f.Fingerprint]; ok && f.Fingerprint != "" && f.Severity != SeverityInfo {
			f.Severity, f.Change = SeverityInfo, ChangeAccepted
			f.Message = i18n.Sprintf(lang, "%s (accepted: %s)", f.Message, r)
		}
		out = append(out, f)
	}
	return out
}

// AcceptIn turns the errors of plain lint findings fs, of the DAG file at file, that the
// policy accepts into notes that say why, as Apply does for the gate's: `seam run --policy`
// runs a DAG whose accepted breaks the gate printed. A finding's fingerprint is the gate's:
// of its path in the git repository that holds file (its name alone outside one).
func (p Policy) AcceptIn(file string, fs []Finding, lang i18n.Lang) []Finding {
	if len(p.Accept) == 0 {
		return fs
	}
	rel := repoPath(file)
	reasons := map[string]string{}
	for _, a := range p.Accept {
		reasons[a.Fingerprint] = a.Reason
	}
	out := slices.Clone(fs)
	for i := range out {
		f := &out[i]
		if f.subject == "" || f.Severity != SeverityError {
			continue
		}
		f.Fingerprint = fingerprint(rel, *f)
		if r, ok := reasons[f.Fingerprint]; ok {
			f.Severity, f.Change = SeverityInfo, ChangeAccepted
			f.Message = i18n.Sprintf(lang, "%s (accepted: %s)", f.Message, r)
		}
	}
	return out
}

// repoPath is file's path in the git repository above it, with slashes, as the gate names
// it; its name alone when no folder above it holds .git.
func repoPath(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Base(file)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, abs)
			if err == nil {
				return filepath.ToSlash(rel)
			}
		}
		if filepath.Dir(dir) == dir {
			return filepath.Base(abs)
		}
	}
}
