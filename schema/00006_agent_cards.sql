-- Agent cards, designed per organization and published to a public
-- exchange.
--
-- The designed card is kept whole, as written, in one json document (its
-- nested objects are edited and validated as a unit); the columns beside it
-- are derived from it when it is written, for uniqueness, listing and the
-- exchange's search.
--
-- The exchange reads across organizations without weakening the tenant
-- policies: a transaction that sets app.exchange = 'on' (and nothing else)
-- sees published cards only, read-only, and the organizations that publish
-- them, read-only; every other table stays invisible to it.

-- +goose Up
CREATE TABLE agent_cards (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
    card            json NOT NULL,
    version         text NOT NULL DEFAULT '',
    description     text NOT NULL DEFAULT '',
    tags            text[] NOT NULL DEFAULT '{}',
    categories      text[] NOT NULL DEFAULT '{}',
    skill_names     text[] NOT NULL DEFAULT '{}',
    published_at    timestamptz,
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_cards_org_name_key UNIQUE (organization_id, name),
    CHECK ((status = 'published') = (published_at IS NOT NULL))
);
CREATE INDEX agent_cards_org_created_idx ON agent_cards (organization_id, created_at DESC, id DESC);
CREATE INDEX agent_cards_published_idx ON agent_cards (published_at DESC, id DESC) WHERE status = 'published';
CREATE INDEX agent_cards_tags_idx ON agent_cards USING gin (tags) WHERE status = 'published';
CREATE INDEX agent_cards_categories_idx ON agent_cards USING gin (categories) WHERE status = 'published';
CREATE INDEX agent_cards_skill_names_idx ON agent_cards USING gin (skill_names) WHERE status = 'published';

ALTER TABLE agent_cards ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_cards FORCE ROW LEVEL SECURITY;

CREATE POLICY agent_cards_tenant ON agent_cards
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

-- +goose StatementBegin
CREATE FUNCTION app_exchange() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT current_setting('app.exchange', true) = 'on'
$$;
-- +goose StatementEnd
GRANT EXECUTE ON FUNCTION app_exchange() TO mockmcp_app;

CREATE POLICY agent_cards_exchange_read ON agent_cards FOR SELECT
    USING (status = 'published' AND app_exchange());
CREATE POLICY organizations_exchange_read ON organizations FOR SELECT
    USING (app_exchange() AND EXISTS (
        SELECT 1 FROM agent_cards c WHERE c.organization_id = organizations.id AND c.status = 'published'));

GRANT SELECT, INSERT, UPDATE, DELETE ON agent_cards TO mockmcp_app;

-- +goose Down
DROP POLICY organizations_exchange_read ON organizations;
DROP TABLE agent_cards;
DROP FUNCTION app_exchange();
