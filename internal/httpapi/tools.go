package httpapi

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListTools lists a server's tools.
func (s *Server) ListTools(ctx context.Context, req api.ListToolsRequestObject) (api.ListToolsResponseObject, error) {
	var tools []design.Tool
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		if _, err = tx.Server(ctx, req.ServerId); err != nil {
			return err
		}
		tools, err = tx.Tools(ctx, req.ServerId)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := api.ListTools200JSONResponse{Items: make([]api.Tool, len(tools))}
	for i, t := range tools {
		out.Items[i] = apiTool(t)
	}
	return out, nil
}

// CreateTool adds a tool, with its scenarios, to a server.
func (s *Server) CreateTool(ctx context.Context, req api.CreateToolRequestObject) (api.CreateToolResponseObject, error) {
	b := req.Body
	t := design.Tool{ID: uuid.New(), ServerID: req.ServerId, Name: b.Name, Description: deref(b.Description),
		InputSchema: or(b.InputSchema, design.DefaultInputSchema), Scenarios: []design.Scenario{}}
	if v, err := b.OutputSchema.Get(); err == nil {
		t.OutputSchema = v
	}
	if b.MockScenarios != nil {
		t.Scenarios = storeScenarios(*b.MockScenarios)
	}
	if err := design.CheckTool(t); err != nil {
		return nil, err
	}
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, c store.Counts) (err error) {
		if c.Tools >= design.MaxTools {
			return design.Limit("tools", design.MaxTools)
		}
		t, err = tx.CreateTool(ctx, t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateTool201JSONResponse(apiTool(t)), nil
}

// GetTool reads one tool.
func (s *Server) GetTool(ctx context.Context, req api.GetToolRequestObject) (api.GetToolResponseObject, error) {
	var t design.Tool
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		t, err = tx.Tool(ctx, req.ServerId, req.ToolId)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.GetTool200JSONResponse(apiTool(t)), nil
}

// UpdateTool changes the given fields of a tool.
func (s *Server) UpdateTool(ctx context.Context, req api.UpdateToolRequestObject) (api.UpdateToolResponseObject, error) {
	b := req.Body
	var t design.Tool
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) (err error) {
		if t, err = tx.Tool(ctx, req.ServerId, req.ToolId); err != nil {
			return err
		}
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
		if err := design.CheckTool(t); err != nil {
			return err
		}
		t, err = tx.UpdateTool(ctx, t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateTool200JSONResponse(apiTool(t)), nil
}

// DeleteTool deletes a tool.
func (s *Server) DeleteTool(ctx context.Context, req api.DeleteToolRequestObject) (api.DeleteToolResponseObject, error) {
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) error {
		return tx.DeleteTool(ctx, req.ServerId, req.ToolId)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteTool204Response{}, nil
}

// inServer runs fn on a locked server, then marks the server as changed.
// The lock serializes changes to one server, so its limits hold under
// concurrent requests.
func (s *Server) inServer(ctx context.Context, server uuid.UUID, fn func(*store.Tx, store.Counts) error) error {
	return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		if _, err := tx.LockServer(ctx, server); err != nil {
			return err
		}
		counts, err := tx.CountChildren(ctx, server)
		if err != nil {
			return err
		}
		if err := fn(tx, counts); err != nil {
			return err
		}
		return tx.TouchServer(ctx, server)
	})
}
