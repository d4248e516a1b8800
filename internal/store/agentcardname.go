package store

import "context"

// LockAgentCardByName reads the organization's card named name and locks
// it until the transaction ends, for applying a card document.
func (t AgentCardsTx) LockAgentCardByName(ctx context.Context, name string) (AgentCard, error) {
	return found("agent card", agentCardFrom)(t.q.LockAgentCardByName(ctx, t.tx, name))
}
