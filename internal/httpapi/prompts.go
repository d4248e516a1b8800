package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListPrompts lists a server's prompts.
func (s *Server) ListPrompts(ctx context.Context, req api.ListPromptsRequestObject) (api.ListPromptsResponseObject, error) {
	items, err := listOfServer(ctx, s, req.ServerId, (*store.Tx).Prompts, apiPrompt)
	if err != nil {
		return nil, err
	}
	return api.ListPrompts200JSONResponse{Items: items}, nil
}

// CreatePrompt adds a prompt to a server.
func (s *Server) CreatePrompt(ctx context.Context, req api.CreatePromptRequestObject) (api.CreatePromptResponseObject, error) {
	p := designwire.PromptFromCreate(*req.Body)
	p.ID, p.ServerID = uuid.New(), req.ServerId
	p, err := addToServer(ctx, s, req.ServerId, p, design.CheckPrompt, "prompts", design.MaxPrompts,
		func(c store.Counts) int64 { return c.Prompts }, (*store.Tx).CreatePrompt)
	if err != nil {
		return nil, err
	}
	return api.CreatePrompt201JSONResponse(apiPrompt(p)), nil
}

// GetPrompt reads one prompt.
func (s *Server) GetPrompt(ctx context.Context, req api.GetPromptRequestObject) (api.GetPromptResponseObject, error) {
	v, err := itemOfServer(ctx, s, req.ServerId, req.PromptId, (*store.Tx).Prompt)
	if err != nil {
		return nil, err
	}
	return api.GetPrompt200JSONResponse(apiPrompt(v)), nil
}

// UpdatePrompt changes the given fields of a prompt.
func (s *Server) UpdatePrompt(ctx context.Context, req api.UpdatePromptRequestObject) (api.UpdatePromptResponseObject, error) {
	b := req.Body
	p, err := editInServer(ctx, s, req.ServerId, req.PromptId, (*store.Tx).Prompt, func(p *design.Prompt) error {
		p.Name = or(b.Name, p.Name)
		p.Description = or(b.Description, p.Description)
		if b.Arguments != nil {
			p.Arguments = storeArguments(*b.Arguments)
		}
		if b.Messages != nil {
			p.Messages = storeMessages(*b.Messages)
		}
		if b.Ask != nil {
			p.Ask = *b.Ask
		}
		if b.Then != nil {
			p.Then = *b.Then
		}
		return nil
	}, design.CheckPrompt, (*store.Tx).UpdatePrompt)
	if err != nil {
		return nil, err
	}
	return api.UpdatePrompt200JSONResponse(apiPrompt(p)), nil
}

// DeletePrompt deletes a prompt.
func (s *Server) DeletePrompt(ctx context.Context, req api.DeletePromptRequestObject) (api.DeletePromptResponseObject, error) {
	if err := removeFromServer(ctx, s, req.ServerId, req.PromptId, (*store.Tx).DeletePrompt); err != nil {
		return nil, err
	}
	return api.DeletePrompt204Response{}, nil
}
