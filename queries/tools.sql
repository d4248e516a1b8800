-- name: CreateTool :one
INSERT INTO mcp_tools (id, organization_id, server_id, name, description, input_schema, output_schema, mock_scenarios,
                       required_client_capabilities, required_scopes, fault, meta)
VALUES (@id, app_org_id(), @server_id, @name, @description, @input_schema, @output_schema, @mock_scenarios,
        @required_client_capabilities, @required_scopes, sqlc.narg(fault), sqlc.narg(meta))
RETURNING *;

-- name: GetTool :one
SELECT * FROM mcp_tools WHERE server_id = @server_id AND id = @id;

-- name: ListTools :many
SELECT * FROM mcp_tools WHERE server_id = @server_id ORDER BY position;

-- name: UpdateTool :one
UPDATE mcp_tools
SET name = @name, description = @description, input_schema = @input_schema, output_schema = @output_schema,
    mock_scenarios = @mock_scenarios, required_client_capabilities = @required_client_capabilities,
    required_scopes = @required_scopes, fault = sqlc.narg(fault), meta = sqlc.narg(meta), updated_at = now()
WHERE server_id = @server_id AND id = @id
RETURNING *;

-- name: DeleteTool :execrows
DELETE FROM mcp_tools WHERE server_id = @server_id AND id = @id;

-- name: ToolScopes :many
-- The scopes each tool of the server requires, for its authorization server.
SELECT name, required_scopes FROM mcp_tools
WHERE server_id = @server_id AND cardinality(required_scopes) > 0
ORDER BY position;
