// Package n8n will hold the n8n REST client, the n8n node types and the workflow validator.
package n8n
