package a2aserve

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// args is what a reply's condition matches and its text renders with:
// {text, data, metadata, contextId} of the message received.
func (in incoming) args() map[string]any {
	args := map[string]any{"text": in.Text, "contextId": in.ContextID}
	if in.Data != nil {
		args["data"] = in.Data
	}
	if in.Metadata != nil {
		args["metadata"] = in.Metadata
	}
	return args
}

// scripted is the first of the card's replies whose condition matches
// in; false when none does. The card was checked when it was saved, so a
// reply whose condition no longer compiles is skipped. The regular
// expressions of all the conditions share one budget, as a tool call's do;
// once it is spent no further reply matches.
//
// live is the state of the message's context, which a reply's when_state
// must match as well; nil when the card's replies use no state.
func scripted(card agentcard.Card, args, live map[string]any) (agentcard.Reply, bool) {
	budget := regexlimit.NewBudget()
	for _, r := range card.Replies {
		cond, errs := scenario.Compile(r.Condition)
		if len(errs) > 0 || !cond.MatchWithin(args, &budget) {
			continue
		}
		if !emptySet(r.WhenState) {
			when, errs := scenario.Compile(r.WhenState)
			if len(errs) > 0 || !when.MatchWithin(live, &budget) {
				continue
			}
		}
		return r, true
	}
	return agentcard.Reply{}, false
}

// renderText renders a reply's text with args and the state st (nil: none).
func renderText(r agentcard.Reply, args map[string]any, st *contextState) (string, error) {
	t, err := answertmpl.Compile(r.Text)
	if err != nil {
		return "", fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, r.Name, err)
	}
	raw, err := t.Render(nil, &answertmpl.Input{Args: args, State: st.value()})
	if err != nil {
		return "", fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, r.Name, err)
	}
	return textOf(raw), nil
}

// textOf is a rendered template as text: a JSON string's value, or any
// other value (a typed placeholder's) as compact JSON.
func textOf(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
