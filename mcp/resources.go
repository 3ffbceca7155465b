package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// runURIPrefix starts the URI of a recorded run: seam://runs/{id}.
const runURIPrefix = "seam://runs/"

// addResources offers recorded runs as resources, for clients that attach them to a
// conversation rather than call get_run.
func (s *server) addResources(srv *sdk.Server) {
	if s.opts.Store == nil {
		return
	}
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "run",
		Title:       "A recorded run",
		URITemplate: runURIPrefix + "{id}",
		MIMEType:    "application/json",
		Description: "A run from the run store, in full: the run and every attempt with its output, violations and log " +
			"(get_run with raw: true). {id} is a run id, or latest.",
	}, s.readRun)
}

func (s *server) readRun(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, _ := strings.CutPrefix(uri, runURIPrefix)
	if id == "" || strings.Contains(id, "/") {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	_, data, err := s.getRun(ctx, nil, GetRunInput{ID: id, Common: Common{Raw: true}})
	var te *toolError
	switch {
	case errors.As(err, &te) && te.code == CodeRunNotFound:
		return nil, sdk.ResourceNotFoundError(uri)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}
