-- Bounds of the designs' authorization servers (internal/oauthas).
--
-- Clients record when they were last used (written at most once an hour
-- per client, so the token path stays cheap); those unused for
-- OAUTH_CLIENT_IDLE_TTL are deleted by the OAuth sweep.
--
-- Token families (RFC 9700 4.14, RFC 6749 4.1.2): an authorization code
-- and every refresh token rotated from what it issued share family_id; a
-- code is marked used rather than deleted, so that its replay is seen and
-- revokes the family. Each refresh token keeps the jti and expiry of the
-- access token issued with it, so that revoking the family (or the refresh
-- token, RFC 7009 2.1) revokes those access tokens too.
--
-- The OAuth sweep reads and deletes expired and spent refresh tokens,
-- expired codes and idle clients of every organization under
-- app.oauth_sweep, and nothing else; the indexes make it a range scan, and
-- the token path never scans (it probes the primary key).

-- +goose Up
ALTER TABLE oauth_clients ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX oauth_clients_last_used_idx ON oauth_clients (last_used_at);

ALTER TABLE oauth_codes ADD COLUMN family_id text NOT NULL DEFAULT '', ADD COLUMN used_at timestamptz;
CREATE INDEX oauth_codes_expiry_idx ON oauth_codes (expires_at);

ALTER TABLE oauth_refresh_tokens
    ADD COLUMN family_id text NOT NULL DEFAULT '',
    ADD COLUMN access_jti text NOT NULL DEFAULT '',
    ADD COLUMN access_expires_at timestamptz;
CREATE INDEX oauth_refresh_tokens_family_idx ON oauth_refresh_tokens (server_id, family_id);
CREATE INDEX oauth_refresh_tokens_expiry_idx ON oauth_refresh_tokens (expires_at);
CREATE INDEX oauth_refresh_tokens_spent_idx ON oauth_refresh_tokens (spent_at) WHERE spent_at IS NOT NULL;

CREATE POLICY oauth_clients_sweep_read ON oauth_clients FOR SELECT
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_clients_sweep ON oauth_clients FOR DELETE
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_codes_sweep_read ON oauth_codes FOR SELECT
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_codes_sweep ON oauth_codes FOR DELETE
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_refresh_tokens_sweep_read ON oauth_refresh_tokens FOR SELECT
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_refresh_tokens_sweep ON oauth_refresh_tokens FOR DELETE
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_revoked_tokens_sweep_read ON oauth_revoked_tokens FOR SELECT
    USING (current_setting('app.oauth_sweep', true) = 'on');
CREATE POLICY oauth_revoked_tokens_sweep ON oauth_revoked_tokens FOR DELETE
    USING (current_setting('app.oauth_sweep', true) = 'on');

-- +goose Down
DROP POLICY oauth_revoked_tokens_sweep ON oauth_revoked_tokens;
DROP POLICY oauth_revoked_tokens_sweep_read ON oauth_revoked_tokens;
DROP POLICY oauth_refresh_tokens_sweep ON oauth_refresh_tokens;
DROP POLICY oauth_refresh_tokens_sweep_read ON oauth_refresh_tokens;
DROP POLICY oauth_codes_sweep ON oauth_codes;
DROP POLICY oauth_codes_sweep_read ON oauth_codes;
DROP POLICY oauth_clients_sweep ON oauth_clients;
DROP POLICY oauth_clients_sweep_read ON oauth_clients;
DROP INDEX oauth_refresh_tokens_spent_idx;
DROP INDEX oauth_refresh_tokens_expiry_idx;
DROP INDEX oauth_refresh_tokens_family_idx;
ALTER TABLE oauth_refresh_tokens DROP COLUMN access_expires_at, DROP COLUMN access_jti, DROP COLUMN family_id;
DROP INDEX oauth_codes_expiry_idx;
ALTER TABLE oauth_codes DROP COLUMN used_at, DROP COLUMN family_id;
DROP INDEX oauth_clients_last_used_idx;
ALTER TABLE oauth_clients DROP COLUMN last_used_at;
