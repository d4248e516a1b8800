-- REST API test cases and their runs, suites of tests and their runs, and
-- exploratory sessions with the requests sent in them.
--
-- A test case is kept whole, as designed, in one json document (its input
-- is edited and checked as a unit); runs keep what was sent and received,
-- with secret header values masked before they are stored.

-- +goose Up
CREATE TABLE rest_tests (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    test_case       json NOT NULL,
    generated_from  json,
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, organization_id)
);
CREATE INDEX rest_tests_org_created_idx ON rest_tests (organization_id, created_at DESC, id DESC);

CREATE TABLE rest_test_runs (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    test_id         uuid NOT NULL,
    passed          boolean NOT NULL,
    started_at      timestamptz NOT NULL,
    duration_ms     double precision NOT NULL,
    results         json NOT NULL,
    FOREIGN KEY (test_id, organization_id) REFERENCES rest_tests (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX rest_test_runs_test_idx ON rest_test_runs (test_id, started_at DESC, id DESC);
CREATE INDEX rest_test_runs_org_idx ON rest_test_runs (organization_id);

CREATE TABLE rest_suites (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text NOT NULL DEFAULT '',
    test_ids        uuid[] NOT NULL DEFAULT '{}',
    stop_on_failure boolean NOT NULL DEFAULT false,
    parallelism     integer NOT NULL DEFAULT 1 CHECK (parallelism BETWEEN 1 AND 16),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, organization_id),
    CONSTRAINT rest_suites_org_name_key UNIQUE (organization_id, name)
);
CREATE INDEX rest_suites_org_created_idx ON rest_suites (organization_id, created_at DESC, id DESC);

CREATE TABLE rest_suite_runs (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    suite_id        uuid NOT NULL,
    passed          boolean NOT NULL,
    total           integer NOT NULL,
    passed_count    integer NOT NULL,
    failed_count    integer NOT NULL,
    skipped_count   integer NOT NULL,
    started_at      timestamptz NOT NULL,
    duration_ms     double precision NOT NULL,
    test_runs       json NOT NULL,
    FOREIGN KEY (suite_id, organization_id) REFERENCES rest_suites (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX rest_suite_runs_suite_idx ON rest_suite_runs (suite_id, started_at DESC, id DESC);
CREATE INDEX rest_suite_runs_org_idx ON rest_suite_runs (organization_id);

CREATE TABLE explore_sessions (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    base_url        text NOT NULL,
    server_id       uuid,
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, organization_id)
);
CREATE INDEX explore_sessions_org_created_idx ON explore_sessions (organization_id, created_at DESC, id DESC);

CREATE TABLE explore_entries (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    session_id      uuid NOT NULL,
    request         json NOT NULL,
    response        json,
    error           text NOT NULL DEFAULT '',
    duration_ms     double precision NOT NULL,
    position        bigint GENERATED ALWAYS AS IDENTITY,
    created_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (session_id, organization_id) REFERENCES explore_sessions (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX explore_entries_session_idx ON explore_entries (session_id, position);
CREATE INDEX explore_entries_org_idx ON explore_entries (organization_id);

ALTER TABLE rest_tests ENABLE ROW LEVEL SECURITY;
ALTER TABLE rest_tests FORCE ROW LEVEL SECURITY;
ALTER TABLE rest_test_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE rest_test_runs FORCE ROW LEVEL SECURITY;
ALTER TABLE rest_suites ENABLE ROW LEVEL SECURITY;
ALTER TABLE rest_suites FORCE ROW LEVEL SECURITY;
ALTER TABLE rest_suite_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE rest_suite_runs FORCE ROW LEVEL SECURITY;
ALTER TABLE explore_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE explore_sessions FORCE ROW LEVEL SECURITY;
ALTER TABLE explore_entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE explore_entries FORCE ROW LEVEL SECURITY;

CREATE POLICY rest_tests_tenant ON rest_tests
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY rest_test_runs_tenant ON rest_test_runs
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY rest_suites_tenant ON rest_suites
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY rest_suite_runs_tenant ON rest_suite_runs
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY explore_sessions_tenant ON explore_sessions
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());
CREATE POLICY explore_entries_tenant ON explore_entries
    USING (organization_id = app_org_id()) WITH CHECK (organization_id = app_org_id());

GRANT SELECT, INSERT, UPDATE, DELETE ON rest_tests, rest_test_runs, rest_suites, rest_suite_runs,
    explore_sessions, explore_entries TO mockmcp_app;

-- +goose Down
DROP TABLE explore_entries;
DROP TABLE explore_sessions;
DROP TABLE rest_suite_runs;
DROP TABLE rest_suites;
DROP TABLE rest_test_runs;
DROP TABLE rest_tests;
