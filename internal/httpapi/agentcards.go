package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListAgentCards lists a page of the organization's agent cards.
func (s *Server) ListAgentCards(ctx context.Context, req api.ListAgentCardsRequestObject) (api.ListAgentCardsResponseObject, error) {
	limit := or(req.Params.Limit, 50)
	after, err := decodeCursor(deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	var status string
	if req.Params.Status != nil {
		status = string(*req.Params.Status)
	}
	out := api.ListAgentCards200JSONResponse{NextCursor: nullableString(nil)}
	err = s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		page, err := tx.AgentCards(ctx, status, after, limit)
		if err != nil {
			return err
		}
		cards := mapEach(page.Cards, func(a store.AgentCard) agentcard.Card { return a.Card })
		cc, err := s.cardContext(ctx, tx, p, cards...)
		if err != nil {
			return err
		}
		out.Items = mapEach(page.Cards, func(a store.AgentCard) api.AgentCard { return cc.view(a, nil) })
		out.NextCursor = cursorOf(page.Next)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CreateAgentCard creates a draft agent card.
func (s *Server) CreateAgentCard(ctx context.Context, req api.CreateAgentCardRequestObject) (api.CreateAgentCardResponseObject, error) {
	b := req.Body
	c := agentcard.Card{
		Name: b.Name, Version: deref(b.Version), Description: deref(b.Description),
		Author: b.Author, License: b.License, Homepage: b.Homepage, Repository: b.Repository,
		Skills: deref(b.Skills), Capabilities: b.Capabilities, Invocation: b.Invocation,
		Examples: deref(b.Examples), Metadata: b.Metadata, Replies: deref(b.Replies),
	}
	if b.Auth.IsSpecified() && !b.Auth.IsNull() {
		a := b.Auth.MustGet()
		c.Auth = &a
	}
	if err := agentcard.CheckStructure(c); err != nil {
		return nil, err
	}
	out, err := s.viewOf(ctx, func(tx *store.Tx, p auth.Principal) (store.AgentCard, error) {
		return tx.CreateAgentCard(ctx, uuid.New(), c, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return api.CreateAgentCard201JSONResponse(out), nil
}

// GetAgentCard reads one agent card, with its current validation.
func (s *Server) GetAgentCard(ctx context.Context, req api.GetAgentCardRequestObject) (api.GetAgentCardResponseObject, error) {
	out, err := s.viewOf(ctx, func(tx *store.Tx, _ auth.Principal) (store.AgentCard, error) {
		return tx.AgentCard(ctx, req.CardId)
	})
	if err != nil {
		return nil, err
	}
	return api.GetAgentCard200JSONResponse(out), nil
}

// UpdateAgentCard changes the given fields of a card.
func (s *Server) UpdateAgentCard(ctx context.Context, req api.UpdateAgentCardRequestObject) (api.UpdateAgentCardResponseObject, error) {
	b := req.Body
	var out api.AgentCard
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) error {
		if b.Name != nil {
			c.Name = *b.Name
		}
		c.Version = or(b.Version, c.Version)
		c.Description = or(b.Description, c.Description)
		c.Author = patchString(c.Author, b.Author)
		c.License = patchString(c.License, b.License)
		c.Homepage = patchString(c.Homepage, b.Homepage)
		c.Repository = patchString(c.Repository, b.Repository)
		if b.Skills != nil {
			c.Skills = *b.Skills
		}
		if b.Examples != nil {
			c.Examples = *b.Examples
		}
		if b.Replies != nil {
			c.Replies = *b.Replies
		}
		c.Capabilities = patchObject(c.Capabilities, b.Capabilities.IsSpecified(), b.Capabilities.IsNull(), b.Capabilities.Get)
		c.Invocation = patchObject(c.Invocation, b.Invocation.IsSpecified(), b.Invocation.IsNull(), b.Invocation.Get)
		c.Metadata = patchObject(c.Metadata, b.Metadata.IsSpecified(), b.Metadata.IsNull(), b.Metadata.Get)
		c.Auth = patchObject(c.Auth, b.Auth.IsSpecified(), b.Auth.IsNull(), b.Auth.Get)
		return nil
	}, func(view api.AgentCard, _ agentcard.Card) { out = view })
	if err != nil {
		return nil, err
	}
	return api.UpdateAgentCard200JSONResponse(out), nil
}

// patchObject applies a nullable PATCH field holding an object: absent
// keeps cur, null clears, a value replaces it whole.
func patchObject[T any](cur *T, specified, null bool, get func() (T, error)) *T {
	if !specified {
		return cur
	}
	if null {
		return nil
	}
	v, err := get()
	if err != nil {
		return cur
	}
	return &v
}

// DeleteAgentCard deletes a card.
func (s *Server) DeleteAgentCard(ctx context.Context, req api.DeleteAgentCardRequestObject) (api.DeleteAgentCardResponseObject, error) {
	if err := removeByID(ctx, s, req.CardId, (*store.Tx).DeleteAgentCard); err != nil {
		return nil, err
	}
	return api.DeleteAgentCard204Response{}, nil
}

// ValidateAgentCard runs every publishing rule on a card.
func (s *Server) ValidateAgentCard(ctx context.Context, req api.ValidateAgentCardRequestObject) (api.ValidateAgentCardResponseObject, error) {
	var out api.AgentCardValidation
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		a, err := tx.AgentCard(ctx, req.CardId)
		if err != nil {
			return err
		}
		cc, err := s.cardContext(ctx, tx, p, a.Card)
		out = validationOf(cc.problems(a.Card))
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.ValidateAgentCard200JSONResponse(out), nil
}

// PublishAgentCard validates a card and, when it passes, publishes it.
func (s *Server) PublishAgentCard(ctx context.Context, req api.PublishAgentCardRequestObject) (api.PublishAgentCardResponseObject, error) {
	out, err := s.setCardStatus(ctx, req.CardId, store.CardPublished)
	if err != nil {
		return nil, err
	}
	return api.PublishAgentCard200JSONResponse(out), nil
}

// UnpublishAgentCard moves a card back to draft.
func (s *Server) UnpublishAgentCard(ctx context.Context, req api.UnpublishAgentCardRequestObject) (api.UnpublishAgentCardResponseObject, error) {
	out, err := s.setCardStatus(ctx, req.CardId, store.CardDraft)
	if err != nil {
		return nil, err
	}
	return api.UnpublishAgentCard200JSONResponse(out), nil
}

func (s *Server) setCardStatus(ctx context.Context, id uuid.UUID, status string) (api.AgentCard, error) {
	var out api.AgentCard
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		a, err := tx.LockAgentCard(ctx, id)
		if err != nil {
			return err
		}
		cc, err := s.cardContext(ctx, tx, p, a.Card)
		if err != nil {
			return err
		}
		switch status {
		case store.CardPublished:
			if err := agentcard.Publishable(a.Card, cc.links); err != nil {
				return err
			}
			a.PublishedAt = agentcard.FirstPublished(a.PublishedAt, time.Now().UTC())
		default:
			a.PublishedAt = nil
		}
		a.Status = status
		if a, err = tx.UpdateAgentCard(ctx, a); err != nil {
			return err
		}
		out = cc.view(a, nil)
		return nil
	})
	return out, err
}

// DuplicateAgentCard copies a card into a new draft.
func (s *Server) DuplicateAgentCard(ctx context.Context, req api.DuplicateAgentCardRequestObject) (api.DuplicateAgentCardResponseObject, error) {
	var name *string
	if req.Body != nil {
		name = req.Body.Name
	}
	out, err := s.viewOf(ctx, func(tx *store.Tx, p auth.Principal) (store.AgentCard, error) {
		src, err := tx.AgentCard(ctx, req.CardId)
		if err != nil {
			return store.AgentCard{}, err
		}
		c, err := agentcard.Duplicate(src.Card, name)
		if err != nil {
			return store.AgentCard{}, err
		}
		return tx.CreateAgentCard(ctx, uuid.New(), c, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return api.DuplicateAgentCard201JSONResponse(out), nil
}

// editCard applies change to a locked card and saves it if the result may
// be stored: every card must meet the structural rules, and a published
// card must stay valid. done receives the saved card's view and the card
// as it was before.
func (s *Server) editCard(ctx context.Context, id uuid.UUID, change func(*agentcard.Card) error, done func(api.AgentCard, agentcard.Card)) error {
	return s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		a, err := tx.LockAgentCard(ctx, id)
		if err != nil {
			return err
		}
		before := a.Card
		a.Card = before.Clone()
		if err := change(&a.Card); err != nil {
			return err
		}
		if err := agentcard.CheckStructure(a.Card); err != nil {
			return err
		}
		cc, err := s.cardContext(ctx, tx, p, a.Card)
		if err != nil {
			return err
		}
		if a.Status == store.CardPublished {
			if err := agentcard.StaysPublishable(a.Card, cc.links); err != nil {
				return err
			}
		}
		if a, err = tx.UpdateAgentCard(ctx, a); err != nil {
			return err
		}
		done(cc.view(a, agentcard.VersionWarnings(before, a.Card)), before)
		return nil
	})
}

// cardContext is what rendering and validating cards needs beside them:
// the servers their skills link to, and where the exchange shows them.
type cardContext struct {
	links    agentcard.Links
	exchange string // the exchange's base URL for the organization's cards
}

func (s *Server) cardContext(ctx context.Context, tx *store.Tx, p auth.Principal, cards ...agentcard.Card) (cardContext, error) {
	var refs []string
	seen := map[string]bool{}
	for _, c := range cards {
		for _, r := range c.ServerRefs() {
			if !seen[r] {
				seen[r] = true
				refs = append(refs, r)
			}
		}
	}
	links, err := tx.LinkedServers(ctx, refs)
	if err != nil {
		return cardContext{}, err
	}
	org, err := tx.Organization(ctx, p.OrgID, "")
	if err != nil {
		return cardContext{}, err
	}
	return cardContext{links: links, exchange: s.baseURL(ctx) + "/api/exchange/agent-cards/" + org.Slug + "/"}, nil
}

// viewOf reads or writes a card with fn and answers its view, in one
// transaction.
func (s *Server) viewOf(ctx context.Context, fn func(*store.Tx, auth.Principal) (store.AgentCard, error)) (api.AgentCard, error) {
	return inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (api.AgentCard, error) {
		a, err := fn(tx, p)
		if err != nil {
			return api.AgentCard{}, err
		}
		return s.viewCard(ctx, tx, p, a)
	})
}

// viewCard is a's answer, validated against the servers it links to.
func (s *Server) viewCard(ctx context.Context, tx *store.Tx, p auth.Principal, a store.AgentCard) (api.AgentCard, error) {
	cc, err := s.cardContext(ctx, tx, p, a.Card)
	return cc.view(a, nil), err
}

func (cc cardContext) problems(c agentcard.Card) []failure.FieldError {
	return agentcard.Validate(c, cc.links)
}

func (cc cardContext) view(a store.AgentCard, warnings []string) api.AgentCard {
	c := a.Card
	out := api.AgentCard{
		Id: a.ID, Status: api.AgentCardStatus(a.Status), Name: c.Name, Version: c.Version, Description: c.Description,
		Author: nullableString(c.Author), License: nullableString(c.License),
		Homepage: nullableString(c.Homepage), Repository: nullableString(c.Repository),
		Skills: c.Skills, Examples: c.Examples, Replies: nonNil(c.Replies),
		Capabilities: nullableObject(c.Capabilities), Invocation: nullableObject(c.Invocation), Metadata: nullableObject(c.Metadata),
		Auth:       nullableObject(c.Auth),
		Validation: validationOf(cc.problems(c)), Warnings: nonNil(warnings),
		PublishedAt: nullableTime(a.PublishedAt), ExchangeUrl: nullableString(nil),
		CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
	}
	if a.Status == store.CardPublished {
		u := cc.exchange + c.Name
		out.ExchangeUrl = nullableString(&u)
	}
	return out
}

func validationOf(errs []failure.FieldError) api.AgentCardValidation {
	out := api.AgentCardValidation{Valid: len(errs) == 0, Errors: make([]api.FieldError, len(errs))}
	for i, e := range errs {
		out.Errors[i] = api.FieldError{Field: e.Field, Message: e.Message}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// baseURL is where callers reach the service: BASE_URL, or else the
// address the caller used.
func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	return requestOrigin(ctx)
}

func nullableObject[T any](p *T) nullable.Nullable[T] {
	if p == nil {
		return nullable.NewNullNullable[T]()
	}
	return nullable.NewNullableWithValue(*p)
}
