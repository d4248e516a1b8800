-- Rate limits of the per-server MCP endpoints depend on the owning
-- organization's max_public_rate_limit, which every instance keeps with the
-- compiled designs. Changing it notifies mockmcp_design for each of the
-- organization's servers, so every instance reloads them at once.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION notify_org_limit_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mockmcp_design', s.id::text) FROM mcp_servers s WHERE s.organization_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER organizations_notify_limit AFTER UPDATE OF max_public_rate_limit ON organizations
    FOR EACH ROW WHEN (OLD.max_public_rate_limit IS DISTINCT FROM NEW.max_public_rate_limit)
    EXECUTE FUNCTION notify_org_limit_change();

-- +goose Down
DROP TRIGGER organizations_notify_limit ON organizations;
DROP FUNCTION notify_org_limit_change();
