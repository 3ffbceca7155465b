// Package n8n is seam's n8n support: a client for n8n's public REST API v1 (workflows,
// executions, tags; cursor paging, retries of idempotent calls, the API key kept out of
// every error) and the n8n.* node types built on it (n8n.workflows.*, n8n.executions.*,
// n8n.webhook, n8n.validate). The workflow validator and its node catalog are the
// sub-packages validate and catalog; create and update validate before they write.
//
// The types read their connection from their `with` (url, api_key_env, insecure), which
// the DAG's `n8n:` block fills in, else from N8N_URL and N8N_API_KEY. The API key is read
// when a node runs, from the environment variable named, and goes only into the request
// header.
package n8n
