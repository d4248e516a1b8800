-- name: ListPolicyAudit :many
-- Newest first, keyset-paginated on (received_at, id); row-level security
-- limits it to the organization's records and the anonymous ones about its
-- servers.
SELECT * FROM policy_api_audit
WHERE (sqlc.narg(server_id)::uuid IS NULL OR asset_id = sqlc.narg(server_id)::uuid)
  AND (sqlc.narg(key_id)::uuid IS NULL OR key_id = sqlc.narg(key_id)::uuid)
  AND (sqlc.narg(since)::timestamptz IS NULL OR received_at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(after_received_at)::timestamptz IS NULL
       OR (received_at, id) < (sqlc.narg(after_received_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY received_at DESC, id DESC
LIMIT @row_limit;

-- name: PolicyCallStats :many
-- Calls recorded for one server, per route.
SELECT route, count(*)::bigint AS calls, max(received_at)::timestamptz AS last_at
FROM policy_api_audit
WHERE asset_id = @asset_id
GROUP BY route
ORDER BY route;

-- name: AppendAudit :batchexec
-- Sent as one batch per flush of the audit writer. (COPY is not available on
-- tables with row-level security.)
INSERT INTO policy_api_audit (id, organization_id, key_id, asset_id, route, status, latency_ms,
                              user_agent, ip_inet, received_at)
VALUES (@id, sqlc.narg(organization_id), sqlc.narg(key_id), sqlc.narg(asset_id), @route, @status, @latency_ms,
        @user_agent, sqlc.narg(ip_inet), @received_at);
