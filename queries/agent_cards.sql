-- name: CreateAgentCard :one
INSERT INTO agent_cards (id, organization_id, name, card, version, description, tags, categories, skill_names, created_by)
VALUES (@id, app_org_id(), @name, @card, @version, @description, @tags, @categories, @skill_names, @created_by)
RETURNING *;

-- name: GetAgentCard :one
SELECT * FROM agent_cards WHERE id = @id;

-- name: LockAgentCard :one
SELECT * FROM agent_cards WHERE id = @id FOR UPDATE;

-- name: ListAgentCards :many
-- Keyset pagination, newest first, optionally one status only.
SELECT * FROM agent_cards
WHERE (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status)::text)
  AND (sqlc.narg(after_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: UpdateAgentCard :one
UPDATE agent_cards
SET name = @name, card = @card, version = @version, description = @description, tags = @tags,
    categories = @categories, skill_names = @skill_names, status = @status, published_at = sqlc.narg(published_at),
    updated_at = now()
WHERE id = @id
RETURNING *;

-- name: DeleteAgentCard :execrows
DELETE FROM agent_cards WHERE id = @id;

-- name: LinkedServers :many
-- The organization's servers that skills' mcp_server values (and a bearer
-- auth's oauth_server) name, by id or by name, with their auth mode and the
-- names of their tools.
SELECT s.id, s.name, s.auth_mode,
       COALESCE(array_agg(t.name ORDER BY t.position) FILTER (WHERE t.name IS NOT NULL), '{}')::text[] AS tools
FROM mcp_servers s
LEFT JOIN mcp_tools t ON t.server_id = s.id
WHERE s.id = ANY(@ids::uuid[]) OR s.name = ANY(@names::text[])
GROUP BY s.id, s.name, s.auth_mode;

-- name: GetToolByName :one
SELECT * FROM mcp_tools WHERE server_id = @server_id AND name = @name;

-- name: ListExchangeCards :many
-- The public exchange: published cards of every organization, newest
-- publication first, visible only through the exchange policies.
SELECT sqlc.embed(c), o.slug AS org_slug, o.name AS org_name
FROM agent_cards c
JOIN organizations o ON o.id = c.organization_id
WHERE c.status = 'published'
  AND (sqlc.narg(query)::text IS NULL
       OR strpos(lower(c.name || ' ' || c.description), lower(sqlc.narg(query)::text)) > 0
       OR EXISTS (SELECT 1 FROM unnest(c.skill_names) sn WHERE strpos(lower(sn), lower(sqlc.narg(query)::text)) > 0))
  AND (sqlc.narg(tag)::text IS NULL OR c.tags @> ARRAY[sqlc.narg(tag)::text])
  AND (sqlc.narg(category)::text IS NULL OR c.categories @> ARRAY[sqlc.narg(category)::text])
  AND (sqlc.narg(skill)::text IS NULL OR c.skill_names @> ARRAY[sqlc.narg(skill)::text])
  AND (sqlc.narg(after_published_at)::timestamptz IS NULL
       OR (c.published_at, c.id) < (sqlc.narg(after_published_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY c.published_at DESC, c.id DESC
LIMIT @row_limit;

-- name: GetExchangeCard :one
SELECT sqlc.embed(c), o.slug AS org_slug, o.name AS org_name
FROM agent_cards c
JOIN organizations o ON o.id = c.organization_id
WHERE c.status = 'published' AND o.slug = @org_slug AND c.name = @name;

-- name: LockAgentCardByName :one
-- The transaction's organization's card named name, locked, for applying
-- a card document.
SELECT * FROM agent_cards WHERE name = @name FOR UPDATE;
