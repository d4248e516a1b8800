// Package verification checks a server's recorded calls of one tool
// against an expectation: how many calls had matching arguments, sent a
// given question to the client and got matching answers, compared with
// how many were expected. The journal records the calls; the patterns of
// the conditions run here, never in the journal's writer.
package verification

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// Expectation is what a verification checks of a tool's recorded calls.
type Expectation struct {
	Tool      string
	Arguments json.RawMessage // a condition on the call's arguments; nil checks none
	Asked     *string         // a question id the call sent to the client; "" checks none
	Answers   json.RawMessage // a condition on the call's last answers; nil checks none
	Times     *int            // exactly this many calls; nil is at least one
}

// Call is what a verification reads of one recorded tools/call.
type Call struct {
	Arguments json.RawMessage // the call's arguments as JSON text
	Rounds    []journal.Round // nil unless WithRounds
}

// Verification is an expectation whose conditions are compiled.
type Verification struct {
	Expectation
	arguments, answers scenario.Condition
}

// Compile compiles e's conditions; their errors are field errors of the
// members "arguments" and "answers".
func Compile(e Expectation) (*Verification, error) {
	args, argErrs := compileMember("arguments", e.Arguments)
	answers, answerErrs := compileMember("answers", e.Answers)
	if errs := append(argErrs, answerErrs...); len(errs) > 0 {
		return nil, failure.Invalid(errs...)
	}
	return &Verification{Expectation: e, arguments: args, answers: answers}, nil
}

// compileMember compiles the condition of member name; absent, it is the
// zero Condition, which matches every call.
func compileMember(name string, raw json.RawMessage) (scenario.Condition, []failure.FieldError) {
	if raw == nil {
		return scenario.Condition{}, nil
	}
	cond, errs := scenario.Compile(raw)
	fields := make([]failure.FieldError, len(errs))
	for i, e := range errs {
		fields[i] = failure.Field(name+strings.TrimPrefix(e.Field, "condition"), "%s", e.Message)
	}
	return cond, fields
}

// WithRounds reports whether the calls must be read with their rounds of
// questions.
func (v *Verification) WithRounds() bool {
	return v.asked() != "" || v.Answers != nil
}

func (v *Verification) asked() string {
	if v.Asked == nil {
		return ""
	}
	return *v.Asked
}

// Count counts the calls that match. The conditions' patterns run on every
// call, all of them paid from one call's budget; past it the verification
// is refused.
func (v *Verification) Count(calls []Call) (int, error) {
	count := 0
	budget := regexlimit.NewBudget()
	asked := v.asked()
	for _, call := range calls {
		if asked != "" && !sentQuestion(call.Rounds, asked) {
			continue
		}
		ok := v.arguments.MatchWithin(decodedArguments(call.Arguments), &budget)
		if budget.Exhausted() {
			return 0, overBudget("arguments", &budget)
		}
		if ok && v.Answers != nil {
			last, got := lastAnswers(call.Rounds)
			ok = got && v.answers.MatchWithin(last, &budget)
			if budget.Exhausted() {
				return 0, overBudget("answers", &budget)
			}
		}
		if ok {
			count++
		}
	}
	return count, nil
}

// overBudget is the refusal of a verification whose condition on the
// member "arguments" or "answers" would take more work than a call may.
func overBudget(member string, budget *regexlimit.Budget) error {
	return failure.Invalid(failure.Field(member, "the condition's regular expression would take more than "+
		"the %d units of work (input bytes times pattern instructions) a verification may use on the recorded "+
		"%s (at %q); match a shorter %s or clear the journal", regexlimit.CallBudget, member, budget.Field(),
		strings.TrimSuffix(member, "s")))
}

// decodedArguments is a call's arguments as a condition reads them;
// arguments that are no object match only what anything matches.
func decodedArguments(raw json.RawMessage) map[string]any {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	return args
}

// sentQuestion reports whether a round sent the question id to the client.
func sentQuestion(rounds []journal.Round, id string) bool {
	for _, r := range rounds {
		if _, ok := r.Asked[id]; ok && r.Sent {
			return true
		}
	}
	return false
}

// lastAnswers is the answers of the last round that has any, keyed by
// question id and decoded as arguments are, and whether there is one. An
// answer the journal left out is its marker string.
func lastAnswers(rounds []journal.Round) (map[string]any, bool) {
	for i := len(rounds) - 1; i >= 0; i-- {
		if len(rounds[i].Answers) == 0 {
			continue
		}
		out := make(map[string]any, len(rounds[i].Answers))
		for id, raw := range rounds[i].Answers {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				out[id] = v
			}
		}
		return out, true
	}
	return nil, false
}

// Verdict is the outcome of a verification.
type Verdict struct {
	Count    int
	Expected string // "at least 1" or "exactly N"
	Verified bool
	Complete bool // the journal dropped none of the server's records
	Message  string
}

// Verdict compares count with the expectation and says so, and whether
// the journal may have missed calls (complete) or records none on this
// instance (journaling false).
func (v *Verification) Verdict(count int, complete, journaling bool) Verdict {
	out := Verdict{Count: count, Expected: "at least 1", Verified: count >= 1, Complete: complete}
	if v.Times != nil {
		out.Expected, out.Verified = fmt.Sprintf("exactly %d", *v.Times), count == *v.Times
	}
	var checked []string
	if v.Arguments != nil {
		checked = append(checked, "with matching arguments")
	}
	if v.Asked != nil {
		checked = append(checked, fmt.Sprintf("asking %q", *v.Asked))
	}
	if v.Answers != nil {
		checked = append(checked, "with matching answers")
	}
	msg := fmt.Sprintf("tool %q %s", v.Tool, called(count))
	if len(checked) > 0 {
		msg += " " + strings.Join(checked, ", ")
	}
	if out.Verified {
		msg += ", as expected (" + out.Expected + ")"
	} else {
		msg += "; expected " + out.Expected
	}
	if !journaling {
		msg += " (the call journal is disabled on this instance: JOURNAL_ENABLED=false)"
	}
	if !complete {
		msg += " (incomplete: the journal dropped records of this server, over its share of the journal's rate " +
			"or with its queue full, so calls may be missing)"
	}
	out.Message = msg
	return out
}

// called says how many times a tool was called.
func called(n int) string {
	switch n {
	case 0:
		return "was never called"
	case 1:
		return "was called once"
	case 2:
		return "was called twice"
	}
	return fmt.Sprintf("was called %d times", n)
}
