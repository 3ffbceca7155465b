package main

import (
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
)

// registry returns the node types the CLI offers: the generic built-ins, dag and n8n's. The n8n
// types read N8N_URL and the API key's variable through e, so tests can inject them.
func registry(e *env) *nodes.Registry {
	reg := nodes.BuiltinWithHTTPTransport(httpTransport(e))
	engine.AddDAGType(reg, e.getenv)
	for _, t := range n8n.Types(n8nOptions(e)) {
		reg.Add(t)
	}
	return reg
}
