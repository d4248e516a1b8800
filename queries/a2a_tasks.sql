-- name: CreateA2ATask :exec
INSERT INTO a2a_tasks (id, organization_id, agent_card_id, context_id, reply, script, history, created_at)
VALUES (@id, @organization_id, @agent_card_id, @context_id, @reply, @script, @history, @created_at);

-- name: GetA2ATask :one
SELECT * FROM a2a_tasks
WHERE id = @id AND agent_card_id = @agent_card_id;

-- name: LockA2ATask :one
-- The task, locked until the transaction ends: a change reckons its state
-- and writes it back without a concurrent change in between.
SELECT * FROM a2a_tasks
WHERE id = @id AND agent_card_id = @agent_card_id
FOR UPDATE;

-- name: UpdateA2ATask :exec
UPDATE a2a_tasks SET history = @history, resumed_at = @resumed_at, canceled_at = sqlc.narg(canceled_at)
WHERE id = @id AND agent_card_id = @agent_card_id;

-- name: ListA2ATasks :many
-- One card's tasks, of one context when context_id is given, newest first,
-- keyset-paginated on (created_at, id).
SELECT * FROM a2a_tasks
WHERE agent_card_id = @agent_card_id
  AND (sqlc.narg(context_id)::text IS NULL OR context_id = sqlc.narg(context_id)::text)
  AND (sqlc.narg(after_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: TrimA2ATasks :execrows
-- Keeps a card's newest tasks only: the agent is public, so its tasks are
-- bounded by count rather than by who made them.
DELETE FROM a2a_tasks d
WHERE d.agent_card_id = sqlc.arg(card_id)::uuid AND d.id IN (
    SELECT t.id FROM a2a_tasks t WHERE t.agent_card_id = sqlc.arg(card_id)::uuid
    ORDER BY t.created_at DESC, t.id DESC OFFSET sqlc.arg(keep)::int);
