// Package mcp will hold seam's MCP server.
package mcp
