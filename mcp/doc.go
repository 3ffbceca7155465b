// Package mcp is seam's MCP server: it exposes linting, running and inspecting DAGs,
// checking contracts, and reading, writing and validating n8n workflows and executions, as
// tools an AI agent calls over the Model Context Protocol.
//
// Every tool answers with the same envelope, shaped in one place (respond.go):
// {success, message, data} or {success: false, message, error: {code, details}} with the
// result marked as an error. Responses are minimal unless the call sets raw: they keep what
// the next call needs (ids, statuses, counts, the first errors and suggestions) and drop
// full outputs and statistics.
package mcp
