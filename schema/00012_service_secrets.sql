-- Secrets every instance of the service shares, generated once by the first
-- instance that needs one: the key that signs the requestState of MCP
-- 2026-07-28 calls whose scenario asks the client, when REQUEST_STATE_SECRETS
-- is not set. Read by the service itself, never by a tenant.

-- +goose Up
CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL CHECK (length(secret) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE service_secrets;
