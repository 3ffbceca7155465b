package dag

import (
	"github.com/seam-dag/seam/internal/i18n"

	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/nodes"
)

// EnvVar is an environment variable a DAG opts in to reading, or a literal setting it
// gives itself (Dagu's `env: [{LOG_LEVEL: debug}]`): the same env.NAME reads both.
type EnvVar struct {
	Name string
	Pos  Pos // where the file lists it
	// Literal says the file gives the value itself (Value): not read from seam's environment,
	// and no secret, so it is not masked.
	Literal bool
	Value   string
}

// envVars reads the top-level `env:`: a list whose items are the names of variables read from
// seam's environment (secrets) or one-pair mappings NAME: value (literal settings), or a
// mapping of literal settings. Only these may be read as env.NAME: a DAG never reads the
// environment unless its file says so, where a reviewer sees it.
func (l *loader) envVars(f field) []EnvVar {
	hint := i18n.Format(l.lang, "list the variables' names, or give literal values: `env: [API_TOKEN, {LOG_LEVEL: debug}]`")
	v := deref(f.val)
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	var vars []EnvVar
	add := func(key *yaml.Node, e EnvVar) {
		if !validEnvName(e.Name) {
			l.addAt(key, CodeInvalid, i18n.Format(l.lang, "a name has letters, digits and _, and does not start with a digit"),
				i18n.Sprintf(l.lang, "env: %q is not an environment variable name", e.Name))
			return
		}
		if i := slices.IndexFunc(vars, func(x EnvVar) bool { return x.Name == e.Name }); i >= 0 {
			l.addAt(key, CodeInvalid, i18n.Format(l.lang, "list each variable once"),
				i18n.Sprintf(l.lang, "env: %s is listed twice (first at line %d)", e.Name, vars[i].Pos.Line))
			return
		}
		vars = append(vars, e)
	}
	// literals adds the pairs of mapping m, each a literal setting.
	literals := func(m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			key, val := deref(m.Content[i]), deref(m.Content[i+1])
			if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
				l.addAt(val, CodeInvalid, i18n.Sprintf(l.lang, "write a string, a number or a boolean, or list %s by name to read it from seam's environment", key.Value),
					i18n.Sprintf(l.lang, "env: %s: want a literal value, not %s", key.Value, kindOf(l.lang, val)))
				continue
			}
			add(key, EnvVar{Name: key.Value, Pos: l.pos(key), Literal: true, Value: val.Value})
		}
	}
	switch v.Kind {
	case yaml.MappingNode:
		literals(v)
		return vars
	case yaml.SequenceNode:
	default:
		l.addAt(v, CodeInvalid, hint, i18n.Sprintf(l.lang, "env must be a list of variable names and literal settings, or a mapping of literal settings, not %s", kindOf(l.lang, v)))
		return nil
	}
	for _, item := range v.Content {
		item = deref(item)
		switch {
		case item.Kind == yaml.MappingNode && len(item.Content) == 2:
			literals(item)
		case item.Kind == yaml.ScalarNode && item.Tag == "!!str":
			add(item, EnvVar{Name: item.Value, Pos: l.pos(item)})
		default:
			l.addAt(item, CodeInvalid, hint, i18n.Sprintf(l.lang, "env: want a variable name, not %s", kindOf(l.lang, item)))
		}
	}
	return vars
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range []byte(s) {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// checkEnv reports a reference to env that does not name one declared variable.
func (l *loader) checkEnv(r Ref, d *DAG) {
	if len(r.Path) == 0 {
		l.add(r.Pos, CodeExpr, i18n.Format(l.lang, "write env.NAME, with NAME listed under the DAG's env"),
			i18n.Format(l.lang, "env is read one variable at a time, by a constant name: env.NAME"))
		return
	}
	name := r.Path[0]
	names := make([]string, len(d.Env))
	for i, e := range d.Env {
		names[i] = e.Name
	}
	if !slices.Contains(names, name) {
		hint := i18n.Sprintf(l.lang, "add %s to the DAG's top-level env list: `env: [%s]` (its value is then treated as a secret)", name, strings.Join(append(names, name), ", "))
		if s := didYouMean(name, names, nil); s != "" {
			l.add(r.Pos, CodeUndeclaredEnv, i18n.Sprintf(l.lang, "use env.%s, or %s", s, hint),
				i18n.Sprintf(l.lang, "env.%s is not declared; did you mean env.%s?", name, s))
			return
		}
		l.add(r.Pos, CodeUndeclaredEnv, hint, i18n.Sprintf(l.lang, "env.%s is not declared: the DAG does not list %s under env", name, name))
	}
	// env.NAME.x needs no check here: CEL knows env's values are strings and refuses it.
}

// LookupEnv reads the variables d declares under env, with getenv (os.Getenv). A declared
// variable that is unset or empty is an error, said in lang: a run would otherwise send an
// empty credential. The result is what Scope.Env holds for the run.
func LookupEnv(d *DAG, getenv func(string) string, lang i18n.Lang) (map[string]string, error) {
	if len(d.Env) == 0 {
		return nil, nil
	}
	env := make(map[string]string, len(d.Env))
	var missing []string
	for _, e := range d.Env {
		if e.Literal {
			env[e.Name] = e.Value
			continue
		}
		v := getenv(e.Name)
		if v == "" {
			missing = append(missing, i18n.Sprintf(lang, "%s (listed at %s:%d:%d)", e.Name, e.Pos.File, e.Pos.Line, e.Pos.Col))
			continue
		}
		env[e.Name] = v
	}
	switch len(missing) {
	case 0:
		return env, nil
	case 1:
		return nil, i18n.Errorf(lang, "environment variable %s is not set; the DAG reads it through env", missing[0])
	}
	return nil, i18n.Errorf(lang, "environment variables not set, which the DAG reads through env: %s", strings.Join(missing, i18n.Format(lang, ", ")))
}

// Secrets returns the values of env (LookupEnv's result) that d reads from seam's
// environment, every one a secret: the engine passes them to node types
// (nodes.Call.Secrets), which mask them, and masks them itself wherever it shows or stores
// text. Literal settings are not secrets. Sorted, for a stable order.
func Secrets(d *DAG, env map[string]string) []string {
	s := make([]string, 0, len(env))
	for _, e := range d.Env {
		if v := env[e.Name]; v != "" && !e.Literal {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// SecretNames are the variables d reads from seam's environment under env, in file order:
// its secrets, where the literal settings beside them are not.
func (d *DAG) SecretNames() []string {
	var names []string
	for _, e := range d.Env {
		if !e.Literal {
			names = append(names, e.Name)
		}
	}
	return names
}

// ShortSecrets says in lang, for each variable d declares under env whose value in env
// (LookupEnv's result) is shorter than nodes.MinSecret, that the value will not be masked: a
// warning, since the run may go on, but the person who set it should know.
func ShortSecrets(d *DAG, env map[string]string, lang i18n.Lang) []string {
	var out []string
	for _, e := range d.Env {
		if v, ok := env[e.Name]; ok && !e.Literal && len(v) < nodes.MinSecret {
			out = append(out, i18n.Sprintf(lang, "env %s (listed at %s:%d:%d) holds %d bytes, fewer than the %d a secret needs to be masked: its value will show in outputs, logs and the run store",
				e.Name, e.Pos.File, e.Pos.Line, e.Pos.Col, len(v), nodes.MinSecret))
		}
	}
	return out
}
