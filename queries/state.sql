-- name: GetLiveState :one
-- The server's live state and its version: the initial state (version 0)
-- until something changed it.
SELECT COALESCE(st.state, s.state)::jsonb AS state, COALESCE(st.version, 0)::bigint AS version
FROM mcp_servers s LEFT JOIN mcp_server_state st ON st.server_id = s.id
WHERE s.id = @server_id;

-- name: ChangeLiveState :one
-- Sets the keys of @sets and deletes those of @deletes in one statement,
-- from the initial state when the server has no live state yet.
INSERT INTO mcp_server_state AS st (server_id, organization_id, state, version)
SELECT s.id, s.organization_id, (s.state || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[], 1
FROM mcp_servers s WHERE s.id = @server_id
ON CONFLICT (server_id) DO UPDATE
SET state = (st.state || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[], version = st.version + 1, updated_at = now()
RETURNING st.state, st.version;

-- name: ReplaceLiveState :one
-- Replaces the live state with @state.
INSERT INTO mcp_server_state AS st (server_id, organization_id, state, version)
SELECT s.id, s.organization_id, sqlc.arg(state)::jsonb, 1
FROM mcp_servers s WHERE s.id = @server_id
ON CONFLICT (server_id) DO UPDATE
SET state = EXCLUDED.state, version = st.version + 1, updated_at = now()
RETURNING st.state, st.version;

-- name: ResetLiveState :one
-- Sets the live state back to the server's initial state.
INSERT INTO mcp_server_state AS st (server_id, organization_id, state, version)
SELECT s.id, s.organization_id, s.state, 1
FROM mcp_servers s WHERE s.id = @server_id
ON CONFLICT (server_id) DO UPDATE
SET state = EXCLUDED.state, version = st.version + 1, updated_at = now()
RETURNING st.state, st.version;
