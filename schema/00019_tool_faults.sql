-- A tool may have a fault of its own (mockspec.Fault), which its calls get
-- instead of the server's; NULL when it has none. A scenario's fault is
-- kept with the scenario, in mock_scenarios.

-- +goose Up
ALTER TABLE mcp_tools ADD COLUMN fault json;

-- +goose Down
ALTER TABLE mcp_tools DROP COLUMN fault;
