package verification

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// AgentExpectation is what a verification checks of the messages a card's
// mock A2A agent recorded.
type AgentExpectation struct {
	Reply   *string         // the reply that answered (a name, or "default"); nil checks none
	Skill   *string         // the skill the message matched; nil checks none
	Message json.RawMessage // a condition on {text, data, metadata, contextId}; nil checks none
	Exactly *int
	AtLeast *int
	AtMost  *int
}

// AgentMessage is what a verification reads of one recorded message.
type AgentMessage struct {
	Reply, Skill string
	Message      json.RawMessage // as the journal kept it; "null" when none
}

// AgentVerification is an agent expectation whose condition is compiled.
type AgentVerification struct {
	AgentExpectation
	message scenario.Condition
}

// CompileAgent compiles e's condition and checks its bounds; their errors
// name the member.
func CompileAgent(e AgentExpectation) (*AgentVerification, error) {
	cond, errs := compileMember("message", e.Message)
	if e.AtLeast != nil && e.AtMost != nil && *e.AtLeast > *e.AtMost {
		errs = append(errs, failure.Field("at_most", "must be at least at_least (%d); it is %d", *e.AtLeast, *e.AtMost))
	}
	if e.Exactly != nil && (e.AtLeast != nil || e.AtMost != nil) {
		errs = append(errs, failure.Field("exactly", "cannot be given with at_least or at_most"))
	}
	if len(errs) > 0 {
		return nil, failure.Invalid(errs...)
	}
	return &AgentVerification{AgentExpectation: e, message: cond}, nil
}

// Count counts the messages that match; the condition's patterns run on
// every message, all paid from one call's budget, past which the
// verification is refused.
func (v *AgentVerification) Count(messages []AgentMessage) (int, error) {
	count := 0
	budget := regexlimit.NewBudget()
	for _, m := range messages {
		if v.Reply != nil && m.Reply != *v.Reply || v.Skill != nil && m.Skill != *v.Skill {
			continue
		}
		if v.Message != nil {
			ok := v.message.MatchWithin(decodedArguments(m.Message), &budget)
			if budget.Exhausted() {
				return 0, overBudget("message", &budget)
			}
			if !ok {
				continue
			}
		}
		count++
	}
	return count, nil
}

// Verdict compares count with the expectation and says so, and whether
// the journal may have missed messages (complete) or records none on this
// instance (journaling false).
func (v *AgentVerification) Verdict(count int, complete, journaling bool) Verdict {
	out := Verdict{Count: count, Complete: complete, Verified: true}
	var want []string
	if v.Exactly != nil {
		want = append(want, fmt.Sprintf("exactly %d", *v.Exactly))
		out.Verified = count == *v.Exactly
	}
	if v.AtLeast != nil {
		want = append(want, fmt.Sprintf("at least %d", *v.AtLeast))
		out.Verified = out.Verified && count >= *v.AtLeast
	}
	if v.AtMost != nil {
		want = append(want, fmt.Sprintf("at most %d", *v.AtMost))
		out.Verified = out.Verified && count <= *v.AtMost
	}
	if len(want) == 0 {
		want = append(want, "at least 1")
		out.Verified = count >= 1
	}
	out.Expected = strings.Join(want, " and ")
	var checked []string
	if v.Reply != nil {
		checked = append(checked, fmt.Sprintf("answered by reply %q", *v.Reply))
	}
	if v.Skill != nil {
		checked = append(checked, fmt.Sprintf("about skill %q", *v.Skill))
	}
	if v.Message != nil {
		checked = append(checked, "matching the message condition")
	}
	msg := fmt.Sprintf("the agent received %s", messages(count))
	if len(checked) > 0 {
		msg += " " + strings.Join(checked, ", ")
	}
	if out.Verified {
		msg += ", as expected (" + out.Expected + ")"
	} else {
		msg += "; expected " + out.Expected
	}
	if !journaling {
		msg += " (the journal is disabled on this instance: JOURNAL_ENABLED=false)"
	}
	if !complete {
		msg += " (incomplete: the journal dropped records of this card with its queue full, so messages may be missing)"
	}
	out.Message = msg
	return out
}

func messages(n int) string {
	switch n {
	case 0:
		return "no message"
	case 1:
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}
