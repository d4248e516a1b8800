-- The call journal: one row per request to a per-server MCP endpoint.
--
-- 1. Rows are appended by the journal writer in batches for many
--    organizations at once, so appending is allowed to transactions that set
--    app.journal_append, which can neither read back nor change anything.
-- 2. Retention (rows older than JOURNAL_RETENTION, beyond
--    JOURNAL_MAX_PER_SERVER per server) runs for every organization at once
--    in transactions that set app.journal_prune: they may read and delete
--    journal rows, and nothing else.
-- 3. Tenants read and clear their own servers' rows through the usual
--    organization policy; no one updates a row.
-- 4. A row hangs under its server (same organization, as for tools) and goes
--    with it. The writer skips the rows of a server deleted while they were
--    queued rather than fail their batch.

-- +goose Up
CREATE TABLE mcp_journal (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL,
    server_id        uuid NOT NULL,
    received_at      timestamptz NOT NULL,
    method           text NOT NULL,
    tool             text,
    params           json,
    outcome          text NOT NULL CHECK (outcome IN ('result', 'error', 'no_match', 'fault', 'rejected')),
    matched_scenario text,
    sequence_step    integer CHECK (sequence_step >= 0),
    mismatches       jsonb NOT NULL DEFAULT '[]',
    response         text NOT NULL DEFAULT '' CHECK (length(response) <= 500),
    error_code       integer,
    latency_us       bigint NOT NULL CHECK (latency_us >= 0),
    client_address   text NOT NULL DEFAULT '',
    sequence_key     text,
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX mcp_journal_server_received_idx ON mcp_journal (server_id, received_at DESC, id DESC);
CREATE INDEX mcp_journal_received_idx ON mcp_journal (received_at);

ALTER TABLE mcp_journal ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_journal FORCE ROW LEVEL SECURITY;

CREATE POLICY mcp_journal_tenant_read ON mcp_journal FOR SELECT
    USING (organization_id = app_org_id());
CREATE POLICY mcp_journal_tenant_clear ON mcp_journal FOR DELETE
    USING (organization_id = app_org_id());
CREATE POLICY mcp_journal_append ON mcp_journal FOR INSERT
    WITH CHECK (current_setting('app.journal_append', true) = 'on');
CREATE POLICY mcp_journal_prune_read ON mcp_journal FOR SELECT
    USING (current_setting('app.journal_prune', true) = 'on');
CREATE POLICY mcp_journal_prune ON mcp_journal FOR DELETE
    USING (current_setting('app.journal_prune', true) = 'on');

GRANT SELECT, INSERT, DELETE ON mcp_journal TO mockmcp_app;

-- +goose Down
DROP TABLE mcp_journal;
