package a2aserve

import (
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// compiledCard is a card's replies compiled once, for as long as the card
// is cached: their conditions (nil for one that does not compile, which
// never matches) and their texts' templates, by text.
type compiledCard struct {
	conds []*scenario.Condition
	// whens are the replies' when_state compiled, nil for none (or one
	// that does not compile, which never matches: see scripted).
	whens []*scenario.Condition
	// usesState is card.UsesState: messages read their context's state.
	usesState bool
	texts     map[string]*answertmpl.Template
	// examples are the skills' examples as the A2A rendering lists them,
	// in card order, which MatchSkill reads.
	examples [][]string
}

func compileCard(card agentcard.Card) *compiledCard {
	cc := &compiledCard{conds: make([]*scenario.Condition, len(card.Replies)), texts: map[string]*answertmpl.Template{},
		whens: make([]*scenario.Condition, len(card.Replies)), usesState: card.UsesState()}
	for i, r := range card.Replies {
		if cond, errs := scenario.Compile(r.Condition); len(errs) == 0 {
			cc.conds[i] = &cond
		}
		if !emptySet(r.WhenState) {
			when, _ := scenario.Compile(r.WhenState) // one that fails matches nothing
			cc.whens[i] = &when
		}
		if t, err := answertmpl.Compile(r.Text); err == nil {
			cc.texts[r.Text] = t
		}
	}
	for _, s := range agentcard.A2A(card, agentcard.Publisher{}).Skills {
		cc.examples = append(cc.examples, s.Examples)
	}
	return cc
}

// matchSkill is MatchSkill, with the card's examples rendered once.
func (a Agent) matchSkill(text string) (agentcard.Skill, bool) {
	card := a.Card
	if a.compiled == nil || len(a.compiled.examples) != len(card.Skills) {
		return MatchSkill(card, text)
	}
	if len(card.Skills) == 0 {
		return agentcard.Skill{}, false
	}
	lower := strings.ToLower(text)
	for i, s := range card.Skills {
		if skillMentioned(s.Name, a.compiled.examples[i], lower) {
			return s, true
		}
	}
	return card.Skills[0], true
}

// usesState reports whether the agent's replies use the state of a
// context.
func (a Agent) usesState() bool {
	if a.compiled == nil {
		return a.Card.UsesState()
	}
	return a.compiled.usesState
}

// scripted is scripted over the agent's card, with its compiled
// conditions when it has them.
func (a Agent) scripted(args, live map[string]any) (agentcard.Reply, bool) {
	if a.compiled == nil {
		return scripted(a.Card, args, live)
	}
	budget := regexlimit.NewBudget()
	for i, r := range a.Card.Replies {
		cond := a.compiled.conds[i]
		if cond == nil || !cond.MatchWithin(args, &budget) {
			continue
		}
		if when := a.compiled.whens[i]; when != nil && !when.MatchWithin(live, &budget) {
			continue
		}
		return r, true
	}
	return agentcard.Reply{}, false
}

// renderText is renderText with the compiled template of r's text when
// the agent has it.
func (a Agent) renderText(r agentcard.Reply, args map[string]any, st *contextState) (string, error) {
	if a.compiled == nil || a.compiled.texts[r.Text] == nil {
		return renderText(r, args, st)
	}
	raw, err := a.compiled.texts[r.Text].Render(nil, &answertmpl.Input{Args: args, State: st.value()})
	if err != nil {
		return "", fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, r.Name, err)
	}
	return textOf(raw), nil
}

// message10 is outgoing's v10 as a struct, its fields in the order the
// map's keys are written, so that it encodes to the same bytes, faster.
type message10 struct {
	ContextID string       `json:"contextId"`
	MessageID string       `json:"messageId"`
	Metadata  *metadata10  `json:"metadata,omitempty"`
	Parts     []textPart10 `json:"parts"`
	Role      string       `json:"role"`
	TaskID    string       `json:"taskId,omitempty"`
}

type metadata10 struct {
	Reply string `json:"reply,omitempty"`
	Skill string `json:"skill,omitempty"`
}

type textPart10 struct {
	Text string `json:"text"`
}

// sendResult10 is SendMessage's result holding a Message.
type sendResult10 struct {
	Message message10 `json:"message"`
}

func (o outgoing) v10Struct() message10 {
	m := message10{ContextID: o.ContextID, MessageID: o.MessageID, Parts: []textPart10{{o.Text}}, Role: "ROLE_AGENT", TaskID: o.TaskID}
	if o.Skill != "" || o.Reply != "" {
		m.Metadata = &metadata10{Reply: o.Reply, Skill: o.Skill}
	}
	return m
}
