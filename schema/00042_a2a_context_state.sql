-- State across a context for mock A2A agents: a key -> JSON object per
-- (agent card, contextId) that the card's replies read (when_state,
-- {{state.KEY}} in their texts) and change (set_state).
--
-- 1. A context without a row has the empty state; the first change
--    creates the row. A change is one statement (jsonb || for the keys
--    set, - for those deleted, version + 1), so two instances answering
--    one context never lose each other's change.
-- 2. The agent is public, so the contexts kept are bounded by count per
--    card (the caller deletes the least recently changed past its bound),
--    and a change that would leave a state larger than the caller's bound
--    is not applied.
-- 3. Tenants read and change their own cards' contexts through the usual
--    organization policy; the agent endpoint does so under the
--    organization of the card it serves.
-- 4. The state hangs under its agent card (same organization) and goes
--    with it.

-- +goose Up
CREATE TABLE a2a_context_state (
    agent_card_id   uuid NOT NULL,
    organization_id uuid NOT NULL,
    context_id      text NOT NULL CHECK (length(context_id) BETWEEN 1 AND 256),
    state           jsonb NOT NULL CHECK (jsonb_typeof(state) = 'object'),
    version         bigint NOT NULL CHECK (version >= 0),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (agent_card_id, context_id),
    FOREIGN KEY (agent_card_id, organization_id) REFERENCES agent_cards (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX a2a_context_state_card_updated_idx ON a2a_context_state (agent_card_id, updated_at DESC, context_id);
CREATE INDEX a2a_context_state_org_idx ON a2a_context_state (organization_id);

ALTER TABLE a2a_context_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE a2a_context_state FORCE ROW LEVEL SECURITY;

CREATE POLICY a2a_context_state_tenant ON a2a_context_state
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON a2a_context_state TO mockmcp_app;

-- +goose Down
DROP TABLE a2a_context_state;
