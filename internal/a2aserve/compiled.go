package a2aserve

import (
	"fmt"

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
	texts map[string]*answertmpl.Template
}

func compileCard(card agentcard.Card) *compiledCard {
	cc := &compiledCard{conds: make([]*scenario.Condition, len(card.Replies)), texts: map[string]*answertmpl.Template{}}
	for i, r := range card.Replies {
		if cond, errs := scenario.Compile(r.Condition); len(errs) == 0 {
			cc.conds[i] = &cond
		}
		if t, err := answertmpl.Compile(r.Text); err == nil {
			cc.texts[r.Text] = t
		}
	}
	return cc
}

// scripted is scripted over the agent's card, with its compiled
// conditions when it has them.
func (a Agent) scripted(args map[string]any) (agentcard.Reply, bool) {
	if a.compiled == nil {
		return scripted(a.Card, args)
	}
	budget := regexlimit.NewBudget()
	for i, r := range a.Card.Replies {
		if cond := a.compiled.conds[i]; cond != nil && cond.MatchWithin(args, &budget) {
			return r, true
		}
	}
	return agentcard.Reply{}, false
}

// renderText is renderText with the compiled template of r's text when
// the agent has it.
func (a Agent) renderText(r agentcard.Reply, args map[string]any) (string, error) {
	if a.compiled == nil || a.compiled.texts[r.Text] == nil {
		return renderText(r, args)
	}
	raw, err := a.compiled.texts[r.Text].Render(nil, &answertmpl.Input{Args: args})
	if err != nil {
		return "", fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, r.Name, err)
	}
	return textOf(raw), nil
}
