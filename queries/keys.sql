-- name: CreateKey :one
INSERT INTO api_keys (id, organization_id, key_hash, name, scope, bound_asset_ids, created_by, expires_at)
VALUES (@id, app_org_id(), @key_hash, @name, @scope, @bound_asset_ids::uuid[], @created_by, sqlc.narg(expires_at))
RETURNING *;

-- name: ListKeys :many
SELECT * FROM api_keys ORDER BY created_at DESC, id DESC;

-- name: GetKey :one
SELECT * FROM api_keys WHERE id = @id;

-- name: DeleteKey :execrows
DELETE FROM api_keys WHERE id = @id;

-- name: KeyByHash :one
-- Visible through the policy on app.key_hash alone.
SELECT * FROM api_keys WHERE key_hash = @key_hash;

-- name: TouchKeys :execrows
-- Coalesced last-use writes, one time per key; never moves last_used_at
-- backwards.
UPDATE api_keys k SET last_used_at = (@used_at::timestamptz[])[v.ord]
FROM unnest(@ids::uuid[]) WITH ORDINALITY AS v (id, ord)
WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < (@used_at::timestamptz[])[v.ord]);

-- name: CountServersIn :one
SELECT count(*) FROM mcp_servers WHERE id = ANY(@ids::uuid[]);

-- name: OrganizationBySlug :one
-- Visible through the policy on app.org_slug alone.
SELECT * FROM organizations WHERE slug = @slug;
