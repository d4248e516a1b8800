-- A design's upstream: a real MCP server the endpoint forwards tools/call
-- to, either when no scenario matches (fallback) or always (record). The
-- header names are kept in clear, for the API to show; their values are
-- sealed with AES-GCM under the service secret "upstream_headers" and are
-- never returned.
--
-- Forwarded calls are journaled with the outcome 'proxied', the upstream's
-- latency and its whole answer (bounded at 256 KiB).

-- +goose Up
ALTER TABLE mcp_servers
    ADD COLUMN upstream_url text,
    ADD COLUMN upstream_mode text CHECK (upstream_mode IN ('fallback', 'record')),
    ADD COLUMN upstream_header_names text[] NOT NULL DEFAULT '{}',
    ADD COLUMN upstream_headers bytea,
    ADD CONSTRAINT mcp_servers_upstream_whole CHECK ((upstream_url IS NULL) = (upstream_mode IS NULL));

ALTER TABLE mcp_journal DROP CONSTRAINT mcp_journal_outcome_check;
ALTER TABLE mcp_journal
    ADD CONSTRAINT mcp_journal_outcome_check
        CHECK (outcome IN ('result', 'error', 'no_match', 'fault', 'rejected', 'proxied')),
    ADD COLUMN upstream_latency_us bigint CHECK (upstream_latency_us >= 0),
    ADD COLUMN upstream_answer text CHECK (length(upstream_answer) <= 262144);

-- +goose Down
ALTER TABLE mcp_journal DROP COLUMN upstream_answer, DROP COLUMN upstream_latency_us;
DELETE FROM mcp_journal WHERE outcome = 'proxied';
ALTER TABLE mcp_journal DROP CONSTRAINT mcp_journal_outcome_check;
ALTER TABLE mcp_journal ADD CONSTRAINT mcp_journal_outcome_check
    CHECK (outcome IN ('result', 'error', 'no_match', 'fault', 'rejected'));
ALTER TABLE mcp_servers DROP CONSTRAINT mcp_servers_upstream_whole,
    DROP COLUMN upstream_headers, DROP COLUMN upstream_header_names,
    DROP COLUMN upstream_mode, DROP COLUMN upstream_url;
