package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/design"
)

// AgentCardsTx is the part of a transaction that keeps agent cards and reads
// the public exchange of published ones.
type AgentCardsTx struct{ *txConn }

// Agent card states.
const (
	CardDraft     = "draft"
	CardPublished = "published"
)

// AgentCard is a stored agent card: the card as designed, and the
// service's record of it.
type AgentCard struct {
	ID          uuid.UUID
	OrgID       uuid.UUID
	Status      string
	Card        agentcard.Card
	PublishedAt *time.Time
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ExchangeCard is a published card as the public exchange shows it, with
// the organization that publishes it.
type ExchangeCard struct {
	AgentCard
	OrgSlug string
	OrgName string
}

// AgentCardPage is one page of cards, newest first.
type AgentCardPage struct {
	Cards []AgentCard
	Next  *PageKey
}

// ExchangePage is one page of the exchange, newest publication first.
type ExchangePage struct {
	Cards []ExchangeCard
	Next  *PageKey // CreatedAt holds the publication time
}

// ExchangeQuery filters the exchange; empty fields do not filter.
type ExchangeQuery struct {
	Text, Tag, Category, Skill string
	After                      *PageKey
	Limit                      int
}

// derived are the columns kept beside the card document for listing and
// searching.
type derived struct {
	doc                          []byte
	tags, categories, skillNames []string
}

func derive(c agentcard.Card) (derived, error) {
	if c.Skills == nil {
		c.Skills = []agentcard.Skill{}
	}
	if c.Examples == nil {
		c.Examples = []agentcard.Example{}
	}
	if c.Auth != nil {
		hashed := c.Auth.HashKey() // the raw key is never stored
		c.Auth = &hashed
	}
	doc, err := json.Marshal(c)
	if err != nil {
		return derived{}, fmt.Errorf("encode agent card: %w", err)
	}
	d := derived{doc: doc, tags: []string{}, categories: []string{}, skillNames: make([]string, 0, len(c.Skills))}
	if c.Metadata != nil {
		d.tags = append(d.tags, c.Metadata.Tags...)
		d.categories = append(d.categories, c.Metadata.Categories...)
	}
	for _, s := range c.Skills {
		d.skillNames = append(d.skillNames, s.Name)
	}
	return d, nil
}

// CreateAgentCard inserts a draft card in the transaction's organization.
func (t AgentCardsTx) CreateAgentCard(ctx context.Context, id uuid.UUID, c agentcard.Card, createdBy string) (AgentCard, error) {
	d, err := derive(c)
	if err != nil {
		return AgentCard{}, err
	}
	row, err := t.q.CreateAgentCard(ctx, t.tx, db.CreateAgentCardParams{
		ID: id, Name: c.Name, Card: d.doc, Version: c.Version, Description: c.Description,
		Tags: d.tags, Categories: d.categories, SkillNames: d.skillNames, CreatedBy: createdBy,
	})
	return converted(agentCardFrom)(row, err)
}

// AgentCard reads one card.
func (t AgentCardsTx) AgentCard(ctx context.Context, id uuid.UUID) (AgentCard, error) {
	return found("agent card", agentCardFrom)(t.q.GetAgentCard(ctx, t.tx, id))
}

// LockAgentCard reads one card and locks it until the transaction ends, so
// concurrent edits of its skills apply in turn.
func (t AgentCardsTx) LockAgentCard(ctx context.Context, id uuid.UUID) (AgentCard, error) {
	return found("agent card", agentCardFrom)(t.q.LockAgentCard(ctx, t.tx, id))
}

// AgentCards lists a page of at most limit cards after the key, of one
// status when status is not empty.
func (t AgentCardsTx) AgentCards(ctx context.Context, status string, after *PageKey, limit int) (AgentCardPage, error) {
	p := db.ListAgentCardsParams{RowLimit: int32(limit + 1)}
	if status != "" {
		p.Status = &status
	}
	p.AfterCreatedAt, p.AfterID = pageParams(after)
	rows, err := t.q.ListAgentCards(ctx, t.tx, p)
	if err != nil {
		return AgentCardPage{}, err
	}
	cards, next, err := page(rows, limit, func(r db.AgentCard) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} },
		agentCardFrom)
	return AgentCardPage{Cards: cards, Next: next}, err
}

// UpdateAgentCard writes a's card, status and publication time.
func (t AgentCardsTx) UpdateAgentCard(ctx context.Context, a AgentCard) (AgentCard, error) {
	d, err := derive(a.Card)
	if err != nil {
		return AgentCard{}, err
	}
	row, err := t.q.UpdateAgentCard(ctx, t.tx, db.UpdateAgentCardParams{
		ID: a.ID, Name: a.Card.Name, Card: d.doc, Version: a.Card.Version, Description: a.Card.Description,
		Tags: d.tags, Categories: d.categories, SkillNames: d.skillNames, Status: a.Status, PublishedAt: a.PublishedAt,
	})
	return found("agent card", agentCardFrom)(row, err)
}

// DeleteAgentCard deletes a card.
func (t AgentCardsTx) DeleteAgentCard(ctx context.Context, id uuid.UUID) error {
	return removed("agent card")(t.q.DeleteAgentCard(ctx, t.tx, id))
}

// LinkedServers resolves the mcp_server values of skills (server ids or
// names) to the organization's servers and their tools. A value that names
// no server is absent from the result; a name several servers share is
// marked ambiguous. An id wins over a name.
func (t AgentCardsTx) LinkedServers(ctx context.Context, refs []string) (agentcard.Links, error) {
	links := agentcard.Links{}
	if len(refs) == 0 {
		return links, nil
	}
	ids := []uuid.UUID{}
	for _, r := range refs {
		if id, err := uuid.Parse(r); err == nil {
			ids = append(ids, id)
		}
	}
	rows, err := t.q.LinkedServers(ctx, t.tx, db.LinkedServersParams{Ids: ids, Names: refs})
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		id, isID := uuid.Parse(r)
		var byName []db.LinkedServersRow
		for _, row := range rows {
			if isID == nil && row.ID == id {
				byName = []db.LinkedServersRow{row}
				break
			}
			if row.Name == r {
				byName = append(byName, row)
			}
		}
		switch len(byName) {
		case 0:
		case 1:
			tools := make(map[string]bool, len(byName[0].Tools))
			for _, n := range byName[0].Tools {
				tools[n] = true
			}
			links[r] = &agentcard.LinkedServer{ID: byName[0].ID, Name: byName[0].Name, Tools: tools,
				OAuth: byName[0].AuthMode == design.AuthModeOAuth}
		default:
			links[r] = &agentcard.LinkedServer{Name: r, Ambiguous: true}
		}
	}
	return links, nil
}

// ToolByName reads the tool called name on a server.
func (t AgentCardsTx) ToolByName(ctx context.Context, server uuid.UUID, name string) (design.Tool, error) {
	return found("tool", toolFrom)(t.q.GetToolByName(ctx, t.tx, db.GetToolByNameParams{ServerID: server, Name: name}))
}

// Exchange lists a page of published cards of every organization. It needs
// a transaction with Scope.Exchange set.
func (t AgentCardsTx) Exchange(ctx context.Context, q ExchangeQuery) (ExchangePage, error) {
	p := db.ListExchangeCardsParams{RowLimit: int32(q.Limit + 1),
		Query: nonEmpty(q.Text), Tag: nonEmpty(q.Tag), Category: nonEmpty(q.Category), Skill: nonEmpty(q.Skill)}
	p.AfterPublishedAt, p.AfterID = pageParams(q.After)
	rows, err := t.q.ListExchangeCards(ctx, t.tx, p)
	if err != nil {
		return ExchangePage{}, err
	}
	cards, next, err := page(rows, q.Limit,
		func(r db.ListExchangeCardsRow) PageKey {
			return PageKey{CreatedAt: *r.AgentCard.PublishedAt, ID: r.AgentCard.ID}
		},
		func(r db.ListExchangeCardsRow) (ExchangeCard, error) {
			return exchangeCardFrom(r.AgentCard, r.OrgSlug, r.OrgName)
		})
	return ExchangePage{Cards: cards, Next: next}, err
}

// ExchangeCard reads one published card by its organization's slug and its
// name. It needs a transaction with Scope.Exchange set.
func (t AgentCardsTx) ExchangeCard(ctx context.Context, orgSlug, name string) (ExchangeCard, error) {
	r, err := t.q.GetExchangeCard(ctx, t.tx, db.GetExchangeCardParams{OrgSlug: orgSlug, Name: name})
	if err != nil {
		return ExchangeCard{}, notFound(err, "agent card")
	}
	return exchangeCardFrom(r.AgentCard, r.OrgSlug, r.OrgName)
}

func exchangeCardFrom(r db.AgentCard, slug, orgName string) (ExchangeCard, error) {
	a, err := agentCardFrom(r)
	return ExchangeCard{AgentCard: a, OrgSlug: slug, OrgName: orgName}, err
}

func agentCardFrom(r db.AgentCard) (AgentCard, error) {
	a := AgentCard{ID: r.ID, OrgID: r.OrganizationID, Status: r.Status, PublishedAt: r.PublishedAt,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal(r.Card, &a.Card); err != nil {
		return AgentCard{}, fmt.Errorf("agent card %s: decode stored card: %w", r.ID, err)
	}
	if a.Card.Skills == nil {
		a.Card.Skills = []agentcard.Skill{}
	}
	if a.Card.Examples == nil {
		a.Card.Examples = []agentcard.Example{}
	}
	return a, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
