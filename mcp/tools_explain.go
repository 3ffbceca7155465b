package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

func (s *server) addExplainTools(srv *sdk.Server) error { return nil }
