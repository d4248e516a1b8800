-- A design may protect its MCP endpoint with OAuth (auth_mode 'oauth'):
-- tokens issued by the design's own mock authorization server. The
-- server's settings (oauthcfg.Settings) are one JSON object; the two
-- instants are "expire every access token issued before" and "revoke every
-- token issued before", set by the expire-tokens and revoke-tokens routes
-- (NULL: never). Tools may require scopes of the token that calls them.

-- +goose Up
ALTER TABLE mcp_servers DROP CONSTRAINT mcp_servers_auth_mode_check;
ALTER TABLE mcp_servers
    ADD CONSTRAINT mcp_servers_auth_mode_check CHECK (auth_mode IN ('none', 'api_key', 'oauth')),
    ADD COLUMN oauth jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(oauth) = 'object'),
    ADD COLUMN oauth_tokens_not_before timestamptz,
    ADD COLUMN oauth_refresh_not_before timestamptz;

ALTER TABLE mcp_tools
    ADD COLUMN required_scopes text[] NOT NULL DEFAULT '{}' CHECK (cardinality(required_scopes) <= 100);

-- +goose Down
ALTER TABLE mcp_tools DROP COLUMN required_scopes;
UPDATE mcp_servers SET auth_mode = 'none' WHERE auth_mode = 'oauth';
ALTER TABLE mcp_servers DROP CONSTRAINT mcp_servers_auth_mode_check;
ALTER TABLE mcp_servers
    DROP COLUMN oauth_refresh_not_before, DROP COLUMN oauth_tokens_not_before, DROP COLUMN oauth,
    ADD CONSTRAINT mcp_servers_auth_mode_check CHECK (auth_mode IN ('none', 'api_key'));
