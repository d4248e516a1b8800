-- A2A push-notification configs: where a card's mock A2A agent posts a
-- task's changes of state, set by the client per task.
--
-- 1. A config hangs under its task (same organization and card) and goes
--    with it; its id is the client's (or drawn for it), unique per task.
-- 2. url is checked as a target when set; the address is judged again at
--    every delivery, by the outbound guard, at connection time.
-- 3. secrets holds the config's token and authentication credentials,
--    sealed with the service key: they are readable only by the service,
--    never by the database alone. scheme is the authentication scheme.
-- 4. era is the A2A version the config was set in: deliveries post the
--    task in that version's shape.
-- 5. Tenants reach their own organizations' configs only (RLS, as tasks).
-- 6. The agent endpoint keeps the published cards it serves in memory; any
--    change to a card, or to an organization's slug, tells every instance
--    on mockmcp_agent_card to drop them (cards change rarely; one channel,
--    no payload).

-- +goose Up
ALTER TABLE a2a_tasks ADD CONSTRAINT a2a_tasks_id_card_org_key UNIQUE (id, agent_card_id, organization_id);

CREATE TABLE a2a_push_configs (
    task_id         uuid NOT NULL,
    id              text NOT NULL CHECK (length(id) BETWEEN 1 AND 256),
    organization_id uuid NOT NULL,
    agent_card_id   uuid NOT NULL,
    url             text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    scheme          text NOT NULL DEFAULT '',
    secrets         bytea,
    era             text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, id),
    FOREIGN KEY (task_id, agent_card_id, organization_id)
        REFERENCES a2a_tasks (id, agent_card_id, organization_id) ON DELETE CASCADE
);

ALTER TABLE a2a_push_configs ENABLE ROW LEVEL SECURITY;
ALTER TABLE a2a_push_configs FORCE ROW LEVEL SECURITY;

CREATE POLICY a2a_push_configs_tenant ON a2a_push_configs
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON a2a_push_configs TO mockmcp_app;

-- +goose StatementBegin
CREATE FUNCTION notify_agent_card() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mockmcp_agent_card', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER agent_cards_notify AFTER INSERT OR UPDATE OR DELETE ON agent_cards
    FOR EACH STATEMENT EXECUTE FUNCTION notify_agent_card();
CREATE TRIGGER organizations_slug_notify AFTER UPDATE OF slug OR DELETE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION notify_agent_card();

-- +goose Down
DROP TRIGGER organizations_slug_notify ON organizations;
DROP TRIGGER agent_cards_notify ON agent_cards;
DROP FUNCTION notify_agent_card();
DROP TABLE a2a_push_configs;
ALTER TABLE a2a_tasks DROP CONSTRAINT a2a_tasks_id_card_org_key;
