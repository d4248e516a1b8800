-- Per-design state for stateful mocks: a key -> JSON object that scenarios
-- read (when_state) and change (set_state), shared by every instance.
--
-- 1. mcp_servers.state is the design's initial state (part of the design:
--    the REST API and design documents write it; the caller bounds it).
-- 2. mcp_server_state holds the live state, one row per server, created
--    from the initial state by the first change or by a reset; a server
--    without a row is at its initial state. A change is one statement
--    (jsonb || for the keys set, - for those deleted, version + 1), so
--    two instances changing one server never lose each other's change.
--    Changing it notifies nothing: the design is unchanged.
-- 3. Tenants read and change their own servers' state through the usual
--    organization policy; the per-server endpoint does so under the
--    organization of the design it serves.
-- 4. The state hangs under its server (same organization) and goes with
--    it.

-- +goose Up
ALTER TABLE mcp_servers ADD COLUMN state jsonb NOT NULL DEFAULT '{}'
    CONSTRAINT mcp_servers_state_object CHECK (jsonb_typeof(state) = 'object');

CREATE TABLE mcp_server_state (
    server_id       uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    state           jsonb NOT NULL CHECK (jsonb_typeof(state) = 'object'),
    version         bigint NOT NULL CHECK (version >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX mcp_server_state_org_idx ON mcp_server_state (organization_id);

ALTER TABLE mcp_server_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_server_state FORCE ROW LEVEL SECURITY;

CREATE POLICY mcp_server_state_tenant ON mcp_server_state
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_server_state TO mockmcp_app;

-- The state change a recorded call made (journal.StateChange): NULL for
-- every call that changed none. The journal writer bounds it.
ALTER TABLE mcp_journal ADD COLUMN state_change jsonb;

-- +goose Down
ALTER TABLE mcp_journal DROP COLUMN state_change;
DROP TABLE mcp_server_state;
ALTER TABLE mcp_servers DROP COLUMN state;
