package a2aserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ContextStates keeps the state of each (card, contextId) of the agents
// whose replies use state (the store in production, which the Tasks given
// to New also are), shared by every instance: A2AContextState is one
// read, ChangeA2AContextState one atomic change, so that instances never
// lose each other's changes.
type ContextStates interface {
	A2AContextState(ctx context.Context, orgID, cardID uuid.UUID, contextID string) (store.LiveState, error)
	ChangeA2AContextState(ctx context.Context, orgID, cardID uuid.UUID, contextID string, c mockspec.StateChange) (store.LiveState, error)
}

// maxContextID bounds the context ids whose state is kept.
const maxContextID = 256

// errNoContextStates answers a message to an agent whose replies use
// state on a handler that keeps none.
var errNoContextStates = fmt.Errorf("%w: this endpoint keeps no state: the agent's replies that use state cannot be served", jsonrpc.ErrInternal)

// setStateOptions compile a reply's set_state as MCP scenarios' are.
var setStateOptions = answertmpl.Options{Legacy: true}

// contextState is the state of the message's context, as read before
// matching or as the reply's change left it.
type contextState struct {
	raw  json.RawMessage
	keys map[string]json.RawMessage // raw's keys, for templates
	live map[string]any             // raw decoded, for when_state
}

func newContextState(raw json.RawMessage) (*contextState, error) {
	st := &contextState{raw: raw}
	if len(raw) == 0 {
		st.raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(st.raw, &st.keys); err != nil {
		return nil, err
	}
	v, err := jsonvalue.Decode(st.raw)
	if err != nil {
		return nil, err
	}
	st.live, _ = v.(map[string]any) // the column holds objects only
	return st, nil
}

// value is answertmpl.Input.State over st; nil st has no state.
func (st *contextState) value() func(string) (json.RawMessage, bool) {
	if st == nil {
		return nil
	}
	return func(key string) (json.RawMessage, bool) {
		v, ok := st.keys[key]
		return v, ok
	}
}

// readContextState reads the state of the message's context: empty for a
// context the message did not name (the agent just made it).
func (h *Handler) readContextState(c *call, contextID string, named bool) (*contextState, error) {
	states, ok := h.tasks.(ContextStates)
	if !ok {
		return nil, errNoContextStates
	}
	if !named {
		return newContextState(nil)
	}
	if len(contextID) > maxContextID || strings.ContainsRune(contextID, 0) {
		return nil, fmt.Errorf("%w: params.message.contextId: at most %d bytes, without NUL characters", jsonrpc.ErrInvalidParams, maxContextID)
	}
	ls, err := states.A2AContextState(c.ctx, c.agent.OrgID, c.agent.ID, contextID)
	if err != nil {
		return nil, fmt.Errorf("read the state of context %q: %w", contextID, err)
	}
	return newContextState(ls.State)
}

// changeContextState renders reply's set_state with args and the state
// read, applies it in one atomic change and returns the state it leaves;
// st itself when the reply has no set_state.
func (h *Handler) changeContextState(c *call, contextID string, reply agentcard.Reply, args map[string]any, st *contextState) (*contextState, error) {
	if emptySet(reply.SetState) {
		return st, nil
	}
	t, err := setStateOptions.CompileJSON(reply.SetState)
	if err != nil {
		return nil, fmt.Errorf("%w: reply %q: set_state: %v", jsonrpc.ErrInternal, reply.Name, err)
	}
	rendered, err := t.Render(nil, &answertmpl.Input{Args: args, State: st.value()})
	if err != nil {
		return nil, fmt.Errorf("%w: reply %q: set_state: %v", jsonrpc.ErrInternal, reply.Name, err)
	}
	change, err := mockspec.SplitSetState(rendered)
	if err != nil {
		return nil, fmt.Errorf("%w: reply %q: set_state: %v", jsonrpc.ErrInternal, reply.Name, err)
	}
	states, ok := h.tasks.(ContextStates)
	if !ok {
		return nil, errNoContextStates
	}
	ls, err := states.ChangeA2AContextState(c.ctx, c.agent.OrgID, c.agent.ID, contextID, change)
	if errors.Is(err, store.ErrA2AContextStateTooLarge) {
		return nil, fmt.Errorf("%w: reply %q: %v", jsonrpc.ErrInternal, reply.Name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("change the state of context %q: %w", contextID, err)
	}
	return newContextState(ls.State)
}

// emptySet reports whether a set_state changes nothing.
func emptySet(raw json.RawMessage) bool {
	r := agentcard.Reply{SetState: raw}
	return !r.UsesState()
}
