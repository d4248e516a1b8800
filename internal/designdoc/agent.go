package designdoc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// KindAgent is the kind of an agent card document: one agent card, its
// skills and its scripted replies, served as a mock A2A agent once
// published.
const KindAgent = "A2AAgent"

// AgentDocument is a parsed and checked agent card document.
type AgentDocument struct {
	// ID pins the card's id; uuid.Nil when the document has none.
	ID uuid.UUID
	// Published is the state the document asks for; nil when it names
	// none.
	Published *bool
	Card      agentcard.Card
}

// agentEnvelope is what an agent card document holds besides the card.
var agentEnvelope = []string{"apiVersion", "kind", "id", "published"}

// cardFields are the members of a card, as the REST API names them.
var cardFields = []string{"name", "version", "description", "author", "license", "homepage", "repository",
	"skills", "capabilities", "invocation", "examples", "metadata", "replies", "auth"}

// KindOf reads the kind of a document, JSON or YAML: KindAgent, Kind, or
// what else it says ("" when it names none).
func KindOf(raw []byte, limit int64) (string, error) {
	if limit <= 0 {
		limit = yamljson.DefaultLimit
	}
	js, err := toJSON(raw, limit)
	if err != nil {
		return "", err
	}
	var head struct {
		Kind any `json:"kind"`
	}
	if json.Unmarshal(js, &head) != nil {
		return "", failure.Invalid(failure.Field("body", "must be an object"))
	}
	kind, _ := head.Kind.(string)
	return kind, nil
}

// ParseAgent reads an agent card document, JSON or YAML, and checks it as
// a card is checked when it is saved: failures are failure.Invalid naming
// fields by their path in the document (`replies[0].text`).
func ParseAgent(raw []byte, limit int64) (AgentDocument, error) {
	if limit <= 0 {
		limit = yamljson.DefaultLimit
	}
	js, err := toJSON(raw, limit)
	if err != nil {
		return AgentDocument{}, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(js, &members); err != nil {
		return AgentDocument{}, failure.Invalid(failure.Field("body", "must be an object"))
	}
	var f failure.Fields
	str := func(name string) string {
		var s string
		if raw, ok := members[name]; ok && json.Unmarshal(raw, &s) != nil {
			f.Add(name, "must be a string")
		}
		return s
	}
	if v := str("apiVersion"); v != APIVersion {
		f.Add("apiVersion", "must be %q", APIVersion)
	}
	if k := str("kind"); k != KindAgent {
		f.Add("kind", "must be %q", KindAgent)
	}
	var doc AgentDocument
	if raw, ok := members["id"]; ok {
		var id string
		if json.Unmarshal(raw, &id) != nil {
			f.Add("id", "must be a UUID")
		} else if doc.ID, err = uuid.Parse(id); err != nil {
			f.Add("id", "must be a UUID")
		}
	}
	if raw, ok := members["published"]; ok {
		var p bool
		if json.Unmarshal(raw, &p) != nil {
			f.Add("published", "must be true or false")
		} else {
			doc.Published = &p
		}
	}
	card := map[string]json.RawMessage{}
	for k, v := range members {
		switch {
		case slices.Contains(agentEnvelope, k):
		case slices.Contains(cardFields, k):
			card[k] = v
		default:
			f.Add(k, "is not a member of an agent card document (%s and the card's fields: %s)",
				strings.Join(agentEnvelope, ", "), strings.Join(cardFields, ", "))
		}
	}
	if _, ok := card["name"]; !ok {
		f.Add("name", "is required")
	}
	if err := f.Err(); err != nil {
		return AgentDocument{}, err
	}
	cardJSON, _ := json.Marshal(card) // raw messages always encode
	if err := json.Unmarshal(cardJSON, &doc.Card); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return AgentDocument{}, failure.Invalid(failure.Field(te.Field, "has the wrong type (%s given)", te.Value))
		}
		return AgentDocument{}, failure.Invalid(failure.Field("body", "is not an agent card"))
	}
	if err := agentcard.CheckStructure(doc.Card); err != nil {
		return AgentDocument{}, err
	}
	doc.Card = normalCard(doc.Card)
	return doc, nil
}

// ExportAgent is a stored card as an agent card document: apiVersion and
// kind, the card's fields as the REST API names them, and published; no
// id (add one to pin the card's id) and no timestamps.
func ExportAgent(a store.AgentCard) ([]byte, error) {
	card, err := json.Marshal(normalCard(a.Card))
	if err != nil {
		return nil, fmt.Errorf("export agent card: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"apiVersion":%q,"kind":%q,`, APIVersion, KindAgent)
	b.Write(card[1 : len(card)-1])
	fmt.Fprintf(&b, `,"published":%t}`, a.Status == store.CardPublished)
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("export agent card: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// AgentPlan is what applying an agent card document did (or, in a dry
// run, would do).
type AgentPlan struct {
	DryRun  bool
	Changed bool
	// ID is the card's id; uuid.Nil for a card a dry run would create
	// without a pinned id.
	ID     uuid.UUID
	Name   string
	Action Action
	// Status is the card's status after the apply.
	Status string
}

// AgentApplyOptions tune ApplyAgent.
type AgentApplyOptions struct {
	DryRun    bool
	CreatedBy string
	// PublishByDefault publishes the card when the document names no
	// published state (local mode serves every card that does not say
	// published: false).
	PublishByDefault bool
	MaxJSONBytes     int64
}

// ApplyAgent makes org's card match the agent card document raw, in one
// transaction, and returns the plan it carried out. The card is the one
// with the document's id when it has one, else the one with its name;
// when there is none it is created (with the document's id when given).
// published: true publishes it, which needs the card to pass the
// publishing rules (422 naming each field otherwise); false takes it back
// to draft; absent keeps an existing card's state (a new card is a
// draft). Applying the same document twice changes nothing the second
// time; with opts.DryRun the plan is computed and rolled back.
func ApplyAgent(ctx context.Context, st *store.Store, org store.OrgRef, raw []byte, opts AgentApplyOptions) (AgentPlan, error) {
	doc, err := ParseAgent(raw, opts.MaxJSONBytes)
	if err != nil {
		return AgentPlan{}, err
	}
	if doc.Published == nil && opts.PublishByDefault {
		published := true
		doc.Published = &published
	}
	var plan AgentPlan
	err = st.InOrg(ctx, org, func(tx *store.Tx) error {
		var err error
		plan, err = applyAgent(ctx, tx, doc, opts)
		if err == nil && opts.DryRun {
			return errDryRun
		}
		return err
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return AgentPlan{}, err
	}
	plan.DryRun = opts.DryRun
	if opts.DryRun && plan.Action == Created && doc.ID == uuid.Nil {
		plan.ID = uuid.Nil
	}
	return plan, nil
}

func applyAgent(ctx context.Context, tx *store.Tx, doc AgentDocument, opts AgentApplyOptions) (AgentPlan, error) {
	cur, found, err := agentTarget(ctx, tx, doc)
	if err != nil {
		return AgentPlan{}, err
	}
	action := Unchanged
	if !found {
		id := doc.ID
		if id == uuid.Nil {
			id = uuid.New()
		}
		cur, err = tx.CreateAgentCard(ctx, id, doc.Card, opts.CreatedBy)
		if err != nil {
			if doc.ID != uuid.Nil && store.IsConflict(err) && doc.Card.Name != "" {
				return AgentPlan{}, &failure.Error{Kind: failure.KindConflict,
					Detail: "another agent card has this id (in another organization) or this name",
					Fields: []failure.FieldError{failure.Field("id", "is the id of an agent card of another organization, or name is another card's")}}
			}
			return AgentPlan{}, err
		}
		action = Created
	} else if !sameCard(cur.Card, doc.Card) {
		cur.Card = doc.Card
		action = Updated
	}
	status := cur.Status
	if doc.Published != nil {
		status = store.CardDraft
		if *doc.Published {
			status = store.CardPublished
		}
	}
	if status == store.CardPublished {
		links, err := tx.LinkedServers(ctx, cur.Card.ServerRefs())
		if err != nil {
			return AgentPlan{}, err
		}
		if err := agentcard.Publishable(cur.Card, links); err != nil {
			return AgentPlan{}, err
		}
	}
	if status != cur.Status && action == Unchanged {
		action = Updated
	}
	if action == Updated || status != cur.Status {
		cur.Status = status
		if status == store.CardPublished {
			cur.PublishedAt = agentcard.FirstPublished(cur.PublishedAt, time.Now().UTC())
		} else {
			cur.PublishedAt = nil
		}
		if cur, err = tx.UpdateAgentCard(ctx, cur); err != nil {
			return AgentPlan{}, err
		}
	}
	return AgentPlan{Changed: action != Unchanged, ID: cur.ID, Name: cur.Card.Name, Action: action, Status: cur.Status}, nil
}

// agentTarget finds the card the document is about, locked.
func agentTarget(ctx context.Context, tx *store.Tx, doc AgentDocument) (store.AgentCard, bool, error) {
	var cur store.AgentCard
	var err error
	if doc.ID != uuid.Nil {
		cur, err = tx.LockAgentCard(ctx, doc.ID)
	} else {
		cur, err = tx.LockAgentCardByName(ctx, doc.Card.Name)
	}
	if failure.Is(err, failure.ErrNotFound) {
		return store.AgentCard{}, false, nil
	}
	return cur, err == nil, err
}

// normalCard is c with its absent lists empty, as a document or an export
// writes them.
func normalCard(c agentcard.Card) agentcard.Card {
	if c.Skills == nil {
		c.Skills = []agentcard.Skill{}
	}
	if c.Examples == nil {
		c.Examples = []agentcard.Example{}
	}
	if c.Auth != nil {
		hashed := c.Auth.HashKey()
		c.Auth = &hashed
	}
	return c
}

// sameCard reports whether two cards are the same document.
func sameCard(a, b agentcard.Card) bool {
	ja, errA := json.Marshal(normalCard(a))
	jb, errB := json.Marshal(normalCard(b))
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
