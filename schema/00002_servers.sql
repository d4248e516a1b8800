-- MCP server designs and what they own: tools (with their ordered mock
-- scenarios), resources and prompts. Every row carries organization_id, and
-- child rows reference (server_id, organization_id) so a child can never
-- belong to another organization than its server, and per-server uniqueness
-- includes organization_id, so a clash can never reveal another
-- organization's names.
--
-- Schemas, scenarios and resource content are json, not jsonb: they are
-- served exactly as they were written, key order included.

-- +goose Up
CREATE TABLE mcp_servers (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name             text NOT NULL,
    description      text NOT NULL DEFAULT '',
    version          text NOT NULL DEFAULT '1.0.0',
    provider_name    text,
    provider_url     text,
    type             text NOT NULL DEFAULT 'mock' CHECK (type IN ('mock', 'openapi')),
    enabled          boolean NOT NULL DEFAULT false,
    protocol_version text NOT NULL DEFAULT '2024-11-05',
    auth_mode        text NOT NULL DEFAULT 'none' CHECK (auth_mode IN ('none', 'api_key')),
    created_by       text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, organization_id)
);
CREATE INDEX mcp_servers_org_created_idx ON mcp_servers (organization_id, created_at DESC, id DESC);

CREATE TABLE mcp_tools (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    name            text NOT NULL,
    description     text NOT NULL DEFAULT '',
    input_schema    json NOT NULL,
    output_schema   json,
    mock_scenarios  json NOT NULL DEFAULT '[]',
    position        bigint GENERATED ALWAYS AS IDENTITY,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE,
    CONSTRAINT mcp_tools_server_id_name_key UNIQUE (server_id, organization_id, name)
);
CREATE INDEX mcp_tools_org_idx ON mcp_tools (organization_id);

CREATE TABLE mcp_resources (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    name            text NOT NULL,
    uri             text NOT NULL,
    description     text NOT NULL DEFAULT '',
    mime_type       text,
    content         json NOT NULL,
    position        bigint GENERATED ALWAYS AS IDENTITY,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE,
    CONSTRAINT mcp_resources_server_id_uri_key UNIQUE (server_id, organization_id, uri)
);
CREATE INDEX mcp_resources_org_idx ON mcp_resources (organization_id);

CREATE TABLE mcp_prompts (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    server_id       uuid NOT NULL,
    name            text NOT NULL,
    description     text NOT NULL DEFAULT '',
    arguments       jsonb NOT NULL DEFAULT '[]',
    messages        jsonb NOT NULL DEFAULT '[]',
    position        bigint GENERATED ALWAYS AS IDENTITY,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (server_id, organization_id) REFERENCES mcp_servers (id, organization_id) ON DELETE CASCADE,
    CONSTRAINT mcp_prompts_server_id_name_key UNIQUE (server_id, organization_id, name)
);
CREATE INDEX mcp_prompts_org_idx ON mcp_prompts (organization_id);

ALTER TABLE mcp_servers ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_servers FORCE ROW LEVEL SECURITY;
ALTER TABLE mcp_tools ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_tools FORCE ROW LEVEL SECURITY;
ALTER TABLE mcp_resources ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_resources FORCE ROW LEVEL SECURITY;
ALTER TABLE mcp_prompts ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_prompts FORCE ROW LEVEL SECURITY;

CREATE POLICY mcp_servers_tenant ON mcp_servers
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY mcp_tools_tenant ON mcp_tools
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY mcp_resources_tenant ON mcp_resources
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY mcp_prompts_tenant ON mcp_prompts
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_servers, mcp_tools, mcp_resources, mcp_prompts TO mockmcp_app;

-- +goose Down
DROP TABLE mcp_prompts;
DROP TABLE mcp_resources;
DROP TABLE mcp_tools;
DROP TABLE mcp_servers;
