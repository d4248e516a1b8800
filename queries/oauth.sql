-- name: CreateOAuthClient :exec
INSERT INTO oauth_clients (client_id, organization_id, server_id, secret_hash, client_name, redirect_uris,
    grant_types, auth_method, scope)
VALUES (@client_id, app_org_id(), @server_id, @secret_hash, @client_name, @redirect_uris, @grant_types,
    @auth_method, @scope);

-- name: GetOAuthClient :one
SELECT * FROM oauth_clients WHERE client_id = @client_id AND server_id = @server_id;

-- name: ListOAuthClients :many
-- The clients of a server, oldest first, without their secret hashes.
SELECT client_id, client_name, redirect_uris, grant_types, auth_method, scope, created_at, last_used_at
FROM oauth_clients WHERE server_id = @server_id ORDER BY created_at, client_id;

-- name: CreateOAuthCode :exec
INSERT INTO oauth_codes (code_hash, organization_id, server_id, client_id, redirect_uri, code_challenge,
    scope, subject, expires_at, family_id)
VALUES (@code_hash, app_org_id(), @server_id, @client_id, @redirect_uri, @code_challenge, @scope,
    @subject, @expires_at, @family_id);

-- name: TakeOAuthCode :one
-- A code is used once: reading it marks it used. The used row stays a
-- while, so that a replay is seen (ReplayedOAuthCode).
UPDATE oauth_codes SET used_at = now()
WHERE code_hash = @code_hash AND server_id = @server_id AND used_at IS NULL
RETURNING *;

-- name: ReplayedOAuthCode :one
-- The family of a code used before.
SELECT family_id FROM oauth_codes WHERE code_hash = @code_hash AND server_id = @server_id AND used_at IS NOT NULL;

-- name: DeleteExpiredOAuthCodes :exec
-- Codes ten minutes past their expiry: long enough to see a replay.
DELETE FROM oauth_codes WHERE server_id = @server_id AND expires_at < now() - interval '10 minutes';

-- name: CreateOAuthRefreshToken :exec
INSERT INTO oauth_refresh_tokens (token_hash, organization_id, server_id, client_id, scope, subject,
    issued_at, expires_at, family_id, access_jti, access_expires_at)
VALUES (@token_hash, app_org_id(), @server_id, @client_id, @scope, @subject, @issued_at, @expires_at,
    @family_id, @access_jti, @access_expires_at);

-- name: SpentOAuthRefreshToken :one
-- The family of a refresh token spent before (rotated or revoked): its
-- reuse.
SELECT family_id FROM oauth_refresh_tokens
WHERE token_hash = @token_hash AND server_id = @server_id AND client_id = @client_id AND spent_at IS NOT NULL;

-- name: RevokeOAuthFamily :many
-- Spends every refresh token of a family and returns the access tokens
-- issued with them that have not expired, to revoke.
UPDATE oauth_refresh_tokens SET spent_at = coalesce(spent_at, now())
WHERE server_id = @server_id AND family_id = @family_id AND family_id <> ''
RETURNING access_jti, access_expires_at;

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

-- name: SweepOAuthRefreshTokens :execrows
-- At most row_limit refresh tokens, of every organization, that expired,
-- and as many spent (rotated or revoked) a while ago: two index ranges.
DELETE FROM oauth_refresh_tokens WHERE token_hash IN (
    (SELECT e.token_hash FROM oauth_refresh_tokens e WHERE e.expires_at < @expired_before LIMIT @row_limit)
    UNION
    (SELECT sp.token_hash FROM oauth_refresh_tokens sp WHERE sp.spent_at < @spent_before LIMIT @row_limit));

-- name: SweepOAuthCodes :execrows
DELETE FROM oauth_codes WHERE code_hash IN (
    SELECT c.code_hash FROM oauth_codes c WHERE c.expires_at < @before LIMIT @row_limit);

-- name: SweepOAuthClients :execrows
-- At most row_limit clients, of every organization, unused since before.
DELETE FROM oauth_clients WHERE client_id IN (
    SELECT c.client_id FROM oauth_clients c WHERE c.last_used_at < @before LIMIT @row_limit);

-- name: SweepOAuthRevokedTokens :execrows
DELETE FROM oauth_revoked_tokens WHERE jti IN (
    SELECT r.jti FROM oauth_revoked_tokens r WHERE r.expires_at < @now LIMIT @row_limit);

-- name: DeleteExpiredOAuthRevokedTokens :exec
DELETE FROM oauth_revoked_tokens WHERE server_id = @server_id AND expires_at < now();

-- name: CountOAuthClients :one
SELECT count(*) FROM oauth_clients WHERE server_id = @server_id;

-- name: LockOAuthClients :exec
-- Serializes the registrations of one server until the transaction ends,
-- so that counting and inserting hold the cap.
SELECT pg_advisory_xact_lock(hashtextextended('oauth_clients:' || @server_id::text, 0));

-- name: TouchOAuthClient :exec
UPDATE oauth_clients SET last_used_at = @now WHERE client_id = @client_id AND server_id = @server_id;

-- name: DeleteOAuthClients :execrows
-- Every client of a server, with the codes and refresh tokens issued to
-- them (unusable without their client).
WITH codes AS (DELETE FROM oauth_codes c WHERE c.server_id = @server_id),
     refresh AS (DELETE FROM oauth_refresh_tokens r WHERE r.server_id = @server_id)
DELETE FROM oauth_clients WHERE oauth_clients.server_id = @server_id;
