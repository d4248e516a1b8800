-- What serving designs at their MCP endpoints needs from the database.
--
-- 1. The public endpoint knows a server only by the id in its URL, before it
--    knows the organization. The policy below lets a transaction that sets
--    app.public_server_id see that one server row, and only while it is
--    enabled; the endpoint then reads the rest of the design with app.org_id
--    set to the server's organization, through the ordinary tenant policies.
-- 2. Every change to a design notifies the channel mockmcp_design with the
--    server id, so every instance drops its compiled copy at once.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION app_public_server_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT NULLIF(current_setting('app.public_server_id', true), '')::uuid
$$;
-- +goose StatementEnd
GRANT EXECUTE ON FUNCTION app_public_server_id() TO mockmcp_app;

CREATE POLICY mcp_servers_public_endpoint ON mcp_servers FOR SELECT
    USING (enabled AND id = app_public_server_id());

-- +goose StatementBegin
CREATE FUNCTION notify_design_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    sid uuid;
BEGIN
    IF TG_TABLE_NAME = 'mcp_servers' THEN
        sid := COALESCE(NEW.id, OLD.id);
    ELSE
        sid := COALESCE(NEW.server_id, OLD.server_id);
    END IF;
    PERFORM pg_notify('mockmcp_design', sid::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER mcp_servers_notify AFTER INSERT OR UPDATE OR DELETE ON mcp_servers
    FOR EACH ROW EXECUTE FUNCTION notify_design_change();
CREATE TRIGGER mcp_tools_notify AFTER INSERT OR UPDATE OR DELETE ON mcp_tools
    FOR EACH ROW EXECUTE FUNCTION notify_design_change();
CREATE TRIGGER mcp_resources_notify AFTER INSERT OR UPDATE OR DELETE ON mcp_resources
    FOR EACH ROW EXECUTE FUNCTION notify_design_change();
CREATE TRIGGER mcp_prompts_notify AFTER INSERT OR UPDATE OR DELETE ON mcp_prompts
    FOR EACH ROW EXECUTE FUNCTION notify_design_change();

-- +goose Down
DROP TRIGGER mcp_prompts_notify ON mcp_prompts;
DROP TRIGGER mcp_resources_notify ON mcp_resources;
DROP TRIGGER mcp_tools_notify ON mcp_tools;
DROP TRIGGER mcp_servers_notify ON mcp_servers;
DROP FUNCTION notify_design_change();
DROP POLICY mcp_servers_public_endpoint ON mcp_servers;
DROP FUNCTION app_public_server_id();
