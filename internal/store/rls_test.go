package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// These tests check row-level security at the SQL level: they open raw
// transactions as the application role (store.AppRole) with chosen settings
// and look at what is visible and writable. The superuser pool (st.Pool())
// bypasses RLS and is only used to seed and to inspect.

// gooseTable is the migration bookkeeping table, the one public table that
// holds no tenant data and needs no row-level security.
const gooseTable = "goose_db_version"

// rlsTable describes one tenant table. Adding a table to the schema means
// adding a line here: TestRLSEveryTableEnabledAndForced fails until then.
type rlsTable struct {
	name string
	// key names a row as text, over the alias r.
	key string
	// touch is a column an UPDATE can set to itself.
	touch string
	// orgOf is the organization a row belongs to, over the alias r. It is
	// only evaluated by the superuser.
	orgOf string
	// byOrg: the tenant setting app.org_id alone reveals the organization's
	// rows (sessions belong to users, not organizations).
	byOrg bool
	// insertFor is an INSERT of a row belonging to owner, tried while the
	// transaction works for another organization (whose user is intruder).
	insertFor func(owner, intruder tenant) (string, []any)
}

// serviceTables belong to the service, not to a tenant: the application
// role has no privilege on them (TestServiceTablesOutOfTenantReach).
var serviceTables = []string{"service_secrets", "oauth_signing_keys"}

// TestServiceTablesOutOfTenantReach: a tenant transaction can neither read
// nor write the service's own tables.
func TestServiceTablesOutOfTenantReach(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	for _, name := range serviceTables {
		var any bool
		require.NoError(t, st.Pool().QueryRow(context.Background(), `SELECT has_table_privilege($1, $2, 'SELECT, INSERT, UPDATE, DELETE')`,
			store.AppRole, name).Scan(&any))
		require.False(t, any, "the application role has a privilege on %s", name)
	}
}

var rlsTables = []rlsTable{
	{
		name: "organizations", key: "r.id::text", touch: "name", orgOf: "r.id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO organizations (id, name, slug) VALUES ($1, 'Intruder', 'intruder-org')`, []any{owner.OrgID}
		},
	},
	orgRows("users", "email", func(owner tenant) (string, []any) {
		return `INSERT INTO users (id, email, password_hash, organization_id, current_organization_id)
			VALUES (gen_random_uuid(), 'intruder@example.com', 'x', $1, $1)`, []any{owner.OrgID}
	}),
	{
		name: "organization_members", key: "r.organization_id::text || '/' || r.user_id::text", touch: "role",
		orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, intruder tenant) (string, []any) {
			return `INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner')`,
				[]any{owner.OrgID, intruder.UserID}
		},
	},
	{
		name: "user_sessions", key: "r.id::text", touch: "expires_at",
		orgOf: "(SELECT u.organization_id FROM users u WHERE u.id = r.user_id)", byOrg: false,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO user_sessions (id, user_id, token_hash, expires_at)
				VALUES (gen_random_uuid(), $1, 'intruder-hash', now() + interval '1 day')`, []any{owner.UserID}
		},
	},
	orgRows("mcp_servers", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_servers (id, organization_id, name, created_by)
			VALUES (gen_random_uuid(), $1, 'intruder', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("mcp_tools", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_tools (id, organization_id, server_id, name, input_schema)
			VALUES (gen_random_uuid(), $1, $2, 'intruder', '{"type":"object"}')`, []any{owner.OrgID, owner.ServerID}
	}),
	orgRows("mcp_resources", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_resources (id, organization_id, server_id, name, uri, content)
			VALUES (gen_random_uuid(), $1, $2, 'intruder', 'intruder://x', '"x"')`, []any{owner.OrgID, owner.ServerID}
	}),
	orgRows("mcp_prompts", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_prompts (id, organization_id, server_id, name)
			VALUES (gen_random_uuid(), $1, $2, 'intruder')`, []any{owner.OrgID, owner.ServerID}
	}),
	orgRows("api_keys", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO api_keys (id, organization_id, key_hash, name, created_by)
			VALUES (gen_random_uuid(), $1, repeat('0', 64), 'intruder', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("agent_cards", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO agent_cards (id, organization_id, name, card, created_by)
			VALUES (gen_random_uuid(), $1, 'intruder', '{}', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("rest_tests", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO rest_tests (id, organization_id, name, test_case, created_by)
			VALUES (gen_random_uuid(), $1, 'intruder', '{}', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("rest_test_runs", "passed", func(owner tenant) (string, []any) {
		return `INSERT INTO rest_test_runs (id, organization_id, test_id, passed, started_at, duration_ms, results)
			VALUES (gen_random_uuid(), $1, $2, true, now(), 1, '[]')`, []any{owner.OrgID, owner.TestID}
	}),
	orgRows("rest_suites", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO rest_suites (id, organization_id, name, created_by)
			VALUES (gen_random_uuid(), $1, 'intruder', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("rest_suite_runs", "passed", func(owner tenant) (string, []any) {
		return `INSERT INTO rest_suite_runs (id, organization_id, suite_id, passed, total, passed_count, failed_count,
			skipped_count, started_at, duration_ms, test_runs)
			VALUES (gen_random_uuid(), $1, $2, true, 0, 0, 0, 0, now(), 1, '[]')`, []any{owner.OrgID, owner.SuiteID}
	}),
	orgRows("explore_sessions", "name", func(owner tenant) (string, []any) {
		return `INSERT INTO explore_sessions (id, organization_id, name, base_url, created_by)
			VALUES (gen_random_uuid(), $1, 'intruder', 'https://example.com', 'intruder')`, []any{owner.OrgID}
	}),
	orgRows("explore_entries", "error", func(owner tenant) (string, []any) {
		return `INSERT INTO explore_entries (id, organization_id, session_id, request, duration_ms)
			VALUES (gen_random_uuid(), $1, $2, '{}', 1)`, []any{owner.OrgID, owner.SessionID}
	}),
	{
		// A record without an organization (a call without a valid key)
		// belongs to the organization owning the server it targeted.
		name: "policy_api_audit", key: "r.id::text", touch: "status",
		orgOf: "coalesce(r.organization_id, (SELECT s.organization_id FROM mcp_servers s WHERE s.id = r.asset_id))",
		byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO policy_api_audit (id, organization_id, route, status, latency_ms, received_at)
				VALUES (gen_random_uuid(), $1, 'spec', 200, 1, now())`, []any{owner.OrgID}
		},
	},
	orgRows("mcp_journal", "response", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_journal (id, organization_id, server_id, received_at, method, outcome, latency_us)
			VALUES (gen_random_uuid(), $1, $2, now(), 'ping', 'result', 1)`, []any{owner.OrgID, owner.ServerID}
	}),
	{
		name: "oauth_clients", key: "r.client_id", touch: "client_name", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO oauth_clients (client_id, organization_id, server_id, auth_method)
				VALUES (md5(random()::text), $1, $2, 'none')`, []any{owner.OrgID, owner.ServerID}
		},
	},
	{
		name: "oauth_codes", key: "r.code_hash", touch: "scope", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO oauth_codes (code_hash, organization_id, server_id, client_id, redirect_uri, code_challenge,
				subject, expires_at) VALUES (md5(random()::text), $1, $2, 'c', 'https://x', 'x', 's', now())`,
				[]any{owner.OrgID, owner.ServerID}
		},
	},
	{
		name: "oauth_refresh_tokens", key: "r.token_hash", touch: "scope", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO oauth_refresh_tokens (token_hash, organization_id, server_id, client_id, subject, expires_at)
				VALUES (md5(random()::text), $1, $2, 'c', 's', now())`, []any{owner.OrgID, owner.ServerID}
		},
	},
	{
		name: "oauth_revoked_tokens", key: "r.jti", touch: "revoked_at", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO oauth_revoked_tokens (jti, organization_id, server_id, expires_at)
				VALUES (md5(random()::text), $1, $2, now())`, []any{owner.OrgID, owner.ServerID}
		},
	},
	orgRows("agent_journal", "response", func(owner tenant) (string, []any) {
		return `INSERT INTO agent_journal (id, organization_id, card_id, received_at, method, binding, a2a_version, outcome, latency_us)
			VALUES (gen_random_uuid(), $1, $2, now(), 'SendMessage', 'JSONRPC', '1.0', 'result', 1)`, []any{owner.OrgID, owner.CardID}
	}),
	orgRows("a2a_tasks", "history", func(owner tenant) (string, []any) {
		return `INSERT INTO a2a_tasks (id, organization_id, agent_card_id, context_id, reply, script, created_at)
			VALUES (gen_random_uuid(), $1, $2, 'ctx', 'intruder', '{}', now())`, []any{owner.OrgID, owner.CardID}
	}),
	{
		name: "a2a_push_configs", key: "r.task_id::text || '/' || r.id", touch: "url", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO a2a_push_configs (task_id, id, organization_id, agent_card_id, url, era)
				VALUES ($3, md5(random()::text), $1, $2, 'https://push.example.com/', '1.0')`, []any{owner.OrgID, owner.CardID, owner.A2ATaskID}
		},
	},
	orgRows("mcp_tasks", "answers", func(owner tenant) (string, []any) {
		return `INSERT INTO mcp_tasks (id, organization_id, server_id, tool, scenario, script, created_at)
			VALUES (md5(random()::text), $1, $2, 'tool', 'intruder', '{}', now())`, []any{owner.OrgID, owner.ServerID}
	}),
	{
		name: "mcp_server_state", key: "r.server_id::text", touch: "state", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO mcp_server_state (server_id, organization_id, state, version) VALUES ($2, $1, '{}', 0)`,
				[]any{owner.OrgID, owner.ServerID}
		},
	},
	{
		name: "a2a_context_state", key: "r.agent_card_id::text || '/' || r.context_id", touch: "state", orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) {
			return `INSERT INTO a2a_context_state (agent_card_id, organization_id, context_id, state, version)
				VALUES ($2, $1, md5(random()::text), '{}', 0)`, []any{owner.OrgID, owner.CardID}
		},
	},
}

// orgRows describes a table whose rows have an id and belong to the
// organization in organization_id, which app.org_id alone reveals; insert
// is an INSERT of a row belonging to owner.
func orgRows(name, touch string, insert func(owner tenant) (string, []any)) rlsTable {
	return rlsTable{name: name, key: "r.id::text", touch: touch, orgOf: "r.organization_id", byOrg: true,
		insertFor: func(owner, _ tenant) (string, []any) { return insert(owner) }}
}

// tenant is one seeded organization with its owner, a session and a server
// owning one tool, one resource and one prompt.
type tenant struct {
	OrgID, UserID                          uuid.UUID
	Email, SessionHash, Slug, KeyHash      string
	ServerID, ToolID, ResourceID, PromptID uuid.UUID
	KeyID, CardID, A2ATaskID               uuid.UUID
	TestID, SuiteID, SessionID             uuid.UUID
}

// seedTenant creates a tenant through the store's own methods, each
// transaction scoped as the service scopes it.
func seedTenant(t *testing.T, st *store.Store, name, email string) tenant {
	t.Helper()
	ctx := context.Background()
	ten := tenant{
		OrgID: uuid.New(), UserID: uuid.New(), Email: email,
		SessionHash: "hash-of-" + strings.ToLower(name) + "-" + uuid.NewString(),
		ServerID:    uuid.New(), ToolID: uuid.New(), ResourceID: uuid.New(), PromptID: uuid.New(),
		KeyID: uuid.New(), KeyHash: fmt.Sprintf("%064x", uuid.New().ID()), CardID: uuid.New(),
		TestID: uuid.New(), SuiteID: uuid.New(), SessionID: uuid.New(),
	}
	err := st.WithTx(ctx, store.Scope{OrgID: ten.OrgID, UserID: ten.UserID}, func(tx *store.Tx) error {
		_, org, err := tx.CreateAccount(ctx, store.NewAccount{UserID: ten.UserID, Email: email,
			PasswordHash: "not-a-real-hash", OrgID: ten.OrgID, OrgName: name})
		if err != nil {
			return fmt.Errorf("account: %w", err)
		}
		ten.Slug = org.Slug
		if err := tx.CreateSession(ctx, ten.UserID, ten.SessionHash, time.Now().Add(time.Hour)); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		return nil
	})
	require.NoError(t, err)
	err = st.WithTx(ctx, store.Scope{OrgID: ten.OrgID, UserID: ten.UserID}, func(tx *store.Tx) error {
		if _, err := tx.CreateServer(ctx, design.Server{ID: ten.ServerID, Name: name + " server", Version: "1.0.0",
			Type: "mock", ProtocolVersion: "2024-11-05", AuthMode: "none",
			Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: ten.UserID.String()}); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		if _, err := tx.CreateTool(ctx, design.Tool{ID: ten.ToolID, ServerID: ten.ServerID, Name: "tool",
			InputSchema: json.RawMessage(`{"type":"object"}`)}); err != nil {
			return fmt.Errorf("tool: %w", err)
		}
		if _, err := tx.CreateResource(ctx, design.Resource{ID: ten.ResourceID, ServerID: ten.ServerID, Name: "resource",
			URI: "docs://guide", Content: json.RawMessage(`"text"`)}); err != nil {
			return fmt.Errorf("resource: %w", err)
		}
		if _, err := tx.CreatePrompt(ctx, design.Prompt{ID: ten.PromptID, ServerID: ten.ServerID, Name: "prompt",
			Messages: []design.PromptMessage{{Role: "user", Text: "hello"}}}); err != nil {
			return fmt.Errorf("prompt: %w", err)
		}
		if _, err := tx.CreateKey(ctx, store.Key{ID: ten.KeyID, Hash: ten.KeyHash, Name: "key", Scope: auth.ScopeFull,
			CreatedBy: ten.UserID.String()}); err != nil {
			return fmt.Errorf("key: %w", err)
		}
		if _, err := tx.CreateAgentCard(ctx, ten.CardID, agentcard.Card{Name: strings.ToLower(name) + "-card"},
			ten.UserID.String()); err != nil {
			return fmt.Errorf("agent card: %w", err)
		}
		c := resttest.Case{Name: "test", BaseURL: "https://example.com", Scopes: []resttest.Scope{{Method: "GET", Path: "/"}}}
		if _, err := tx.CreateRestTest(ctx, ten.TestID, c, nil, "seed"); err != nil {
			return fmt.Errorf("test: %w", err)
		}
		if _, err := tx.CreateTestRun(ctx, uuid.New(), ten.TestID, resttest.Run{Passed: true, StartedAt: time.Now()}); err != nil {
			return fmt.Errorf("test run: %w", err)
		}
		if _, err := tx.CreateSuite(ctx, store.Suite{ID: ten.SuiteID, Name: "suite", TestIDs: []uuid.UUID{ten.TestID},
			Parallelism: 1, CreatedBy: "seed"}); err != nil {
			return fmt.Errorf("suite: %w", err)
		}
		if _, err := tx.CreateSuiteRun(ctx, store.SuiteRun{ID: uuid.New(), SuiteID: ten.SuiteID, StartedAt: time.Now(),
			TestRuns: []resttest.SuiteTestRun{}}); err != nil {
			return fmt.Errorf("suite run: %w", err)
		}
		if err := tx.CreateOAuthClient(ctx, store.OAuthClient{ClientID: "client-" + uuid.NewString(), ServerID: ten.ServerID,
			AuthMethod: "none", RedirectURIs: []string{"https://example.com/cb"}}); err != nil {
			return fmt.Errorf("oauth client: %w", err)
		}
		grant := store.OAuthGrant{ServerID: ten.ServerID, ClientID: "c", Subject: "s", RedirectURI: "https://example.com/cb",
			CodeChallenge: "x", IssuedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
		if err := tx.CreateOAuthCode(ctx, "code-"+uuid.NewString(), grant); err != nil {
			return fmt.Errorf("oauth code: %w", err)
		}
		if err := tx.CreateOAuthRefreshToken(ctx, "refresh-"+uuid.NewString(), grant); err != nil {
			return fmt.Errorf("oauth refresh token: %w", err)
		}
		if err := tx.RevokeOAuthAccessToken(ctx, ten.ServerID, "jti-"+uuid.NewString(), time.Now().Add(time.Hour)); err != nil {
			return fmt.Errorf("oauth revoked token: %w", err)
		}
		if _, err := tx.CreateExploreSession(ctx, store.ExploreSession{ID: ten.SessionID, Name: "session",
			BaseURL: "https://example.com", CreatedBy: "seed"}); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		if _, err := tx.CreateExploreEntry(ctx, store.ExploreEntry{ID: uuid.New(), SessionID: ten.SessionID,
			Request: resttest.Request{Method: "GET", URL: "https://example.com/"}}); err != nil {
			return fmt.Errorf("session entry: %w", err)
		}
		return nil
	})
	require.NoError(t, err)
	// One audit record made with the tenant's key, one of a caller without a
	// valid key aimed at the tenant's server.
	require.NoError(t, st.AppendAudit(ctx, []store.AuditRecord{
		{ID: uuid.New(), OrgID: ten.OrgID, KeyID: ten.KeyID, AssetID: ten.ServerID, Route: "spec", Status: 200, ReceivedAt: time.Now()},
		{ID: uuid.New(), AssetID: ten.ServerID, Route: "evidence", Status: 401, ReceivedAt: time.Now()},
	}))
	skipped, err := st.AppendJournal(ctx, []store.JournalRecord{{ID: uuid.New(), OrgID: ten.OrgID, ServerID: ten.ServerID,
		ReceivedAt: time.Now(), Method: "tools/call", Tool: "tool", Outcome: "result", Step: -1}})
	require.NoError(t, err)
	require.Zero(t, skipped)
	skipped, err = st.AppendAgentJournal(ctx, []store.AgentJournalRecord{{ID: uuid.New(), OrgID: ten.OrgID, CardID: ten.CardID,
		ReceivedAt: time.Now(), Method: "SendMessage", Binding: "JSONRPC", Version: "1.0", Outcome: "result"}})
	require.NoError(t, err)
	require.Zero(t, skipped)
	require.NoError(t, st.CreateTask(ctx, store.Task{ID: taskID(), OrgID: ten.OrgID, ServerID: ten.ServerID,
		Tool: "tool", Scenario: "slow", Script: json.RawMessage(`{}`), CreatedAt: time.Now()}))
	ten.A2ATaskID = uuid.New()
	require.NoError(t, st.CreateA2ATask(ctx, store.A2ATask{ID: ten.A2ATaskID, OrgID: ten.OrgID, CardID: ten.CardID,
		ContextID: "ctx", Reply: "slow", Script: json.RawMessage(`{}`), CreatedAt: time.Now()}))
	require.NoError(t, st.PutA2APushConfig(ctx, store.A2APushConfig{TaskID: ten.A2ATaskID, ID: "seed", OrgID: ten.OrgID,
		CardID: ten.CardID, URL: "https://push.example.com/", Era: "1.0"}))
	_, err = st.ChangeA2AContextState(ctx, ten.OrgID, ten.CardID, "seeded", mockspec.StateChange{Sets: json.RawMessage(`{"seeded":true}`)})
	require.NoError(t, err)
	_, err = st.ChangeLiveState(ctx, ten.OrgID, ten.ServerID, mockspec.StateChange{Sets: json.RawMessage(`{"seeded":true}`)})
	require.NoError(t, err)
	return ten
}

// seedTwo seeds the disjoint tenants A and B on a fresh database.
func seedTwo(t *testing.T) (*store.Store, tenant, tenant) {
	t.Helper()
	st := testdb.Store(t)
	a := seedTenant(t, st, "Alpha", "Ada.Lovelace@Example.COM")
	b := seedTenant(t, st, "Beta", "bob@example.com")
	return st, a, b
}

// settings are app.* settings for a raw transaction, by name.
type settings map[string]string

// refusedWrite is a statement the application role, with settings set,
// must not be able to carry out.
type refusedWrite struct {
	name string
	set  settings
	sql  string
	args []any
}

// requireChangesNothing runs each write as the application role, in a
// subtest, and requires it to change no row: it either fails with a
// row-level-security violation or finds nothing it may write.
func requireChangesNothing(t *testing.T, pool *pgxpool.Pool, writes []refusedWrite) {
	t.Helper()
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			asApp(t, pool, tc.set, func(tx pgx.Tx) {
				tag, err := tx.Exec(context.Background(), tc.sql, tc.args...)
				if err != nil {
					require.Equalf(t, "42501", sqlState(err), "want zero rows or a row-level-security violation, got %v", err)
					return
				}
				require.EqualValuesf(t, 0, tag.RowsAffected(), "%s: the statement changed rows it may only read", tc.sql)
			})
		})
	}
}

// asApp runs fn in a transaction that sets exactly settings (transaction-
// locally, as WithTx does) and then switches to the application role. The
// transaction is always rolled back.
func asApp(t *testing.T, pool *pgxpool.Pool, set settings, fn func(pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	for name, value := range set {
		_, err := tx.Exec(ctx, `SELECT set_config($1, $2, true)`, name, value)
		require.NoError(t, err)
	}
	_, err = tx.Exec(ctx, "SET LOCAL ROLE "+store.AppRole)
	require.NoError(t, err)
	var role string
	require.NoError(t, tx.QueryRow(ctx, `SELECT current_user`).Scan(&role))
	require.Equal(t, store.AppRole, role)
	fn(tx)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// keys lists the keys of the rows of table that q sees (where: an optional
// condition over r), sorted.
func keys(t *testing.T, q querier, table rlsTable, where string, args ...any) []string {
	t.Helper()
	sql := fmt.Sprintf(`SELECT %s FROM %s r`, table.key, table.name)
	if where != "" {
		sql += " WHERE " + where
	}
	rows, err := q.Query(context.Background(), sql, args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// owned lists, as the superuser, the keys of table's rows that belong to org.
func owned(t *testing.T, st *store.Store, table rlsTable, org uuid.UUID) []string {
	t.Helper()
	return keys(t, st.Pool(), table, table.orgOf+" = $1", org)
}

func tableNamed(t *testing.T, name string) rlsTable {
	t.Helper()
	for _, tb := range rlsTables {
		if tb.name == name {
			return tb
		}
	}
	require.Failf(t, "unknown table", "%s", name)
	return rlsTable{}
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func TestRLSEveryTableEnabledAndForced(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()

	rows, err := st.Pool().Query(ctx, `
		SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> $1
		ORDER BY c.relname`, gooseTable)
	require.NoError(t, err)
	type rel struct {
		Name           string
		Enabled, Force bool
		Owner          string
	}
	rels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rel])
	require.NoError(t, err)
	require.NotEmpty(t, rels)

	var found []string
	for _, r := range rels {
		if !slices.Contains(serviceTables, r.Name) {
			found = append(found, r.Name)
		}
		require.Truef(t, r.Enabled, "table %s: row-level security is not enabled (ALTER TABLE %s ENABLE ROW LEVEL SECURITY)", r.Name, r.Name)
		require.Truef(t, r.Force, "table %s: row-level security is not forced (ALTER TABLE %s FORCE ROW LEVEL SECURITY)", r.Name, r.Name)
		require.NotEqualf(t, store.AppRole, r.Owner, "table %s is owned by the application role", r.Name)
	}
	var listed []string
	for _, tb := range rlsTables {
		listed = append(listed, tb.name)
	}
	sort.Strings(listed)
	require.Equal(t, listed, found, "every public table must have a line in rlsTables, so the visibility tests cover it")

	// A view or materialized view runs with its owner's rights (unless
	// security_invoker), so it would read past the policies.
	var views []string
	rows, err = st.Pool().Query(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND (c.relkind = 'm'
			OR (c.relkind = 'v' AND NOT coalesce('security_invoker=true' = ANY (c.reloptions), false)))`)
	require.NoError(t, err)
	views, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Empty(t, views, "views that bypass row-level security")

	// A SECURITY DEFINER function would run queries past the policies too.
	rows, err = st.Pool().Query(ctx, `
		SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'public' AND p.prosecdef`)
	require.NoError(t, err)
	definers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Empty(t, definers, "SECURITY DEFINER functions in the public schema")
}

func TestRLSAppRole(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()
	var canLogin, super, bypass bool
	err := st.Pool().QueryRow(ctx, `SELECT rolcanlogin, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1`,
		store.AppRole).Scan(&canLogin, &super, &bypass)
	require.NoError(t, err, "the role %s must exist", store.AppRole)
	require.False(t, canLogin, "the application role must be NOLOGIN")
	require.False(t, super, "the application role must not be a superuser")
	require.False(t, bypass, "the application role must not bypass row-level security")

	// Nor may it reach such rights through membership of another role.
	var granted []string
	rows, err := st.Pool().Query(ctx, `
		SELECT g.rolname FROM pg_auth_members m
		JOIN pg_roles r ON r.oid = m.member JOIN pg_roles g ON g.oid = m.roleid
		WHERE r.rolname = $1`, store.AppRole)
	require.NoError(t, err)
	granted, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Empty(t, granted, "roles granted to the application role")
}

// TestRLSVisibility checks, for every tenant table, exactly which rows each
// combination of settings reveals to the application role.
func TestRLSVisibility(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)

	// Without the role, the superuser sees everything: the zeros below mean
	// something.
	for _, tb := range rlsTables {
		require.NotEmptyf(t, owned(t, st, tb, a.OrgID), "seed: %s has no row of A", tb.name)
		require.NotEmptyf(t, owned(t, st, tb, b.OrgID), "seed: %s has no row of B", tb.name)
	}

	ofOrg := func(ten tenant) func(rlsTable) []string {
		return func(tb rlsTable) []string {
			if !tb.byOrg {
				return nil
			}
			return owned(t, st, tb, ten.OrgID)
		}
	}
	// only is one table's rows of every organization given, and nothing
	// else.
	only := func(table string, tens ...tenant) func(rlsTable) []string {
		return func(tb rlsTable) []string {
			if tb.name != table {
				return nil
			}
			var out []string
			for _, ten := range tens {
				out = append(out, owned(t, st, tb, ten.OrgID)...)
			}
			return out
		}
	}
	ofUser := func(ten tenant) func(rlsTable) []string {
		return func(tb rlsTable) []string {
			switch tb.name {
			case "organizations", "users", "organization_members", "user_sessions":
				return owned(t, st, tb, ten.OrgID)
			}
			return nil
		}
	}
	none := func(rlsTable) []string { return nil }
	// either is what a or b shows of a table.
	either := func(a, b func(rlsTable) []string) func(rlsTable) []string {
		return func(tb rlsTable) []string { return append(a(tb), b(tb)...) }
	}

	cases := []struct {
		name string
		set  settings
		want func(rlsTable) []string // the keys visible in a table
	}{
		{"no settings", settings{}, none},
		{"empty settings", settings{"app.org_id": "", "app.user_id": "", "app.session_hash": "", "app.login_email": "",
			"app.public_server_id": "", "app.key_hash": "", "app.org_slug": "", "app.audit_append": "",
			"app.exchange": "", "app.journal_append": "", "app.journal_prune": "", "app.task_sweep": ""}, none},
		{"exchange without published cards", settings{"app.exchange": "on"}, none},
		{"key hash of A", settings{"app.key_hash": a.KeyHash}, only("api_keys", a)},
		{"wrong key hash", settings{"app.key_hash": strings.Repeat("0", 64)}, none},
		{"org slug of A", settings{"app.org_slug": a.Slug}, only("organizations", a)},
		{"audit append", settings{"app.audit_append": "on"}, none},
		{"journal append", settings{"app.journal_append": "on"}, none},
		{"journal prune", settings{"app.journal_prune": "on"}, either(only("mcp_journal", a, b), only("agent_journal", a, b))},
		{"journal prune not quite on", settings{"app.journal_prune": "yes"}, none},
		{"task sweep", settings{"app.task_sweep": "on"}, only("mcp_tasks", a, b)},
		{"task sweep not quite on", settings{"app.task_sweep": "yes"}, none},
		{"org B", settings{"app.org_id": b.OrgID.String()}, ofOrg(b)},
		{"org A", settings{"app.org_id": a.OrgID.String()}, ofOrg(a)},
		{"unknown org", settings{"app.org_id": uuid.NewString()}, none},
		{"session hash of A", settings{"app.session_hash": a.SessionHash}, only("user_sessions", a)},
		{"wrong session hash", settings{"app.session_hash": a.SessionHash + "0"}, none},
		{"login e-mail of A", settings{"app.login_email": strings.ToLower(a.Email)}, only("users", a)},
		{"unknown login e-mail", settings{"app.login_email": "nobody@example.com"}, none},
		{"user A without org", settings{"app.user_id": a.UserID.String()}, ofUser(a)},
		{"user B without org", settings{"app.user_id": b.UserID.String()}, ofUser(b)},
		{"public id of A's draft server", settings{"app.public_server_id": a.ServerID.String()}, none},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			asApp(t, st.Pool(), tc.set, func(tx pgx.Tx) {
				for _, tb := range rlsTables {
					want := tc.want(tb)
					if want == nil {
						want = []string{}
					}
					sort.Strings(want)
					require.Equalf(t, want, keys(t, tx, tb, ""), "table %s", tb.name)
					var n int
					require.NoError(t, tx.QueryRow(context.Background(), "SELECT count(*) FROM "+tb.name).Scan(&n))
					require.Equalf(t, len(want), n, "count(*) of %s", tb.name)
				}
			})
		})
	}
}

// TestRLSOtherOrganizationsRowsAreUntouchable works for B and tries to
// change, delete and create rows of A in every table.
func TestRLSOtherOrganizationsRowsAreUntouchable(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	asB := settings{"app.org_id": b.OrgID.String()}

	for _, tb := range rlsTables {
		t.Run(tb.name, func(t *testing.T) {
			victims := owned(t, st, tb, a.OrgID)
			require.NotEmpty(t, victims)
			statements := map[string]string{
				"update": fmt.Sprintf(`UPDATE %s AS r SET %s = r.%s WHERE %s = $1`, tb.name, tb.touch, tb.touch, tb.key),
				"delete": fmt.Sprintf(`DELETE FROM %s AS r WHERE %s = $1`, tb.name, tb.key),
			}
			for _, key := range victims {
				for verb, sql := range statements {
					// The statement does reach the row when RLS does not apply.
					func() {
						tx, err := st.Pool().Begin(ctx)
						require.NoError(t, err)
						defer func() { _ = tx.Rollback(ctx) }()
						tag, err := tx.Exec(ctx, sql, key)
						if sqlState(err) == "23503" {
							return // it reached the row, which others' rows still reference
						}
						require.NoError(t, err)
						require.EqualValuesf(t, 1, tag.RowsAffected(), "superuser %s of %s", verb, key)
					}()
					asApp(t, st.Pool(), asB, func(tx pgx.Tx) {
						tag, err := tx.Exec(ctx, sql, key)
						if sqlState(err) == "42501" {
							return // not even granted (audit records are append-only)
						}
						require.NoErrorf(t, err, "%s of A's row %s", verb, key)
						require.EqualValuesf(t, 0, tag.RowsAffected(), "%s of A's row %s while working for B", verb, key)
					})
				}
			}

			sql, args := tb.insertFor(a, b)
			asApp(t, st.Pool(), asB, func(tx pgx.Tx) {
				_, err := tx.Exec(ctx, sql, args...)
				require.Errorf(t, err, "inserting a row of A while working for B")
				require.Equalf(t, "42501", sqlState(err), "want a row-level-security WITH CHECK violation, got %v", err)
			})
			require.Equal(t, victims, owned(t, st, tb, a.OrgID), "A's rows after the attempts")
		})
	}
}

// TestRLSChildrenCannotHangUnderAnotherOrganizationsServer: a tool, resource
// or prompt of B's may not name A's server, even though its own
// organization_id passes the policy. The attempt must fail on the foreign key
// whatever the name: a unique violation instead would tell B that A's server
// has a child of that name (or URI), past row-level security.
func TestRLSChildrenCannotHangUnderAnotherOrganizationsServer(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	asB := settings{"app.org_id": b.OrgID.String()}
	cases := []struct {
		table, unique, taken string // unique: the column unique per server; taken: its value on A's child
		insert               string
	}{
		{"mcp_tools", "name", "tool", `INSERT INTO mcp_tools (id, organization_id, server_id, name, input_schema)
			VALUES (gen_random_uuid(), app_org_id(), $1, $2, '{}')`},
		{"mcp_resources", "uri", "docs://guide", `INSERT INTO mcp_resources (id, organization_id, server_id, name, uri, content)
			VALUES (gen_random_uuid(), app_org_id(), $1, 'intruder', $2, '"x"')`},
		{"mcp_prompts", "name", "prompt", `INSERT INTO mcp_prompts (id, organization_id, server_id, name)
			VALUES (gen_random_uuid(), app_org_id(), $1, $2)`},
	}
	for _, tc := range cases {
		var child uuid.UUID
		require.NoError(t, st.Pool().QueryRow(ctx, fmt.Sprintf(`SELECT id FROM %s WHERE server_id = $1`, tc.table),
			b.ServerID).Scan(&child))
		for _, value := range []string{"intruder://unused", tc.taken} {
			t.Run(tc.table+" "+tc.unique+" "+value, func(t *testing.T) {
				asApp(t, st.Pool(), asB, func(tx pgx.Tx) {
					_, err := tx.Exec(ctx, tc.insert, a.ServerID, value)
					require.Equalf(t, "23503", sqlState(err), "insert under A's server: want a foreign-key violation, got %v", err)
				})
				asApp(t, st.Pool(), asB, func(tx pgx.Tx) {
					_, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE %s SET server_id = $1, %s = $2 WHERE id = $3`, tc.table, tc.unique),
						a.ServerID, value, child)
					require.Equalf(t, "23503", sqlState(err), "move under A's server: want a foreign-key violation, got %v", err)
				})
			})
		}
	}
}

// TestRLSRunsCannotHangUnderAnotherOrganizationsParent: a run or a session
// entry of B's may not name A's test, suite or session.
func TestRLSRunsCannotHangUnderAnotherOrganizationsParent(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	cases := map[string]struct {
		sql    string
		parent uuid.UUID
	}{
		"test run under A's test": {`INSERT INTO rest_test_runs (id, organization_id, test_id, passed, started_at, duration_ms, results)
			VALUES (gen_random_uuid(), app_org_id(), $1, true, now(), 1, '[]')`, a.TestID},
		"suite run under A's suite": {`INSERT INTO rest_suite_runs (id, organization_id, suite_id, passed, total, passed_count,
			failed_count, skipped_count, started_at, duration_ms, test_runs)
			VALUES (gen_random_uuid(), app_org_id(), $1, true, 0, 0, 0, 0, now(), 1, '[]')`, a.SuiteID},
		"entry under A's session": {`INSERT INTO explore_entries (id, organization_id, session_id, request, duration_ms)
			VALUES (gen_random_uuid(), app_org_id(), $1, '{}', 1)`, a.SessionID},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			asApp(t, st.Pool(), settings{"app.org_id": b.OrgID.String()}, func(tx pgx.Tx) {
				_, err := tx.Exec(ctx, tc.sql, tc.parent)
				require.Equalf(t, "23503", sqlState(err), "want a foreign-key violation, got %v", err)
			})
		})
	}
}

// TestRLSNarrowScopesAreNarrow: a session hash, a login e-mail and a user id
// each reveal exactly what they are for and no more.
func TestRLSNarrowScopesAreNarrow(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	sessions, users := tableNamed(t, "user_sessions"), tableNamed(t, "users")
	members, orgs := tableNamed(t, "organization_members"), tableNamed(t, "organizations")

	t.Run("session hash reveals one session", func(t *testing.T) {
		asApp(t, st.Pool(), settings{"app.session_hash": a.SessionHash}, func(tx pgx.Tx) {
			got := keys(t, tx, sessions, "")
			require.Len(t, got, 1)
			require.Equal(t, owned(t, st, sessions, a.OrgID), got)
			require.Empty(t, keys(t, tx, tableNamed(t, "mcp_servers"), ""))
			require.Empty(t, keys(t, tx, users, ""))
		})
	})
	t.Run("login e-mail reveals one user, whatever the case of the stored e-mail", func(t *testing.T) {
		require.NotEqual(t, strings.ToLower(a.Email), a.Email, "seed: A's e-mail must have capitals")
		asApp(t, st.Pool(), settings{"app.login_email": strings.ToLower(a.Email)}, func(tx pgx.Tx) {
			require.Equal(t, []string{a.UserID.String()}, keys(t, tx, users, ""))
			require.Empty(t, keys(t, tx, members, ""))
			require.Empty(t, keys(t, tx, orgs, ""))
			require.Empty(t, keys(t, tx, sessions, ""))
		})
	})
	t.Run("public server id reveals that one server while it is enabled", func(t *testing.T) {
		servers := tableNamed(t, "mcp_servers")
		_, err := st.Pool().Exec(context.Background(), `UPDATE mcp_servers SET enabled = true WHERE id = $1`, a.ServerID)
		require.NoError(t, err)
		asApp(t, st.Pool(), settings{"app.public_server_id": a.ServerID.String()}, func(tx pgx.Tx) {
			require.Equal(t, []string{a.ServerID.String()}, keys(t, tx, servers, ""))
			for _, tb := range rlsTables {
				if tb.name != servers.name {
					require.Emptyf(t, keys(t, tx, tb, ""), "table %s", tb.name)
				}
			}
		})
		asApp(t, st.Pool(), settings{"app.public_server_id": b.ServerID.String()}, func(tx pgx.Tx) {
			require.Empty(t, keys(t, tx, servers, ""), "B's draft server")
		})
		asApp(t, st.Pool(), settings{"app.public_server_id": a.ToolID.String()}, func(tx pgx.Tx) {
			require.Empty(t, keys(t, tx, servers, ""), "an id that names no server")
		})
	})
	t.Run("user id reveals that user's memberships and organizations only", func(t *testing.T) {
		asApp(t, st.Pool(), settings{"app.user_id": a.UserID.String()}, func(tx pgx.Tx) {
			require.Equal(t, []string{a.OrgID.String() + "/" + a.UserID.String()}, keys(t, tx, members, ""))
			require.Equal(t, []string{a.OrgID.String()}, keys(t, tx, orgs, ""))
			require.NotContains(t, keys(t, tx, members, ""), b.OrgID.String()+"/"+b.UserID.String())
			require.Empty(t, keys(t, tx, tableNamed(t, "mcp_servers"), ""))
		})
	})
}

// TestRLSExchangeRevealsPublishedCardsOnly: app.exchange, the public
// exchange's scope, reveals published agent cards of every organization and
// the organizations that publish them, nothing else, and lets nothing change.
func TestRLSExchangeRevealsPublishedCardsOnly(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	cards, orgs := tableNamed(t, "agent_cards"), tableNamed(t, "organizations")
	_, err := st.Pool().Exec(ctx, `UPDATE agent_cards SET status = 'published', published_at = now() WHERE id = $1`, a.CardID)
	require.NoError(t, err)

	exchange := settings{"app.exchange": "on"}
	asApp(t, st.Pool(), exchange, func(tx pgx.Tx) {
		require.Equal(t, []string{a.CardID.String()}, keys(t, tx, cards, ""), "only A's published card, not B's draft")
		require.Equal(t, []string{a.OrgID.String()}, keys(t, tx, orgs, ""), "only the organization that publishes")
		for _, tb := range rlsTables {
			if tb.name != cards.name && tb.name != orgs.name {
				require.Emptyf(t, keys(t, tx, tb, ""), "table %s", tb.name)
			}
		}
	})
	asApp(t, st.Pool(), settings{"app.exchange": "yes"}, func(tx pgx.Tx) {
		require.Empty(t, keys(t, tx, cards, ""), "only the exact value on opens the exchange")
	})

	writes := []refusedWrite{
		{"exchange renames a published card", exchange, `UPDATE agent_cards SET name = 'hijacked' WHERE id = $1`, []any{a.CardID}},
		{"exchange unpublishes a card", exchange,
			`UPDATE agent_cards SET status = 'draft', published_at = NULL WHERE id = $1`, []any{a.CardID}},
		{"exchange deletes a published card", exchange, `DELETE FROM agent_cards WHERE id = $1`, []any{a.CardID}},
		{"exchange renames the publisher", exchange, `UPDATE organizations SET name = 'Hijacked' WHERE id = $1`, []any{a.OrgID}},
		{"exchange plants a published card", exchange, `INSERT INTO agent_cards (id, organization_id, name, status, card,
			published_at, created_by) VALUES (gen_random_uuid(), $1, 'planted', 'published', '{}', now(), 'x')`, []any{a.OrgID}},
		{"B with the exchange on edits A's published card", settings{"app.exchange": "on", "app.org_id": b.OrgID.String()},
			`UPDATE agent_cards SET name = 'hijacked' WHERE id = $1`, []any{a.CardID}},
		{"B with the exchange on deletes A's published card", settings{"app.exchange": "on", "app.org_id": b.OrgID.String()},
			`DELETE FROM agent_cards WHERE id = $1`, []any{a.CardID}},
	}
	requireChangesNothing(t, st.Pool(), writes)
	var name, status string
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT name, status FROM agent_cards WHERE id = $1`, a.CardID).Scan(&name, &status))
	require.Equal(t, []string{"alpha-card", "published"}, []string{name, status})
}

// TestRLSNarrowScopesAreReadOnly: the settings that only exist to look
// something up (a session by its hash, an account by its e-mail at login, the
// organizations and memberships of the signed-in user, the members of the
// current organization) must not let the transaction change or delete what
// they reveal — and a transaction working for one organization must not
// change or delete rows of another. "Refused" is either zero rows affected or
// a row-level-security violation (42501).
func TestRLSNarrowScopesAreReadOnly(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()

	// A2 is a second organization of A's (as POST /api/organizations makes
	// one: nobody's home), where B's user is a plain member.
	a2 := uuid.New()
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a2, UserID: a.UserID}, func(tx *store.Tx) error {
		if _, err := tx.CreateOrganization(ctx, a2, "Alpha Second", ""); err != nil {
			return err
		}
		if err := tx.AddOwner(ctx, a2, a.UserID); err != nil {
			return err
		}
		_, err := tx.AddMember(ctx, a2, store.User{ID: b.UserID, Email: b.Email}, store.RoleMember)
		return err
	}))

	// A's server is enabled, so the public endpoint's look-up finds it.
	_, err := st.Pool().Exec(ctx, `UPDATE mcp_servers SET enabled = true WHERE id = $1`, a.ServerID)
	require.NoError(t, err)
	public := settings{"app.public_server_id": a.ServerID.String()}

	// tenantOfB is how the service scopes every request of B's user working
	// in B (see httpapi's tenant helper).
	tenantOfB := settings{"app.org_id": b.OrgID.String(), "app.user_id": b.UserID.String()}
	cases := []refusedWrite{
		{"login lookup updates the account's password", settings{"app.login_email": strings.ToLower(a.Email)},
			`UPDATE users SET password_hash = 'attacker' WHERE lower(email) = $1`, []any{strings.ToLower(a.Email)}},
		{"login lookup deletes the account", settings{"app.login_email": strings.ToLower(a.Email)},
			`DELETE FROM users WHERE lower(email) = $1`, []any{strings.ToLower(a.Email)}},
		{"session lookup extends the session", settings{"app.session_hash": a.SessionHash},
			`UPDATE user_sessions SET expires_at = now() + interval '100 years' WHERE token_hash = $1`, []any{a.SessionHash}},
		{"public endpoint look-up disables the server", public,
			`UPDATE mcp_servers SET enabled = false WHERE id = $1`, []any{a.ServerID}},
		{"public endpoint look-up deletes the server", public,
			`DELETE FROM mcp_servers WHERE id = $1`, []any{a.ServerID}},
		{"member renames another organization it belongs to", tenantOfB,
			`UPDATE organizations SET name = 'Hijacked' WHERE id = $1`, []any{a2}},
		{"member deletes another organization it belongs to", tenantOfB,
			`DELETE FROM organizations WHERE id = $1`, []any{a2}},
		{"member promotes itself in another organization", tenantOfB,
			`UPDATE organization_members SET role = 'owner' WHERE organization_id = $1 AND user_id = $2`, []any{a2, b.UserID}},
		{"member deletes the memberships of another organization", tenantOfB,
			`DELETE FROM organization_members WHERE organization_id = $1`, []any{a2}},
		{"organization changes a member's e-mail", settings{"app.org_id": a2.String()},
			`UPDATE users SET email = 'attacker@example.com' WHERE id = $1`, []any{b.UserID}},
		{"organization deletes a member's account (whose home is another organization)", settings{"app.org_id": a2.String()},
			`DELETE FROM users WHERE id = $1`, []any{b.UserID}},
		{"owner's organization deletes a member's account", settings{"app.org_id": a2.String(), "app.user_id": a.UserID.String()},
			`DELETE FROM users WHERE id = $1`, []any{b.UserID}},
		{"journal append deletes the journal", settings{"app.journal_append": "on"},
			`DELETE FROM mcp_journal WHERE server_id = $1`, []any{a.ServerID}},
		{"journal append rewrites a record", settings{"app.journal_append": "on"},
			`UPDATE mcp_journal SET response = 'forged' WHERE server_id = $1`, []any{a.ServerID}},
		{"journal prune plants a record", settings{"app.journal_prune": "on"},
			`INSERT INTO mcp_journal (id, organization_id, server_id, received_at, method, outcome, latency_us)
				VALUES (gen_random_uuid(), $1, $2, now(), 'ping', 'result', 1)`, []any{a.OrgID, a.ServerID}},
		{"journal prune rewrites a record", settings{"app.journal_prune": "on"},
			`UPDATE mcp_journal SET response = 'forged' WHERE server_id = $1`, []any{a.ServerID}},
		{"journal prune deletes a server", settings{"app.journal_prune": "on"},
			`DELETE FROM mcp_servers WHERE id = $1`, []any{a.ServerID}},
		{"B clears A's journal", tenantOfB, `DELETE FROM mcp_journal WHERE server_id = $1`, []any{a.ServerID}},
		{"task sweep plants a task", settings{"app.task_sweep": "on"},
			`INSERT INTO mcp_tasks (id, organization_id, server_id, tool, scenario, script, created_at)
				VALUES (md5('planted'), $1, $2, 'tool', 'planted', '{}', now())`, []any{a.OrgID, a.ServerID}},
		{"task sweep ends a task", settings{"app.task_sweep": "on"},
			`UPDATE mcp_tasks SET ended_status = 'cancelled', ended_at = now() WHERE server_id = $1`, []any{a.ServerID}},
		{"task sweep deletes a server", settings{"app.task_sweep": "on"},
			`DELETE FROM mcp_servers WHERE id = $1`, []any{a.ServerID}},
		{"B ends A's tasks", tenantOfB,
			`UPDATE mcp_tasks SET ended_status = 'cancelled', ended_at = now() WHERE server_id = $1`, []any{a.ServerID}},
		{"B deletes A's tasks", tenantOfB, `DELETE FROM mcp_tasks WHERE server_id = $1`, []any{a.ServerID}},
	}
	requireChangesNothing(t, st.Pool(), cases)
}

// TestRLSWithTxRunsAsAppRole checks through behaviour that WithTx runs its
// function as the application role with exactly the scope it was given, and
// that neither the role nor the settings outlive the transaction.
func TestRLSWithTxRunsAsAppRole(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()

	var all int
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM mcp_servers`).Scan(&all))
	require.Equal(t, 2, all, "the superuser sees every server")

	serverIDs := func(scope store.Scope) []uuid.UUID {
		t.Helper()
		var ids []uuid.UUID
		require.NoError(t, st.WithTx(ctx, scope, func(tx *store.Tx) error {
			page, err := tx.Servers(ctx, nil, 100)
			for _, s := range page.Servers {
				ids = append(ids, s.ID)
			}
			return err
		}))
		return ids
	}
	t.Run("an empty scope sees nothing", func(t *testing.T) {
		require.Empty(t, serverIDs(store.Scope{}))
		require.Empty(t, serverIDs(store.Scope{UserID: a.UserID}))
		require.Empty(t, serverIDs(store.Scope{SessionHash: a.SessionHash, LookupEmail: a.Email}))
		require.Empty(t, serverIDs(store.Scope{PublicServerID: a.ServerID}), "A's server is a draft")
	})
	t.Run("an organization sees its own servers only", func(t *testing.T) {
		require.Equal(t, []uuid.UUID{a.ServerID}, serverIDs(store.Scope{OrgID: a.OrgID}))
		require.Equal(t, []uuid.UUID{b.ServerID}, serverIDs(store.Scope{OrgID: b.OrgID, UserID: b.UserID}))
	})
	t.Run("another organization's objects are not found", func(t *testing.T) {
		err := st.WithTx(ctx, store.Scope{OrgID: b.OrgID, UserID: b.UserID}, func(tx *store.Tx) error {
			_, err := tx.Server(ctx, a.ServerID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.Tool(ctx, a.ServerID, a.ToolID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.Tool(ctx, b.ServerID, a.ToolID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.Resource(ctx, a.ServerID, a.ResourceID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.Prompt(ctx, a.ServerID, a.PromptID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			tools, err := tx.Tools(ctx, a.ServerID)
			require.NoError(t, err)
			require.Empty(t, tools)
			require.ErrorIs(t, tx.DeleteTool(ctx, a.ServerID, a.ToolID), failure.ErrNotFound)
			require.ErrorIs(t, tx.DeleteServer(ctx, a.ServerID), failure.ErrNotFound)
			_, err = tx.MembershipRole(ctx, a.OrgID, a.UserID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{a.ServerID}, serverIDs(store.Scope{OrgID: a.OrgID}))
	})
	t.Run("a created server belongs to the scope's organization", func(t *testing.T) {
		id := uuid.New()
		require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: b.OrgID}, func(tx *store.Tx) error {
			_, err := tx.CreateServer(ctx, design.Server{ID: id, Name: "new", Version: "1.0.0", Type: "mock",
				ProtocolVersion: "2024-11-05", AuthMode: "none",
				Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: "test"})
			return err
		}))
		var org uuid.UUID
		require.NoError(t, st.Pool().QueryRow(ctx, `SELECT organization_id FROM mcp_servers WHERE id = $1`, id).Scan(&org))
		require.Equal(t, b.OrgID, org)
		err := st.WithTx(ctx, store.Scope{}, func(tx *store.Tx) error {
			_, err := tx.CreateServer(ctx, design.Server{ID: uuid.New(), Name: "orphan", Version: "1.0.0", Type: "mock",
				ProtocolVersion: "2024-11-05", AuthMode: "none",
				Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: "test"})
			return err
		})
		require.Error(t, err, "a server created without an organization")
	})
	t.Run("session and login look-ups", func(t *testing.T) {
		require.NoError(t, st.WithTx(ctx, store.Scope{SessionHash: a.SessionHash}, func(tx *store.Tx) error {
			s, err := tx.SessionByHash(ctx, a.SessionHash)
			require.NoError(t, err)
			require.Equal(t, a.UserID, s.UserID)
			_, err = tx.SessionByHash(ctx, b.SessionHash)
			require.ErrorIs(t, err, failure.ErrUnauthorized, "B's session through A's hash")
			return nil
		}))
		require.NoError(t, st.WithTx(ctx, store.Scope{LookupEmail: strings.ToUpper(a.Email)}, func(tx *store.Tx) error {
			u, err := tx.UserByEmail(ctx, strings.ToUpper(a.Email))
			require.NoError(t, err)
			require.Equal(t, a.UserID, u.ID)
			_, err = tx.UserByEmail(ctx, b.Email)
			require.ErrorIs(t, err, failure.ErrNotFound, "B's account through A's e-mail")
			return nil
		}))
	})
	t.Run("neither the role nor the settings outlive the transaction", func(t *testing.T) {
		boom := errors.New("boom")
		for i := 0; i < 5; i++ {
			require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID, UserID: a.UserID,
				SessionHash: a.SessionHash, LookupEmail: a.Email, PublicServerID: a.ServerID},
				func(*store.Tx) error { return nil }))
			require.ErrorIs(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(*store.Tx) error { return boom }), boom)
			require.Panics(t, func() {
				_ = st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(*store.Tx) error { panic("boom") })
			})
		}
		// Hold every pooled connection at once, so each one is checked.
		n := int(st.Pool().Stat().TotalConns())
		require.Positive(t, n)
		var conns []*pgxpool.Conn
		defer func() {
			for _, c := range conns {
				c.Release()
			}
		}()
		for i := 0; i < n; i++ {
			c, err := st.Pool().Acquire(ctx)
			require.NoError(t, err)
			conns = append(conns, c)
			var user, leftover string
			require.NoError(t, c.QueryRow(ctx, `SELECT current_user::text,
				concat(current_setting('app.org_id', true), current_setting('app.user_id', true),
					current_setting('app.session_hash', true), current_setting('app.login_email', true),
					current_setting('app.public_server_id', true))`).Scan(&user, &leftover))
			require.NotEqual(t, store.AppRole, user, "connection %d still runs as the application role", i)
			require.Empty(t, leftover, "connection %d still carries settings", i)
		}
	})
}
