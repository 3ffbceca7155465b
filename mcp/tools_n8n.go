package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

func (s *server) addN8NTools(srv *sdk.Server) error { return nil }
