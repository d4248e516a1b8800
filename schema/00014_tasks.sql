-- MCP tasks: a tools/call whose scenario is a task answers a handle at
-- once; the client then polls it (tasks/get), answers its questions
-- (tasks/update) or cancels it (tasks/cancel), on any instance, so the task
-- lives here.
--
-- 1. The id is 32 lowercase hex characters drawn at random by the caller:
--    the handle a client holds, unguessable.
-- 2. script and arguments are what the task plays, opaque to the database;
--    answers is an object from question id to answer. The caller bounds all
--    three before they get here.
-- 3. A task ends once: ended_status, ended_at and ended_payload (a result
--    or an error set by hand through the API; NULL otherwise) are written
--    only while ended_status is NULL.
-- 4. Tenants read and change their own servers' tasks through the usual
--    organization policy. Expired tasks (expires_at passed) are deleted for
--    every organization at once by transactions that set app.task_sweep,
--    which may read and delete tasks and nothing else.
-- 5. A task hangs under its server (same organization) and goes with it.

-- +goose Up
CREATE TABLE mcp_tasks (
    id              text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    tool            text NOT NULL,
    scenario        text NOT NULL,
    script          jsonb NOT NULL,
    arguments       jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz,
    answers         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(answers) = 'object'),
    answered_at     timestamptz,
    ended_status    text CHECK (ended_status IN ('completed', 'failed', 'cancelled')),
    ended_at        timestamptz,
    ended_payload   jsonb,
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE,
    CHECK ((ended_status IS NULL) = (ended_at IS NULL))
);
CREATE INDEX mcp_tasks_server_created_idx ON mcp_tasks (server_id, created_at DESC, id DESC);
CREATE INDEX mcp_tasks_expires_idx ON mcp_tasks (expires_at);

ALTER TABLE mcp_tasks ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_tasks FORCE ROW LEVEL SECURITY;

CREATE POLICY mcp_tasks_tenant ON mcp_tasks
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY mcp_tasks_sweep_read ON mcp_tasks FOR SELECT
    USING (current_setting('app.task_sweep', true) = 'on');
CREATE POLICY mcp_tasks_sweep ON mcp_tasks FOR DELETE
    USING (current_setting('app.task_sweep', true) = 'on');

GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_tasks TO mockmcp_app;

-- +goose Down
DROP TABLE mcp_tasks;
