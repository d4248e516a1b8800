-- Tools and resources may carry a _meta object of their own, served as is:
-- a tool's in tools/list, a resource's in resources/list and with its
-- contents in resources/read. MCP Apps (io.modelcontextprotocol/ui) link a
-- tool to its view there (_meta.ui.resourceUri) and describe a view's
-- sandbox (_meta.ui.csp, permissions, ...). NULL when there is none.

-- +goose Up
ALTER TABLE mcp_tools ADD COLUMN meta json;
ALTER TABLE mcp_resources ADD COLUMN meta json;

-- +goose Down
ALTER TABLE mcp_resources DROP COLUMN meta;
ALTER TABLE mcp_tools DROP COLUMN meta;
