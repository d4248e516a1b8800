package httpapi

import (
	"context"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/store"
)

// The public exchange reads published cards of every organization through
// transactions that set only Scope.Exchange: the row-level-security
// policies then reveal published cards and their publishers, read-only,
// and nothing else.

// ListExchangeAgentCards searches the published cards.
func (s *Server) ListExchangeAgentCards(ctx context.Context, req api.ListExchangeAgentCardsRequestObject) (api.ListExchangeAgentCardsResponseObject, error) {
	q := store.ExchangeQuery{Text: deref(req.Params.Q), Tag: deref(req.Params.Tag), Category: deref(req.Params.Category),
		Skill: deref(req.Params.Skill), Limit: or(req.Params.Limit, 20)}
	var err error
	if q.After, err = decodeCursor(deref(req.Params.Cursor)); err != nil {
		return nil, err
	}
	var page store.ExchangePage
	err = s.store.WithTx(ctx, store.Scope{Exchange: true}, func(tx *store.Tx) (err error) {
		page, err = tx.Exchange(ctx, q)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := api.ListExchangeAgentCards200JSONResponse{Items: make([]api.ExchangeCard, len(page.Cards)), NextCursor: nullableString(nil)}
	for i, c := range page.Cards {
		out.Items[i] = s.exchangeView(ctx, c)
	}
	if page.Next != nil {
		c := encodeCursor(*page.Next)
		out.NextCursor = nullableString(&c)
	}
	return out, nil
}

// GetExchangeAgentCard reads one published card as stored.
func (s *Server) GetExchangeAgentCard(ctx context.Context, req api.GetExchangeAgentCardRequestObject) (api.GetExchangeAgentCardResponseObject, error) {
	c, err := s.exchangeCard(ctx, req.OrgSlug, req.Name)
	if err != nil {
		return nil, err
	}
	return api.GetExchangeAgentCard200JSONResponse(s.exchangeView(ctx, c)), nil
}

// GetExchangeA2ACard renders one published card as an A2A AgentCard.
func (s *Server) GetExchangeA2ACard(ctx context.Context, req api.GetExchangeA2ACardRequestObject) (api.GetExchangeA2ACardResponseObject, error) {
	c, err := s.exchangeCard(ctx, req.OrgSlug, req.Name)
	if err != nil {
		return nil, err
	}
	return api.GetExchangeA2ACard200JSONResponse(agentcard.A2A(c.Card, agentcard.Publisher{
		OrgName: c.OrgName, CardURL: s.exchangeURL(ctx, c),
		AgentURL:     s.baseURL(ctx) + a2aserve.EndpointPath(c.OrgSlug, c.Card.Name),
		AgentRESTURL: s.baseURL(ctx) + a2aserve.RESTPath(c.OrgSlug, c.Card.Name)})), nil
}

func (s *Server) exchangeCard(ctx context.Context, slug, name string) (c store.ExchangeCard, err error) {
	err = s.store.WithTx(ctx, store.Scope{Exchange: true}, func(tx *store.Tx) (err error) {
		c, err = tx.ExchangeCard(ctx, slug, name)
		return err
	})
	return c, err
}

func (s *Server) exchangeURL(ctx context.Context, c store.ExchangeCard) string {
	return s.baseURL(ctx) + "/api/exchange/agent-cards/" + c.OrgSlug + "/" + c.Card.Name
}

func (s *Server) exchangeView(ctx context.Context, e store.ExchangeCard) api.ExchangeCard {
	c := e.Card
	return api.ExchangeCard{
		Organization: api.ExchangeOrganization{Slug: e.OrgSlug, Name: e.OrgName},
		Name:         c.Name, Version: c.Version, Description: c.Description,
		Author: nullableString(c.Author), License: nullableString(c.License),
		Homepage: nullableString(c.Homepage), Repository: nullableString(c.Repository),
		Skills: c.Skills, Examples: c.Examples,
		Capabilities: nullableObject(c.Capabilities), Invocation: nullableObject(c.Invocation), Metadata: nullableObject(c.Metadata),
		PublishedAt: e.PublishedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(),
		A2aUrl: s.exchangeURL(ctx, e) + "/.well-known/agent-card.json",
	}
}
