-- Accounts: users, organizations, memberships and browser sessions.
--
-- Row-level security is enabled and forced on every table. Policies read two
-- transaction-local settings that the application sets with
-- set_config(..., true) at the start of each transaction:
--   app.org_id   the organization the transaction works for
--   app.user_id  the signed-in user, when there is one
-- Narrow look-ups that must happen before either is known (a session by the
-- hash of its token, a user by e-mail at login) are let through by policies on
-- their own settings (app.session_hash, app.login_email): a row is visible
-- only to a caller who already knows its secret or key.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
    CREATE ROLE mockmcp_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('GRANT mockmcp_app TO %I', current_user);
EXCEPTION
    WHEN insufficient_privilege OR invalid_grant_operation THEN
        RAISE NOTICE 'could not grant mockmcp_app to %; grant it by hand', current_user;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION app_org_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT NULLIF(current_setting('app.org_id', true), '')::uuid
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION app_user_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT NULLIF(current_setting('app.user_id', true), '')::uuid
$$;
-- +goose StatementEnd

CREATE TABLE organizations (
    id                    uuid PRIMARY KEY,
    name                  text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    slug                  text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    max_public_rate_limit integer CHECK (max_public_rate_limit IS NULL OR max_public_rate_limit > 0),
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id                      uuid PRIMARY KEY,
    email                   text NOT NULL,
    password_hash           text NOT NULL,
    organization_id         uuid NOT NULL REFERENCES organizations (id),
    current_organization_id uuid NOT NULL REFERENCES organizations (id),
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organization_members (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            text NOT NULL CHECK (role IN ('owner', 'member')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

CREATE TABLE user_sessions (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);

ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
ALTER TABLE organizations FORCE ROW LEVEL SECURITY;
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
ALTER TABLE organization_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE organization_members FORCE ROW LEVEL SECURITY;
ALTER TABLE user_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE user_sessions FORCE ROW LEVEL SECURITY;

-- Writes are confined to the transaction's organization and user; the
-- look-up clauses (membership, e-mail, session hash) only ever read.

-- A member sees the memberships of the organization the transaction works for
-- and their own memberships (to list and switch organizations).
CREATE POLICY organization_members_tenant ON organization_members
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY organization_members_own_read ON organization_members FOR SELECT
    USING (user_id = app_user_id());

-- An organization is visible when it is the transaction's organization or one
-- the signed-in user belongs to; only the former can be changed.
CREATE POLICY organizations_tenant ON organizations
    USING (id = app_org_id()) WITH CHECK (id = app_org_id());
CREATE POLICY organizations_member_read ON organizations FOR SELECT
    USING (id IN (SELECT m.organization_id FROM organization_members m WHERE m.user_id = app_user_id()));

-- A user sees themselves, the members of the transaction's organization, and
-- at login the one account whose e-mail the caller typed; only they can
-- change their own row, and no one deletes accounts.
CREATE POLICY users_read ON users FOR SELECT
    USING (
        id = app_user_id()
        OR lower(email) = NULLIF(current_setting('app.login_email', true), '')
        OR id IN (SELECT m.user_id FROM organization_members m WHERE m.organization_id = app_org_id())
    );
CREATE POLICY users_insert ON users FOR INSERT WITH CHECK (id = app_user_id());
CREATE POLICY users_update ON users FOR UPDATE
    USING (id = app_user_id()) WITH CHECK (id = app_user_id());

-- A session is the signed-in user's own, or the one whose token the caller
-- holds (its hash), which may only be read or ended.
CREATE POLICY user_sessions_own ON user_sessions
    USING (user_id = app_user_id()) WITH CHECK (user_id = app_user_id());
CREATE POLICY user_sessions_by_token_read ON user_sessions FOR SELECT
    USING (token_hash = NULLIF(current_setting('app.session_hash', true), ''));
CREATE POLICY user_sessions_by_token_end ON user_sessions FOR DELETE
    USING (token_hash = NULLIF(current_setting('app.session_hash', true), ''));

GRANT USAGE ON SCHEMA public TO mockmcp_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON organizations, users, organization_members, user_sessions TO mockmcp_app;
GRANT EXECUTE ON FUNCTION app_org_id(), app_user_id() TO mockmcp_app;

-- +goose Down
DROP TABLE user_sessions;
DROP TABLE organization_members;
DROP TABLE users;
DROP TABLE organizations;
DROP FUNCTION app_user_id();
DROP FUNCTION app_org_id();
