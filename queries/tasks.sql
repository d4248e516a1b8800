-- name: CreateTask :exec
INSERT INTO mcp_tasks (id, organization_id, server_id, tool, scenario, script, arguments, answers, created_at, expires_at)
VALUES (@id, @organization_id, @server_id, @tool, @scenario, @script, @arguments, @answers, @created_at, sqlc.narg(expires_at));

-- name: GetTask :one
-- A task of the server, expired or not (until swept): the caller's clock
-- decides.
SELECT * FROM mcp_tasks
WHERE id = @id AND server_id = @server_id;

-- name: AnswerTask :execrows
UPDATE mcp_tasks SET answers = @answers, answered_at = sqlc.narg(answered_at)
WHERE id = @id AND server_id = @server_id AND (expires_at IS NULL OR expires_at > sqlc.arg(now)::timestamptz)
  AND ended_status IS NULL;

-- name: EndTask :execrows
UPDATE mcp_tasks SET ended_status = sqlc.arg(status)::text, ended_at = sqlc.arg(ended_at)::timestamptz, ended_payload = sqlc.narg(payload)
WHERE id = @id AND server_id = @server_id AND (expires_at IS NULL OR expires_at > sqlc.arg(now)::timestamptz)
  AND ended_status IS NULL;

-- name: ListTasks :many
-- One server's tasks that have not expired, newest first, keyset-paginated
-- on (created_at, id).
SELECT * FROM mcp_tasks
WHERE server_id = @server_id AND (expires_at IS NULL OR expires_at > sqlc.arg(now)::timestamptz)
  AND (sqlc.narg(after_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::text))
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: SweepTasks :execrows
DELETE FROM mcp_tasks WHERE expires_at <= sqlc.arg(now)::timestamptz;
