-- name: CreateOrganization :one
INSERT INTO organizations (id, name, slug)
VALUES (@id, @name, @slug)
RETURNING *;

-- name: GetOrganization :one
SELECT * FROM organizations WHERE id = @id;

-- name: UpdateOrganization :one
UPDATE organizations
SET name = @name, slug = @slug, max_public_rate_limit = @max_public_rate_limit, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: CreateUser :one
INSERT INTO users (id, email, password_hash, organization_id, current_organization_id)
VALUES (@id, @email, @password_hash, @organization_id, @organization_id)
RETURNING *;

-- name: GetUser :one
SELECT * FROM users WHERE id = @id;

-- name: GetUserByEmail :one
SELECT * FROM users WHERE lower(email) = lower(@email);

-- name: SetCurrentOrganization :exec
UPDATE users SET current_organization_id = @organization_id WHERE id = @id;

-- name: AddMember :one
INSERT INTO organization_members (organization_id, user_id, role)
VALUES (@organization_id, @user_id, @role)
RETURNING *;

-- name: GetMembership :one
SELECT * FROM organization_members WHERE organization_id = @organization_id AND user_id = @user_id;

-- name: ListUserOrganizations :many
SELECT o.id, o.name, o.slug, o.max_public_rate_limit, o.created_at, o.updated_at, m.role
FROM organization_members m
JOIN organizations o ON o.id = m.organization_id
WHERE m.user_id = @user_id
ORDER BY m.created_at, o.id;

-- name: ListMembers :many
SELECT u.id AS user_id, u.email, m.role, m.created_at
FROM organization_members m
JOIN users u ON u.id = m.user_id
WHERE m.organization_id = @organization_id
ORDER BY m.created_at, u.id;

-- name: CountOwners :one
SELECT count(*) FROM organization_members WHERE organization_id = @organization_id AND role = 'owner';

-- name: DeleteMember :execrows
DELETE FROM organization_members WHERE organization_id = @organization_id AND user_id = @user_id;

-- name: CreateSession :exec
INSERT INTO user_sessions (id, user_id, token_hash, expires_at)
VALUES (@id, @user_id, @token_hash, @expires_at);

-- name: GetSessionByHash :one
SELECT * FROM user_sessions WHERE token_hash = @token_hash;

-- name: DeleteSessionByHash :execrows
DELETE FROM user_sessions WHERE token_hash = @token_hash;

-- name: LockOrganization :exec
-- Serializes membership changes of one organization, so that concurrent
-- removals cannot both see a second owner.
SELECT 1 FROM organizations WHERE id = @id FOR NO KEY UPDATE;
