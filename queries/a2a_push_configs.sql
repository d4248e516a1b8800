-- name: PutA2APushConfig :exec
-- Sets a task's config: a config of the same id is replaced.
INSERT INTO a2a_push_configs (task_id, id, organization_id, agent_card_id, url, scheme, secrets, era)
VALUES (@task_id, @id, @organization_id, @agent_card_id, @url, @scheme, @secrets, @era)
ON CONFLICT (task_id, id) DO UPDATE
SET url = EXCLUDED.url, scheme = EXCLUDED.scheme, secrets = EXCLUDED.secrets, era = EXCLUDED.era;

-- name: CountA2APushConfigs :one
SELECT count(*) FROM a2a_push_configs WHERE task_id = @task_id;

-- name: GetA2APushConfig :one
SELECT * FROM a2a_push_configs
WHERE task_id = @task_id AND agent_card_id = @agent_card_id AND id = @id;

-- name: ListA2APushConfigs :many
SELECT * FROM a2a_push_configs
WHERE task_id = @task_id AND agent_card_id = @agent_card_id
ORDER BY created_at, id;

-- name: DeleteA2APushConfig :execrows
DELETE FROM a2a_push_configs
WHERE task_id = @task_id AND agent_card_id = @agent_card_id AND id = @id;
