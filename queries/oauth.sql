-- name: CreateOAuthClient :exec
INSERT INTO oauth_clients (client_id, organization_id, server_id, secret_hash, client_name, redirect_uris,
    grant_types, auth_method, scope)
VALUES (@client_id, app_org_id(), @server_id, @secret_hash, @client_name, @redirect_uris, @grant_types,
    @auth_method, @scope);

-- name: GetOAuthClient :one
SELECT * FROM oauth_clients WHERE client_id = @client_id AND server_id = @server_id;

-- name: CreateOAuthCode :exec
INSERT INTO oauth_codes (code_hash, organization_id, server_id, client_id, redirect_uri, code_challenge,
    scope, subject, expires_at)
VALUES (@code_hash, app_org_id(), @server_id, @client_id, @redirect_uri, @code_challenge, @scope,
    @subject, @expires_at);

-- name: TakeOAuthCode :one
-- A code is used once: reading it deletes it.
DELETE FROM oauth_codes WHERE code_hash = @code_hash AND server_id = @server_id RETURNING *;

-- name: DeleteExpiredOAuthCodes :exec
DELETE FROM oauth_codes WHERE server_id = @server_id AND expires_at < now();

-- name: CreateOAuthRefreshToken :exec
INSERT INTO oauth_refresh_tokens (token_hash, organization_id, server_id, client_id, scope, subject,
    issued_at, expires_at)
VALUES (@token_hash, app_org_id(), @server_id, @client_id, @scope, @subject, @issued_at, @expires_at);

-- name: SpendOAuthRefreshToken :one
-- Marks the refresh token used (rotated) or revoked; no row when it is
-- unknown or was spent before, so that only one request can use it.
UPDATE oauth_refresh_tokens SET spent_at = now()
WHERE token_hash = @token_hash AND server_id = @server_id AND client_id = @client_id AND spent_at IS NULL
RETURNING *;

-- name: RevokeOAuthAccessToken :exec
INSERT INTO oauth_revoked_tokens (jti, organization_id, server_id, expires_at)
VALUES (@jti, app_org_id(), @server_id, @expires_at)
ON CONFLICT (jti) DO NOTHING;

-- name: ListRevokedOAuthTokens :many
-- Every instance's set of revoked access tokens, read by the service's own user.
SELECT jti, expires_at FROM oauth_revoked_tokens WHERE expires_at > now();

-- name: CreateOAuthSigningKey :exec
INSERT INTO oauth_signing_keys (kid, public_key, private_sealed, created_at, sign_until, published_until)
VALUES (@kid, @public_key, @private_sealed, @created_at, @sign_until, @published_until);

-- name: ListOAuthSigningKeys :many
-- The keys still published, newest first.
SELECT * FROM oauth_signing_keys WHERE published_until > @now ORDER BY created_at DESC;

-- name: DeleteOAuthSigningKeys :exec
DELETE FROM oauth_signing_keys WHERE published_until <= @now;

-- name: IsOAuthTokenRevoked :one
-- Whether the access token jti is revoked, read by the service's own user
-- while its in-memory set may be stale.
SELECT EXISTS (SELECT 1 FROM oauth_revoked_tokens WHERE jti = @jti);

-- name: DeleteStaleOAuthRefreshTokens :exec
-- Refresh tokens that expired, or were spent a day ago.
DELETE FROM oauth_refresh_tokens
WHERE server_id = @server_id AND (expires_at < now() OR spent_at < now() - interval '1 day');

-- name: DeleteExpiredOAuthRevokedTokens :exec
DELETE FROM oauth_revoked_tokens WHERE server_id = @server_id AND expires_at < now();

-- name: CountOAuthClients :one
SELECT count(*) FROM oauth_clients WHERE server_id = @server_id;
