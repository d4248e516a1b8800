-- The MCP protocol eras a design answers (2026-07-28 clients with
-- per-request _meta, initialize-based clients, or both), the caching hints
-- it gives modern clients, and the client capabilities a modern request
-- must declare to call a tool.

-- +goose Up
ALTER TABLE mcp_servers
    ADD COLUMN eras text NOT NULL DEFAULT 'modern_and_legacy'
        CHECK (eras IN ('modern_and_legacy', 'legacy_only', 'modern_only')),
    ADD COLUMN cache_ttl_ms integer NOT NULL DEFAULT 60000
        CHECK (cache_ttl_ms BETWEEN 0 AND 86400000),
    ADD COLUMN cache_scope text NOT NULL DEFAULT 'private'
        CHECK (cache_scope IN ('public', 'private'));
ALTER TABLE mcp_tools
    ADD COLUMN required_client_capabilities text[] NOT NULL DEFAULT '{}'
        CHECK (required_client_capabilities <@ ARRAY['roots', 'sampling', 'elicitation']
               AND cardinality(required_client_capabilities) <= 3);

-- +goose Down
ALTER TABLE mcp_tools DROP COLUMN required_client_capabilities;
ALTER TABLE mcp_servers DROP COLUMN cache_scope, DROP COLUMN cache_ttl_ms, DROP COLUMN eras;
