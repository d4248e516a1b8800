-- Where an imported server design came from: an OpenAPI document (its URL
-- or hash) or a live MCP server, and when it was imported. Null for designs
-- made by hand.

-- +goose Up
ALTER TABLE mcp_servers ADD COLUMN source json;

-- +goose Down
ALTER TABLE mcp_servers DROP COLUMN source;
