-- name: CreatePrompt :one
INSERT INTO mcp_prompts (id, organization_id, server_id, name, description, arguments, messages, ask)
VALUES (@id, app_org_id(), @server_id, @name, @description, @arguments, @messages, sqlc.narg(ask))
RETURNING *;

-- name: GetPrompt :one
SELECT * FROM mcp_prompts WHERE server_id = @server_id AND id = @id;

-- name: ListPrompts :many
SELECT * FROM mcp_prompts WHERE server_id = @server_id ORDER BY position;

-- name: UpdatePrompt :one
UPDATE mcp_prompts
SET name = @name, description = @description, arguments = @arguments, messages = @messages, ask = sqlc.narg(ask),
    updated_at = now()
WHERE server_id = @server_id AND id = @id
RETURNING *;

-- name: DeletePrompt :execrows
DELETE FROM mcp_prompts WHERE server_id = @server_id AND id = @id;
