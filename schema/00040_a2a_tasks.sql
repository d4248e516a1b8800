-- A2A tasks: a message to a card's mock A2A agent whose reply is a task
-- begins one; the client then reads it (GetTask, ListTasks), follows it
-- (SubscribeToTask), continues it (a message with its id) or cancels it, on
-- any instance, so the task lives here.
--
-- 1. The id is a random UUID drawn by the caller: the handle a client holds.
-- 2. script is the reply's task with its texts rendered from the message
--    that began it; history is the conversation's messages in order. Both
--    are opaque to the database and bounded by the caller.
-- 3. The state is reckoned from the clock: created_at, the steps' durations,
--    resumed_at (when a message continued an input-required step) and
--    canceled_at (set once, while the task has not ended).
-- 4. Tenants read and change their own cards' tasks through the usual
--    organization policy. The public agent endpoint finds the card under
--    the exchange scope (read-only), then reads and writes the task in a
--    transaction of the card's organization.
-- 5. A task hangs under its agent card (same organization) and goes with it.

-- +goose Up
ALTER TABLE agent_cards ADD CONSTRAINT agent_cards_id_org_key UNIQUE (id, organization_id);

CREATE TABLE a2a_tasks (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    agent_card_id   uuid NOT NULL,
    context_id      text NOT NULL CHECK (length(context_id) BETWEEN 1 AND 256),
    reply           text NOT NULL,
    script          jsonb NOT NULL,
    history         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(history) = 'array'),
    resumed_at      timestamptz[] NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL,
    canceled_at     timestamptz,
    FOREIGN KEY (agent_card_id, organization_id) REFERENCES agent_cards (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX a2a_tasks_card_created_idx ON a2a_tasks (agent_card_id, created_at DESC, id DESC);
CREATE INDEX a2a_tasks_card_context_idx ON a2a_tasks (agent_card_id, context_id, created_at DESC);

ALTER TABLE a2a_tasks ENABLE ROW LEVEL SECURITY;
ALTER TABLE a2a_tasks FORCE ROW LEVEL SECURITY;

CREATE POLICY a2a_tasks_tenant ON a2a_tasks
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON a2a_tasks TO mockmcp_app;

-- +goose Down
DROP TABLE a2a_tasks;
ALTER TABLE agent_cards DROP CONSTRAINT agent_cards_id_org_key;
