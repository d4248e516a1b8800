-- name: CreateResource :one
INSERT INTO mcp_resources (id, organization_id, server_id, name, uri, description, mime_type, content, is_binary, completions, ask, meta)
VALUES (@id, app_org_id(), @server_id, @name, @uri, @description, @mime_type, @content, @is_binary, @completions, sqlc.narg(ask), sqlc.narg(meta))
RETURNING *;

-- name: GetResource :one
SELECT * FROM mcp_resources WHERE server_id = @server_id AND id = @id;

-- name: ListResources :many
SELECT * FROM mcp_resources WHERE server_id = @server_id ORDER BY position;

-- name: UpdateResource :one
UPDATE mcp_resources
SET name = @name, uri = @uri, description = @description, mime_type = @mime_type, content = @content,
    is_binary = @is_binary, completions = @completions, ask = sqlc.narg(ask), meta = sqlc.narg(meta), updated_at = now()
WHERE server_id = @server_id AND id = @id
RETURNING *;

-- name: DeleteResource :execrows
DELETE FROM mcp_resources WHERE server_id = @server_id AND id = @id;
