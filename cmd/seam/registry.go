package main

import (
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// types returns the node types the CLI offers: the generic built-ins, dag (which loads the
// files it runs with load) and n8n's. The n8n types read N8N_URL and the API key's variable
// through e, so tests can inject them.
func types(e *env, load engine.DAGLoader) *nodes.Registry {
	reg := nodes.BuiltinWithHTTPTransport(httpTransport(e))
	engine.AddDAGType(reg, e.getenv, load)
	for _, t := range n8n.Types(n8nOptions(e)) {
		reg.Add(t)
	}
	return reg
}

// typesOf builds the CLI's node types for the workspace w (workspace.Options.Types): dag
// loads through w.
func typesOf(e *env) func(w *workspace.Workspace) *nodes.Registry {
	return func(w *workspace.Workspace) *nodes.Registry { return types(e, w) }
}

// openWorkspace opens the workspace the CLI loads DAG files through, in lang: unconfined,
// since the CLI reads the files its user names (absolute sub-DAG paths included), each
// within $SEAM_MAX_FILE_SIZE. Root confines a server's (seam mcp, seam serve: "" is none).
func openWorkspace(e *env, root string, lang i18n.Lang) (*workspace.Workspace, error) {
	w, err := workspace.New(workspace.Options{Root: root, Getenv: e.getenv, Lang: lang, Types: typesOf(e)})
	if err != nil {
		return nil, usage(err)
	}
	return w, nil
}

// registry returns the CLI's node types, those of an unconfined workspace within the
// default size limit: for what lists them without loading DAG files (seam types) or runs
// them elsewhere (seam worker, whose sub-DAGs run as child workflows).
func registry(e *env) *nodes.Registry {
	// Unconfined and reading no variable, New does not fail.
	w, _ := workspace.New(workspace.Options{Types: typesOf(e)})
	return w.Types()
}
