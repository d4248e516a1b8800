package agentcard

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// MaxReplies bounds the scripted replies of a card.
const MaxReplies = 100

// Reply is a scripted answer of the card's mock A2A agent: when Condition
// (the scenario condition syntax, over {text, data, metadata, contextId} of
// the message received) matches, the agent answers Text, an answer
// template rendered with that same object as its args. The first reply
// that matches answers; none or no match gives the default reply.
type Reply struct {
	Name      string          `json:"name"`
	Condition json.RawMessage `json:"condition,omitempty"`
	Text      string          `json:"text"`
}

// replies checks what the mock agent compiles: names given and unique,
// conditions and texts that compile. A card that breaks them is not
// stored, draft or not.
func (v *cardCheck) replies(replies []Reply) {
	if len(replies) > MaxReplies {
		v.f.Add("replies", "at most %d replies; it has %d", MaxReplies, len(replies))
		return
	}
	first := map[string]int{}
	for i, r := range replies {
		at := fmt.Sprintf("replies[%d]", i)
		if strings.TrimSpace(r.Name) == "" {
			v.f.Add(at+".name", "is required")
		} else if j, dup := first[r.Name]; dup {
			v.f.Add(at+".name", "duplicate reply name '%s' (also replies[%d])", r.Name, j)
		} else {
			first[r.Name] = i
		}
		for _, e := range scenario.Check(r.Condition) {
			v.f.Add(at+"."+e.Field, "%s", e.Message)
		}
		if r.Text == "" {
			v.f.Add(at+".text", "is required")
		} else if _, err := answertmpl.Compile(r.Text); err != nil {
			v.f.Add(at+".text", "%s", err.Error())
		}
	}
}
