-- A design may seed the random values of its answer templates, so that
-- runs repeat; NULL when it does not.

-- +goose Up
ALTER TABLE mcp_servers ADD COLUMN seed bigint;

-- +goose Down
ALTER TABLE mcp_servers DROP COLUMN seed;
