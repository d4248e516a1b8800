-- The agent journal: one row per message sent to a published card's mock
-- A2A agent, kept as the call journal keeps the calls to an MCP endpoint
-- (see 00010_journal.sql): appended in batches by transactions that set
-- app.journal_append, pruned by transactions that set app.journal_prune,
-- read and cleared by the card's organization, never updated. A row hangs
-- under its card (same organization, through agent_cards_id_org_key of
-- 00040_a2a_tasks.sql) and goes with it.

-- +goose Up

CREATE TABLE agent_journal (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    card_id         uuid NOT NULL,
    received_at     timestamptz NOT NULL,
    method          text NOT NULL,
    binding         text NOT NULL,
    a2a_version     text NOT NULL,
    message         json,
    outcome         text NOT NULL CHECK (outcome IN ('result', 'error', 'fault', 'rejected')),
    reply           text,
    skill           text,
    mismatches      jsonb NOT NULL DEFAULT '[]',
    response        text NOT NULL DEFAULT '' CHECK (length(response) <= 500),
    error_code      integer,
    latency_us      bigint NOT NULL CHECK (latency_us >= 0),
    client_address  text NOT NULL DEFAULT '',
    FOREIGN KEY (card_id, organization_id) REFERENCES agent_cards (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX agent_journal_card_received_idx ON agent_journal (card_id, received_at DESC, id DESC);
CREATE INDEX agent_journal_received_idx ON agent_journal (received_at);

ALTER TABLE agent_journal ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_journal FORCE ROW LEVEL SECURITY;

CREATE POLICY agent_journal_tenant_read ON agent_journal FOR SELECT
    USING (organization_id = app_org_id());
CREATE POLICY agent_journal_tenant_clear ON agent_journal FOR DELETE
    USING (organization_id = app_org_id());
CREATE POLICY agent_journal_append ON agent_journal FOR INSERT
    WITH CHECK (current_setting('app.journal_append', true) = 'on');
CREATE POLICY agent_journal_prune_read ON agent_journal FOR SELECT
    USING (current_setting('app.journal_prune', true) = 'on');
CREATE POLICY agent_journal_prune ON agent_journal FOR DELETE
    USING (current_setting('app.journal_prune', true) = 'on');

GRANT SELECT, INSERT, DELETE ON agent_journal TO mockmcp_app;

-- +goose Down
DROP TABLE agent_journal;
