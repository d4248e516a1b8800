-- The mock OAuth authorization server every design whose auth_mode is
-- "oauth" has (internal/oauthas): the clients registered with it, the
-- authorization codes and refresh tokens it issued, the access tokens
-- revoked before their expiry, and the keys that sign the access tokens.
--
-- Clients, codes, refresh tokens and revoked tokens belong to one design
-- (server) and its organization, under the tenant policy like every other
-- organization table. Codes and refresh tokens are kept as SHA-256 hex of
-- their value, client secrets likewise: none can be read back.
--
-- The revoked access tokens are also read whole by every instance, which
-- keeps them in memory (the service's own user, like service_secrets); an
-- insert notifies the channel mockmcp_oauth_revoked with the token's jti.
--
-- The signing keys are service-wide and rotate; the private key is sealed
-- with AES-256-GCM under the service secret "oauth_signing_keys". Only the
-- service's own user reads them, never a tenant.

-- +goose Up
CREATE TABLE oauth_clients (
    client_id       text PRIMARY KEY CHECK (length(client_id) BETWEEN 1 AND 200),
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    secret_hash     text,
    client_name     text NOT NULL DEFAULT '',
    redirect_uris   text[] NOT NULL DEFAULT '{}',
    grant_types     text[] NOT NULL DEFAULT '{}',
    auth_method     text NOT NULL CHECK (auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
    scope           text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE,
    CONSTRAINT oauth_clients_secret CHECK ((secret_hash IS NULL) = (auth_method = 'none'))
);
CREATE INDEX oauth_clients_server_idx ON oauth_clients (server_id);

CREATE TABLE oauth_codes (
    code_hash       text PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    client_id       text NOT NULL,
    redirect_uri    text NOT NULL,
    code_challenge  text NOT NULL,
    scope           text NOT NULL DEFAULT '',
    subject         text NOT NULL,
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_server_idx ON oauth_codes (server_id);

CREATE TABLE oauth_refresh_tokens (
    token_hash      text PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    client_id       text NOT NULL,
    scope           text NOT NULL DEFAULT '',
    subject         text NOT NULL,
    issued_at       timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    -- Set when the token was used (rotated) or revoked: it is refused.
    spent_at        timestamptz,
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX oauth_refresh_tokens_server_idx ON oauth_refresh_tokens (server_id);

CREATE TABLE oauth_revoked_tokens (
    jti             text PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    expires_at      timestamptz NOT NULL,
    revoked_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX oauth_revoked_tokens_expiry_idx ON oauth_revoked_tokens (expires_at);

CREATE TABLE oauth_signing_keys (
    kid            text PRIMARY KEY,
    public_key     bytea NOT NULL,  -- PKIX DER
    private_sealed bytea NOT NULL,  -- PKCS #8 DER, sealed
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- Tokens are signed with it until sign_until, and it is published
    -- until published_until, when the last token it signed has expired.
    sign_until       timestamptz NOT NULL,
    published_until  timestamptz NOT NULL CHECK (published_until >= sign_until)
);

ALTER TABLE oauth_clients ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_clients FORCE ROW LEVEL SECURITY;
ALTER TABLE oauth_codes ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_codes FORCE ROW LEVEL SECURITY;
ALTER TABLE oauth_refresh_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_refresh_tokens FORCE ROW LEVEL SECURITY;
ALTER TABLE oauth_revoked_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_revoked_tokens FORCE ROW LEVEL SECURITY;
ALTER TABLE oauth_signing_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_signing_keys FORCE ROW LEVEL SECURITY;

CREATE POLICY oauth_clients_tenant ON oauth_clients
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY oauth_codes_tenant ON oauth_codes
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY oauth_refresh_tokens_tenant ON oauth_refresh_tokens
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY oauth_revoked_tokens_tenant ON oauth_revoked_tokens
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY oauth_revoked_tokens_service ON oauth_revoked_tokens FOR SELECT
    USING (current_user <> 'mockmcp_app');
CREATE POLICY oauth_signing_keys_service ON oauth_signing_keys
    USING (current_user <> 'mockmcp_app') WITH CHECK (current_user <> 'mockmcp_app');

GRANT SELECT, INSERT, UPDATE, DELETE ON oauth_clients, oauth_codes, oauth_refresh_tokens TO mockmcp_app;
GRANT SELECT, INSERT, DELETE ON oauth_revoked_tokens TO mockmcp_app;

-- +goose StatementBegin
CREATE FUNCTION notify_oauth_revoked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mockmcp_oauth_revoked', NEW.jti || ' ' || extract(epoch FROM NEW.expires_at)::bigint::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER oauth_revoked_tokens_notify AFTER INSERT ON oauth_revoked_tokens
    FOR EACH ROW EXECUTE FUNCTION notify_oauth_revoked();

-- +goose Down
DROP TRIGGER oauth_revoked_tokens_notify ON oauth_revoked_tokens;
DROP FUNCTION notify_oauth_revoked();
DROP TABLE oauth_signing_keys;
DROP TABLE oauth_revoked_tokens;
DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_codes;
DROP TABLE oauth_clients;
