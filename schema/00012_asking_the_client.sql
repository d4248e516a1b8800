-- Scenarios, prompts and resources that ask the client questions (MCP
-- 2026-07-28 Multi Round-Trip Requests). A tool's scenarios carry theirs in
-- mock_scenarios; a prompt or a resource keeps its questions and branches
-- in ask ({"ask": {...}, "then": [...]}, null when it asks nothing).
--
-- service_secrets holds secrets every instance of the service shares,
-- generated once by the first instance that needs one: the key that signs
-- the requestState of those calls when REQUEST_STATE_SECRETS is not set.
-- Read by the service itself, never by a tenant.

-- +goose Up
CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL CHECK (length(secret) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
-- The application role has no privilege on it; row-level security is on
-- and forced like everywhere, with a policy for the service's own user.
ALTER TABLE service_secrets ENABLE ROW LEVEL SECURITY;
ALTER TABLE service_secrets FORCE ROW LEVEL SECURITY;
CREATE POLICY service_secrets_service ON service_secrets
    USING (current_user <> 'mockmcp_app') WITH CHECK (current_user <> 'mockmcp_app');

ALTER TABLE mcp_prompts ADD COLUMN ask jsonb;
ALTER TABLE mcp_resources ADD COLUMN ask jsonb;

-- +goose Down
ALTER TABLE mcp_resources DROP COLUMN ask;
ALTER TABLE mcp_prompts DROP COLUMN ask;
DROP TABLE service_secrets;
