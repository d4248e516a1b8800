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

// scripted is the text of the first of the card's replies whose condition
// matches in, and its name; false when none does. The card was checked
// when it was saved, so a reply that no longer compiles is skipped. The
// regular expressions of all the conditions share one budget, as a tool
// call's do; once it is spent no further reply matches.
func scripted(card agentcard.Card, in incoming) (name, text string, ok bool, err error) {
	args := in.args()
	budget := regexlimit.NewBudget()
	for _, r := range card.Replies {
		cond, errs := scenario.Compile(r.Condition)
		if len(errs) > 0 || !cond.MatchWithin(args, &budget) {
			continue
		}
		t, cErr := answertmpl.Compile(r.Text)
		if cErr != nil {
			continue
		}
		raw, rErr := t.Render(nil, &answertmpl.Input{Args: args})
		if rErr != nil {
			return "", "", false, fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, r.Name, rErr)
		}
		return r.Name, textOf(raw), true, nil
	}
	return "", "", false, nil
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
