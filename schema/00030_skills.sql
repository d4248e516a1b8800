-- A design may serve Agent Skills through the MCP skills extension: each
-- one's front matter fields, SKILL.md body and further files, as a JSON
-- array in the order given ([] when it serves none).

-- +goose Up
ALTER TABLE mcp_servers ADD COLUMN skills jsonb NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE mcp_servers DROP COLUMN skills;
