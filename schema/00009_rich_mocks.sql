-- Rich mocks: a server's default fault (chaos testing), binary resources and
-- the completion values of resource-template parameters. Scenario fields
-- (explicit results, errors, sequences, delays, notifications) and prompt
-- argument completions live in the existing json columns.

-- +goose Up
ALTER TABLE mcp_servers ADD COLUMN fault json;
ALTER TABLE mcp_resources ADD COLUMN is_binary boolean NOT NULL DEFAULT false;
ALTER TABLE mcp_resources ADD COLUMN completions jsonb NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE mcp_resources DROP COLUMN completions;
ALTER TABLE mcp_resources DROP COLUMN is_binary;
ALTER TABLE mcp_servers DROP COLUMN fault;
