package nodes

import "strings"

// baseEnv keeps of environ (seam's own environment, KEY=VALUE) the variables every node's
// process gets without the DAG asking: what a program needs to run as the user who started
// seam and no more. PATH finds programs; HOME, USER, LOGNAME and SHELL say who that user is
// and where their files are; LANG, LANGUAGE and LC_* how to read and write text; TZ the time
// zone; TMPDIR where temporary files go. Everything else stays out: seam's environment holds
// its own credentials (SEAM_STORE's password, SEAM_SERVE_TOKEN, SEAM_MCP_TOKEN, N8N_API_KEY)
// and whatever else the shell that started it exported, and a node that prints its
// environment would put them in the run store. A DAG passes anything more by name, through
// its env list and the exec node's with.env (docs/dag-file.md). TERM is left out on purpose:
// a node's output is a pipe, not a terminal.
func baseEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && inBase(name) {
			env = append(env, kv)
		}
	}
	return env
}

func inBase(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}
