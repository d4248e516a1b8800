-- name: CreateServer :one
INSERT INTO mcp_servers (id, organization_id, name, description, version, provider_name, provider_url,
                         type, protocol_version, auth_mode, created_by, source, fault,
                         eras, cache_ttl_ms, cache_scope, upstream_url, upstream_mode, upstream_header_names,
                         upstream_headers, oauth, state, seed, skills)
VALUES (@id, app_org_id(), @name, @description, @version, @provider_name, @provider_url,
        @type, @protocol_version, @auth_mode, @created_by, sqlc.narg(source), sqlc.narg(fault),
        @eras, @cache_ttl_ms, @cache_scope, sqlc.narg(upstream_url), sqlc.narg(upstream_mode),
        @upstream_header_names, sqlc.narg(upstream_headers), @oauth, @state, sqlc.narg(seed), @skills)
RETURNING *;

-- name: GetServer :one
SELECT * FROM mcp_servers WHERE id = @id;

-- name: LockServer :one
SELECT * FROM mcp_servers WHERE id = @id FOR UPDATE;

-- name: ListServers :many
-- Keyset pagination, newest first: the cursor is the (created_at, id) of the
-- last row of the previous page.
SELECT * FROM mcp_servers
WHERE sqlc.narg(after_created_at)::timestamptz IS NULL
   OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: UpdateServer :one
UPDATE mcp_servers
SET name = @name, description = @description, version = @version, provider_name = @provider_name,
    provider_url = @provider_url, type = @type, enabled = @enabled, protocol_version = @protocol_version,
    auth_mode = @auth_mode, fault = sqlc.narg(fault), eras = @eras, cache_ttl_ms = @cache_ttl_ms,
    cache_scope = @cache_scope, upstream_url = sqlc.narg(upstream_url), upstream_mode = sqlc.narg(upstream_mode),
    upstream_header_names = @upstream_header_names, upstream_headers = sqlc.narg(upstream_headers), oauth = @oauth, state = @state,
    seed = sqlc.narg(seed), skills = @skills, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: ExpireOAuthTokens :one
-- Every access token of the design issued before now (the service's
-- clock, which stamps the tokens) is expired; with revoke, every refresh
-- token too.
UPDATE mcp_servers
SET oauth_tokens_not_before = sqlc.arg(now)::timestamptz,
    oauth_refresh_not_before = CASE WHEN @revoke::boolean THEN sqlc.arg(now)::timestamptz ELSE oauth_refresh_not_before END,
    updated_at = now()
WHERE id = @id
RETURNING *;

-- name: TouchServer :exec
UPDATE mcp_servers SET updated_at = now() WHERE id = @id;

-- name: DeleteServer :execrows
DELETE FROM mcp_servers WHERE id = @id;

-- name: CountServerChildren :one
SELECT
    (SELECT count(*) FROM mcp_tools t WHERE t.server_id = @server_id)::bigint AS tools,
    (SELECT count(*) FROM mcp_resources r WHERE r.server_id = @server_id)::bigint AS resources,
    (SELECT count(*) FROM mcp_prompts p WHERE p.server_id = @server_id)::bigint AS prompts;

-- name: CopyServerTools :execrows
INSERT INTO mcp_tools (id, organization_id, server_id, name, description, input_schema, output_schema, mock_scenarios,
                       required_client_capabilities, required_scopes, fault, meta)
SELECT gen_random_uuid(), t.organization_id, @new_server_id, t.name, t.description, t.input_schema, t.output_schema, t.mock_scenarios,
       t.required_client_capabilities, t.required_scopes, t.fault, t.meta
FROM mcp_tools t WHERE t.server_id = @server_id
ORDER BY t.position;

-- name: CopyServerResources :execrows
INSERT INTO mcp_resources (id, organization_id, server_id, name, uri, description, mime_type, content, is_binary, completions, ask, meta)
SELECT gen_random_uuid(), r.organization_id, @new_server_id, r.name, r.uri, r.description, r.mime_type, r.content, r.is_binary, r.completions,
       r.ask, r.meta
FROM mcp_resources r WHERE r.server_id = @server_id
ORDER BY r.position;

-- name: CopyServerPrompts :execrows
INSERT INTO mcp_prompts (id, organization_id, server_id, name, description, arguments, messages, ask)
SELECT gen_random_uuid(), p.organization_id, @new_server_id, p.name, p.description, p.arguments, p.messages, p.ask
FROM mcp_prompts p WHERE p.server_id = @server_id
ORDER BY p.position;

-- name: GetServedServer :one
-- The public endpoint's look-up: visible only through the
-- mcp_servers_public_endpoint policy (app.public_server_id, enabled).
SELECT * FROM mcp_servers WHERE id = @id AND enabled;

-- name: OrganizationPublicLimit :one
-- The organization's override of the public rate limit (null: none).
SELECT max_public_rate_limit FROM organizations WHERE id = @id;

-- name: ServersNamed :many
-- The organization's servers with a name, oldest first: a design document
-- without an id names its server.
SELECT * FROM mcp_servers WHERE name = @name ORDER BY created_at, id;

-- name: LockServerName :exec
-- Serializes, until the transaction ends, the applications of design
-- documents that name the same server in the organization, so that two at
-- once cannot both create it.
SELECT pg_advisory_xact_lock(hashtextextended('mcp_servers/' || app_org_id()::text || '/' || @name::text, 0));
