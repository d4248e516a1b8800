-- name: AppendJournal :batchexec
-- Sent as one batch per flush of the journal writer. (COPY is not available
-- on tables with row-level security.)
INSERT INTO mcp_journal (id, organization_id, server_id, received_at, method, tool, params, outcome,
                         matched_scenario, sequence_step, mismatches, response, error_code, latency_us,
                         client_address, sequence_key, rounds, upstream_latency_us, upstream_answer)
VALUES (@id, @organization_id, @server_id, @received_at, @method, sqlc.narg(tool), sqlc.narg(params), @outcome,
        sqlc.narg(matched_scenario), sqlc.narg(sequence_step), @mismatches, @response, sqlc.narg(error_code),
        @latency_us, @client_address, sqlc.narg(sequence_key), @rounds, sqlc.narg(upstream_latency_us),
        sqlc.narg(upstream_answer));

-- name: ListJournal :many
-- One server's calls, newest first, keyset-paginated on (received_at, id).
SELECT * FROM mcp_journal
WHERE server_id = @server_id
  AND (sqlc.narg(method)::text IS NULL OR method = sqlc.narg(method)::text)
  AND (sqlc.narg(tool)::text IS NULL OR tool = sqlc.narg(tool)::text)
  AND (sqlc.narg(outcome)::text IS NULL OR outcome = sqlc.narg(outcome)::text)
  AND (sqlc.narg(since)::timestamptz IS NULL OR received_at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(after_received_at)::timestamptz IS NULL
       OR (received_at, id) < (sqlc.narg(after_received_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY received_at DESC, id DESC
LIMIT @row_limit;

-- name: JournalToolCalls :many
-- The arguments of every recorded call of one tool, for verification, and
-- its rounds of questions when with_rounds (an empty array otherwise: a
-- verification that reads none does not fetch them).
SELECT coalesce((params -> 'arguments')::text, 'null')::text AS arguments,
       (CASE WHEN sqlc.arg(with_rounds)::boolean THEN rounds ELSE '[]'::jsonb END)::jsonb AS rounds
FROM mcp_journal
WHERE server_id = @server_id AND method = 'tools/call' AND tool = sqlc.arg(tool)::text;

-- name: ClearJournal :execrows
DELETE FROM mcp_journal WHERE server_id = @server_id;

-- name: PruneJournalByAge :execrows
DELETE FROM mcp_journal WHERE received_at < @before;

-- name: PruneJournalByCount :execrows
-- Keeps the newest keep rows of every server (keep_offset is keep - 1): the
-- servers over the limit are found first, then each one's oldest row kept,
-- through the server index.
WITH over AS (
    SELECT j.server_id FROM mcp_journal j GROUP BY j.server_id HAVING count(*) > sqlc.arg(keep)::bigint
), cut AS (
    SELECT o.server_id, c.received_at, c.id
    FROM over o
    CROSS JOIN LATERAL (
        SELECT k.received_at, k.id FROM mcp_journal k
        WHERE k.server_id = o.server_id
        ORDER BY k.received_at DESC, k.id DESC
        OFFSET sqlc.arg(keep_offset)::bigint LIMIT 1
    ) c
)
DELETE FROM mcp_journal d
USING cut
WHERE d.server_id = cut.server_id AND (d.received_at, d.id) < (cut.received_at, cut.id);
