package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListPrompts lists a server's prompts.
func (s *Server) ListPrompts(ctx context.Context, req api.ListPromptsRequestObject) (api.ListPromptsResponseObject, error) {
	var ps []design.Prompt
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		if _, err = tx.Server(ctx, req.ServerId); err != nil {
			return err
		}
		ps, err = tx.Prompts(ctx, req.ServerId)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := api.ListPrompts200JSONResponse{Items: make([]api.Prompt, len(ps))}
	for i, p := range ps {
		out.Items[i] = apiPrompt(p)
	}
	return out, nil
}

// CreatePrompt adds a prompt to a server.
func (s *Server) CreatePrompt(ctx context.Context, req api.CreatePromptRequestObject) (api.CreatePromptResponseObject, error) {
	b := req.Body
	p := design.Prompt{ID: uuid.New(), ServerID: req.ServerId, Name: b.Name, Description: deref(b.Description),
		Arguments: storeArguments(deref(b.Arguments)), Messages: storeMessages(deref(b.Messages))}
	if err := design.CheckPrompt(p); err != nil {
		return nil, err
	}
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, c store.Counts) (err error) {
		if c.Prompts >= design.MaxPrompts {
			return design.Limit("prompts", design.MaxPrompts)
		}
		p, err = tx.CreatePrompt(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreatePrompt201JSONResponse(apiPrompt(p)), nil
}

// GetPrompt reads one prompt.
func (s *Server) GetPrompt(ctx context.Context, req api.GetPromptRequestObject) (api.GetPromptResponseObject, error) {
	var p design.Prompt
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		p, err = tx.Prompt(ctx, req.ServerId, req.PromptId)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.GetPrompt200JSONResponse(apiPrompt(p)), nil
}

// UpdatePrompt changes the given fields of a prompt.
func (s *Server) UpdatePrompt(ctx context.Context, req api.UpdatePromptRequestObject) (api.UpdatePromptResponseObject, error) {
	b := req.Body
	var p design.Prompt
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) (err error) {
		if p, err = tx.Prompt(ctx, req.ServerId, req.PromptId); err != nil {
			return err
		}
		p.Name = or(b.Name, p.Name)
		p.Description = or(b.Description, p.Description)
		if b.Arguments != nil {
			p.Arguments = storeArguments(*b.Arguments)
		}
		if b.Messages != nil {
			p.Messages = storeMessages(*b.Messages)
		}
		if err := design.CheckPrompt(p); err != nil {
			return err
		}
		p, err = tx.UpdatePrompt(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdatePrompt200JSONResponse(apiPrompt(p)), nil
}

// DeletePrompt deletes a prompt.
func (s *Server) DeletePrompt(ctx context.Context, req api.DeletePromptRequestObject) (api.DeletePromptResponseObject, error) {
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) error {
		return tx.DeletePrompt(ctx, req.ServerId, req.PromptId)
	})
	if err != nil {
		return nil, err
	}
	return api.DeletePrompt204Response{}, nil
}
