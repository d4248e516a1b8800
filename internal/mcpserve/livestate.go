package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// LiveStates keeps the live state of designs (the store in production),
// shared by every instance: ReadState is one read by the server's key,
// ChangeState one atomic change, so instances never lose each other's
// changes. Both answer the state as a JSON object, with its version.
type LiveStates interface {
	ReadState(ctx context.Context, orgID, serverID uuid.UUID) (json.RawMessage, int64, error)
	ChangeState(ctx context.Context, orgID, serverID uuid.UUID, c mockspec.StateChange) (json.RawMessage, int64, error)
}

// stateful is what a tool whose scenarios read or change the live state
// matches with: each scenario's condition over the arguments and its
// when_state over the state. Tools that use no state have none and match
// through the Matcher alone.
type stateful struct {
	conds []scenario.Condition
	when  []scenario.Condition
	// whenMatcher explains, for the journal, the when_state that failed.
	whenMatcher *scenario.Matcher
}

// compileStateful compiles the when_state of each scenario; nil when no
// scenario uses the state.
func compileStateful(scenarios []mockspec.Scenario, conds []scenario.Condition, templatesRead bool) *stateful {
	uses := templatesRead // answer templates reading {{state...}}
	for _, sc := range scenarios {
		uses = uses || sc.UsesState()
	}
	if !uses {
		return nil
	}
	st := &stateful{conds: conds, when: make([]scenario.Condition, len(scenarios))}
	for i, sc := range scenarios {
		// Checked when saved; one that now fails matches nothing.
		st.when[i], _ = scenario.Compile(sc.WhenState)
	}
	st.whenMatcher = scenario.NewMatcher(st.when)
	return st
}

// match is the index of the first scenario whose condition args meet and
// whose when_state live meets, or -1 and false; patterns draw on b.
func (st *stateful) match(args, live map[string]any, b *regexlimit.Budget) (int, bool) {
	for i := range st.conds {
		if st.conds[i].MatchWithin(args, b) && st.when[i].MatchWithin(live, b) {
			return i, true
		}
		if b.Exhausted() {
			return -1, false
		}
	}
	return -1, false
}

// errNoLiveStates answers a stateful tool's call on a handler given no
// LiveStates.
var errNoLiveStates = errors.New("this endpoint keeps no state: the design's stateful scenarios cannot be served")

// readState reads the design's live state for a stateful tool's call,
// keeps it on the request's state (s.live, for the answer to read) and
// returns it decoded for matching.
func readState(ctx context.Context, s *state, d *compiled) (map[string]any, error) {
	if s.liveStates == nil {
		return nil, errNoLiveStates
	}
	raw, _, err := s.liveStates.ReadState(ctx, d.orgID, d.id)
	if err != nil {
		return nil, fmt.Errorf("read the state of server %s: %w", d.id, err)
	}
	s.live = raw
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("read the state of server %s: %w", d.id, err)
	}
	m, _ := v.(map[string]any) // the column holds objects only
	return m, nil
}

// changeState applies the answering scenario's set_state in one atomic
// change, keeps the state it leaves on the request's state, and notes the
// change for the journal.
func changeState(ctx context.Context, s *state, d *compiled, c *mockspec.StateChange) error {
	if s.liveStates == nil {
		return errNoLiveStates
	}
	raw, version, err := s.liveStates.ChangeState(ctx, d.orgID, d.id, *c)
	if err != nil {
		return fmt.Errorf("change the state of server %s: %w", d.id, err)
	}
	s.live = raw
	s.call.stateChange, s.call.stateVersion = c, version
	return nil
}
