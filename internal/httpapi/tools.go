package httpapi

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListTools lists a server's tools.
func (s *Server) ListTools(ctx context.Context, req api.ListToolsRequestObject) (api.ListToolsResponseObject, error) {
	items, err := listOfServer(ctx, s, req.ServerId, (*store.Tx).Tools, apiTool)
	if err != nil {
		return nil, err
	}
	return api.ListTools200JSONResponse{Items: items}, nil
}

// CreateTool adds a tool, with its scenarios, to a server.
func (s *Server) CreateTool(ctx context.Context, req api.CreateToolRequestObject) (api.CreateToolResponseObject, error) {
	t := designwire.ToolFromCreate(*req.Body)
	t.ID, t.ServerID = uuid.New(), req.ServerId
	t, err := addToServer(ctx, s, req.ServerId, t, design.CheckTool, "tools", design.MaxTools,
		func(c store.Counts) int64 { return c.Tools }, (*store.Tx).CreateTool)
	if err != nil {
		return nil, err
	}
	return api.CreateTool201JSONResponse(apiTool(t)), nil
}

// GetTool reads one tool.
func (s *Server) GetTool(ctx context.Context, req api.GetToolRequestObject) (api.GetToolResponseObject, error) {
	v, err := itemOfServer(ctx, s, req.ServerId, req.ToolId, (*store.Tx).Tool)
	if err != nil {
		return nil, err
	}
	return api.GetTool200JSONResponse(apiTool(v)), nil
}

// UpdateTool changes the given fields of a tool.
func (s *Server) UpdateTool(ctx context.Context, req api.UpdateToolRequestObject) (api.UpdateToolResponseObject, error) {
	b := req.Body
	t, err := editInServer(ctx, s, req.ServerId, req.ToolId, (*store.Tx).Tool, func(t *design.Tool) error {
		if b.Name != nil {
			t.Name = *b.Name
		}
		t.Description = or(b.Description, t.Description)
		t.InputSchema = or(b.InputSchema, t.InputSchema)
		if b.OutputSchema.IsSpecified() {
			t.OutputSchema = nil
			if v, err := b.OutputSchema.Get(); err == nil {
				t.OutputSchema = json.RawMessage(v)
			}
		}
		if b.MockScenarios != nil {
			t.Scenarios = storeScenarios(*b.MockScenarios)
		}
		if b.RequiredClientCapabilities != nil {
			t.RequiredClientCapabilities = storeCapabilities(*b.RequiredClientCapabilities)
		}
		if b.RequiredScopes != nil {
			t.RequiredScopes = storeScopes(*b.RequiredScopes)
		}
		t.Fault = designwire.PatchFault(t.Fault, b.Fault)
		t.Meta = designwire.PatchMeta(t.Meta, b.Meta)
		return nil
	}, design.CheckTool, (*store.Tx).UpdateTool)
	if err != nil {
		return nil, err
	}
	return api.UpdateTool200JSONResponse(apiTool(t)), nil
}

// DeleteTool deletes a tool.
func (s *Server) DeleteTool(ctx context.Context, req api.DeleteToolRequestObject) (api.DeleteToolResponseObject, error) {
	if err := removeFromServer(ctx, s, req.ServerId, req.ToolId, (*store.Tx).DeleteTool); err != nil {
		return nil, err
	}
	return api.DeleteTool204Response{}, nil
}
