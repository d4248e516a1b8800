-- Platform API keys and the policy audit trail.
--
-- 1. api_keys holds only the SHA-256 hex of each raw key. A request presents
--    the raw key before its organization is known; the policy on the
--    transaction-local setting app.key_hash lets that transaction read the
--    one key whose hash it already knows, and nothing else.
-- 2. Changes that matter to a key's validity (creation; revocation, which
--    deletes the row; its scope, bindings, expiry or hash changing) notify
--    the channel mockmcp_key with the key id, so every instance drops what
--    it cached. last_used_at touches do not notify.
-- 3. policy_api_audit receives one row per call to a policy route. Rows are
--    appended by the audit writer in batches for many organizations at once,
--    so appending is allowed to transactions that set app.audit_append; no
--    tenant can update or delete a record. A record whose caller proved no
--    identity (401) has no organization; the organization that owns the
--    targeted server sees it.
-- 4. app.org_slug reveals the one organization with that slug, for operator
--    commands that name an organization by slug.

-- +goose Up
CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key_hash        text NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    scope           text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'policy')),
    bound_asset_ids uuid[] NOT NULL DEFAULT '{}' CHECK (cardinality(bound_asset_ids) <= 100),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz,
    last_used_at    timestamptz,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
    CONSTRAINT api_keys_policy_bound CHECK (scope = 'full' OR cardinality(bound_asset_ids) >= 1)
);
CREATE INDEX api_keys_org_created_idx ON api_keys (organization_id, created_at DESC, id DESC);

-- No foreign keys: a record outlives the key, server or organization it names,
-- and a queued record can never fail its batch because one of them is gone.
CREATE TABLE policy_api_audit (
    id              uuid PRIMARY KEY,
    organization_id uuid,
    key_id          uuid,
    asset_id        uuid,
    route           text NOT NULL CHECK (route IN ('spec', 'validate', 'evidence')),
    status          integer NOT NULL CHECK (status BETWEEN 100 AND 599),
    latency_ms      double precision NOT NULL CHECK (latency_ms >= 0),
    user_agent      text NOT NULL DEFAULT '',
    ip_inet         inet,
    received_at     timestamptz NOT NULL
);
CREATE INDEX policy_api_audit_org_received_idx ON policy_api_audit (organization_id, received_at DESC, id DESC);
CREATE INDEX policy_api_audit_asset_received_idx ON policy_api_audit (asset_id, received_at DESC, id DESC);

ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
ALTER TABLE policy_api_audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE policy_api_audit FORCE ROW LEVEL SECURITY;

CREATE POLICY api_keys_tenant ON api_keys
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY api_keys_by_hash_read ON api_keys FOR SELECT
    USING (key_hash = NULLIF(current_setting('app.key_hash', true), ''));

CREATE POLICY policy_api_audit_tenant_read ON policy_api_audit FOR SELECT
    USING (
        organization_id = app_org_id()
        OR (organization_id IS NULL
            AND asset_id IN (SELECT s.id FROM mcp_servers s WHERE s.organization_id = app_org_id()))
    );
CREATE POLICY policy_api_audit_append ON policy_api_audit FOR INSERT
    WITH CHECK (current_setting('app.audit_append', true) = 'on');

CREATE POLICY organizations_by_slug_read ON organizations FOR SELECT
    USING (slug = NULLIF(current_setting('app.org_slug', true), ''));

-- +goose StatementBegin
CREATE FUNCTION notify_key_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mockmcp_key', COALESCE(NEW.id, OLD.id)::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER api_keys_notify_insert_delete AFTER INSERT OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION notify_key_change();
CREATE TRIGGER api_keys_notify_update AFTER UPDATE OF key_hash, scope, bound_asset_ids, expires_at, organization_id ON api_keys
    FOR EACH ROW EXECUTE FUNCTION notify_key_change();

GRANT SELECT, INSERT, UPDATE, DELETE ON api_keys TO mockmcp_app;
GRANT SELECT, INSERT ON policy_api_audit TO mockmcp_app;

-- +goose Down
DROP TRIGGER api_keys_notify_update ON api_keys;
DROP TRIGGER api_keys_notify_insert_delete ON api_keys;
DROP FUNCTION notify_key_change();
DROP POLICY organizations_by_slug_read ON organizations;
DROP TABLE policy_api_audit;
DROP TABLE api_keys;
