-- name: CreateRestTest :one
INSERT INTO rest_tests (id, organization_id, name, test_case, generated_from, created_by)
VALUES (@id, app_org_id(), @name, @test_case, @generated_from, @created_by)
RETURNING *;

-- name: GetRestTest :one
SELECT * FROM rest_tests WHERE id = @id;

-- name: LockRestTest :one
SELECT * FROM rest_tests WHERE id = @id FOR UPDATE;

-- name: ListRestTests :many
SELECT * FROM rest_tests
WHERE sqlc.narg(after_created_at)::timestamptz IS NULL
   OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: RestTestsByID :many
SELECT * FROM rest_tests WHERE id = ANY(@ids::uuid[]);

-- name: UpdateRestTest :one
UPDATE rest_tests SET name = @name, test_case = @test_case, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: DeleteRestTest :execrows
DELETE FROM rest_tests WHERE id = @id;

-- name: CreateRestTestRun :one
INSERT INTO rest_test_runs (id, organization_id, test_id, passed, started_at, duration_ms, results)
VALUES (@id, app_org_id(), @test_id, @passed, @started_at, @duration_ms, @results)
RETURNING *;

-- name: ListRestTestRuns :many
SELECT * FROM rest_test_runs
WHERE test_id = @test_id
  AND (sqlc.narg(after_started_at)::timestamptz IS NULL
       OR (started_at, id) < (sqlc.narg(after_started_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY started_at DESC, id DESC
LIMIT @row_limit;

-- name: CreateRestSuite :one
INSERT INTO rest_suites (id, organization_id, name, description, test_ids, stop_on_failure, parallelism, created_by)
VALUES (@id, app_org_id(), @name, @description, @test_ids, @stop_on_failure, @parallelism, @created_by)
RETURNING *;

-- name: GetRestSuite :one
SELECT * FROM rest_suites WHERE id = @id;

-- name: GetRestSuiteByName :one
SELECT * FROM rest_suites WHERE name = @name;

-- name: LockRestSuite :one
SELECT * FROM rest_suites WHERE id = @id FOR UPDATE;

-- name: ListRestSuites :many
SELECT * FROM rest_suites
WHERE (sqlc.narg(name)::text IS NULL OR name = sqlc.narg(name)::text)
  AND (sqlc.narg(after_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: UpdateRestSuite :one
UPDATE rest_suites
SET name = @name, description = @description, test_ids = @test_ids, stop_on_failure = @stop_on_failure,
    parallelism = @parallelism, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: DeleteRestSuite :execrows
DELETE FROM rest_suites WHERE id = @id;

-- name: CreateRestSuiteRun :one
INSERT INTO rest_suite_runs (id, organization_id, suite_id, passed, total, passed_count, failed_count, skipped_count,
                             started_at, duration_ms, test_runs)
VALUES (@id, app_org_id(), @suite_id, @passed, @total, @passed_count, @failed_count, @skipped_count,
        @started_at, @duration_ms, @test_runs)
RETURNING *;

-- name: GetRestSuiteRun :one
SELECT * FROM rest_suite_runs WHERE suite_id = @suite_id AND id = @id;

-- name: ListRestSuiteRuns :many
SELECT * FROM rest_suite_runs
WHERE suite_id = @suite_id
  AND (sqlc.narg(after_started_at)::timestamptz IS NULL
       OR (started_at, id) < (sqlc.narg(after_started_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY started_at DESC, id DESC
LIMIT @row_limit;

-- name: CreateExploreSession :one
INSERT INTO explore_sessions (id, organization_id, name, base_url, server_id, created_by)
VALUES (@id, app_org_id(), @name, @base_url, @server_id, @created_by)
RETURNING *;

-- name: GetExploreSession :one
SELECT * FROM explore_sessions WHERE id = @id;

-- name: ListExploreSessions :many
SELECT * FROM explore_sessions
WHERE sqlc.narg(after_created_at)::timestamptz IS NULL
   OR (created_at, id) < (sqlc.narg(after_created_at)::timestamptz, sqlc.narg(after_id)::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @row_limit;

-- name: TouchExploreSession :exec
UPDATE explore_sessions SET updated_at = now() WHERE id = @id;

-- name: DeleteExploreSession :execrows
DELETE FROM explore_sessions WHERE id = @id;

-- name: CreateExploreEntry :one
INSERT INTO explore_entries (id, organization_id, session_id, request, response, error, duration_ms)
VALUES (@id, app_org_id(), @session_id, @request, @response, @error, @duration_ms)
RETURNING *;

-- name: GetExploreEntry :one
SELECT * FROM explore_entries WHERE session_id = @session_id AND id = @id;

-- name: ListExploreEntries :many
SELECT * FROM explore_entries WHERE session_id = @session_id ORDER BY position;

-- name: CountExploreEntries :one
SELECT count(*) FROM explore_entries WHERE session_id = @session_id;
