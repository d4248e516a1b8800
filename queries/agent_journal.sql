-- name: AppendAgentJournal :batchexec
-- Sent as one batch per flush of the agent journal's writer.
INSERT INTO agent_journal (id, organization_id, card_id, received_at, method, binding, a2a_version, message,
                           outcome, reply, skill, mismatches, response, error_code, latency_us, client_address)
VALUES (@id, @organization_id, @card_id, @received_at, @method, @binding, @a2a_version, sqlc.narg(message),
        @outcome, sqlc.narg(reply), sqlc.narg(skill), @mismatches, @response, sqlc.narg(error_code),
        @latency_us, @client_address);

-- name: ListAgentJournal :many
-- One card's messages, newest first, keyset-paginated on (received_at, id).
SELECT * FROM agent_journal
WHERE card_id = @card_id
  AND (sqlc.narg(method)::text IS NULL OR method = sqlc.narg(method)::text)
  AND (sqlc.narg(outcome)::text IS NULL OR outcome = sqlc.narg(outcome)::text)
  AND (sqlc.narg(reply)::text IS NULL OR reply = sqlc.narg(reply)::text)
  AND (sqlc.narg(since)::timestamptz IS NULL OR received_at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(after_received_at)::timestamptz IS NULL
       OR (received_at, id) < (sqlc.narg(after_received_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY received_at DESC, id DESC
LIMIT @row_limit;

-- name: AgentJournalMessages :many
-- What a verification reads of every recorded message of a card.
SELECT reply, skill, coalesce(message::text, 'null')::text AS message FROM agent_journal
WHERE card_id = @card_id;

-- name: ClearAgentJournal :execrows
DELETE FROM agent_journal WHERE card_id = @card_id;

-- name: PruneAgentJournalAgedBatch :execrows
-- Deletes at most batch_size of the rows received before before, oldest
-- first; retention repeats it until it deletes fewer.
DELETE FROM agent_journal
WHERE id = ANY (ARRAY(
    SELECT a.id FROM agent_journal a WHERE a.received_at < @before
    ORDER BY a.received_at LIMIT @batch_size::integer
));

-- name: PruneAgentJournalOverBatch :execrows
-- Deletes at most batch_size of the rows of card beyond its newest keep.
DELETE FROM agent_journal
WHERE id = ANY (ARRAY(
    SELECT a.id FROM agent_journal a WHERE a.card_id = @card_id
    ORDER BY a.received_at DESC, a.id DESC OFFSET @keep::bigint LIMIT @batch_size::integer
));
