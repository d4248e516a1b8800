-- name: InsertServiceSecret :exec
-- The first instance's secret wins: later ones read it.
INSERT INTO service_secrets (name, secret) VALUES (@name, @secret)
ON CONFLICT (name) DO NOTHING;

-- name: GetServiceSecret :one
SELECT secret FROM service_secrets WHERE name = @name;
