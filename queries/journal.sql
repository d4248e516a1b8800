-- name: AppendJournal :batchexec
-- Sent as one batch per flush of the journal writer. (COPY is not available
-- on tables with row-level security.)
INSERT INTO mcp_journal (id, organization_id, server_id, received_at, method, tool, params, outcome,
                         matched_scenario, sequence_step, mismatches, response, error_code, latency_us,
                         client_address, sequence_key, rounds, upstream_latency_us, upstream_answer, state_change)
VALUES (@id, @organization_id, @server_id, @received_at, @method, sqlc.narg(tool), sqlc.narg(params), @outcome,
        sqlc.narg(matched_scenario), sqlc.narg(sequence_step), @mismatches, @response, sqlc.narg(error_code),
        @latency_us, @client_address, sqlc.narg(sequence_key), @rounds, sqlc.narg(upstream_latency_us),
        sqlc.narg(upstream_answer), sqlc.narg(state_change));

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

-- name: PruneJournalAgedBatch :execrows
-- Deletes at most batch_size of the rows received before before, oldest
-- first, found through the received_at index; retention repeats it, one
-- short transaction each, until it deletes fewer.
DELETE FROM mcp_journal
WHERE id = ANY (ARRAY(
    SELECT a.id FROM mcp_journal a WHERE a.received_at < @before
    ORDER BY a.received_at LIMIT @batch_size::integer
));

-- name: JournalServers :many
-- The servers that have journal rows, in order, after after (the nil UUID
-- to start): a skip scan of the server index, one probe a server, so
-- retention never reads every row to find them.
WITH RECURSIVE s AS (
    (SELECT j.server_id FROM mcp_journal j WHERE j.server_id > @after::uuid ORDER BY j.server_id LIMIT 1)
    UNION ALL
    SELECT (SELECT j.server_id FROM mcp_journal j WHERE j.server_id > s.server_id ORDER BY j.server_id LIMIT 1)
    FROM s WHERE s.server_id IS NOT NULL
)
SELECT s.server_id::uuid AS server_id FROM s WHERE s.server_id IS NOT NULL LIMIT @row_limit::integer;

-- name: JournalCut :many
-- The keep-th newest row of a server (keep_offset is keep - 1), the
-- newest row count retention deletes below; none when the server keeps at
-- most keep rows. An index probe that reads keep entries.
SELECT j.received_at, j.id FROM mcp_journal j
WHERE j.server_id = @server_id
ORDER BY j.received_at DESC, j.id DESC
OFFSET @keep_offset::bigint LIMIT 1;

-- name: PruneJournalBelowBatch :one
-- Deletes at most batch_size of a server's rows below (below_at, below_id)
-- in (received_at, id) order, newest first, and returns how many and the
-- oldest one deleted: the next batch starts below it, so no batch walks
-- over the index entries an earlier one left dead.
WITH doomed AS (
    SELECT j.id FROM mcp_journal j
    WHERE j.server_id = @server_id AND (j.received_at, j.id) < (@below_at::timestamptz, @below_id::uuid)
    ORDER BY j.received_at DESC, j.id DESC LIMIT @batch_size::integer
), gone AS (
    DELETE FROM mcp_journal d WHERE d.id = ANY (ARRAY(SELECT doomed.id FROM doomed))
    RETURNING d.received_at, d.id
)
SELECT count(*)::bigint AS deleted,
       coalesce(min(gone.received_at), @below_at::timestamptz)::timestamptz AS last_at,
       coalesce((array_agg(gone.id ORDER BY gone.received_at, gone.id))[1], @below_id::uuid)::uuid AS last_id
FROM gone;
