package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/golden"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// storedDir holds one golden file per json or jsonb column: the column's
// text as the store writes a fully populated value, indented.
const storedDir = "testdata/stored"

// pinnedRow is one table whose json and jsonb columns are pinned: write
// stores a fully populated value through the store and returns the row's
// key and the value written; read reads the row back through the store.
type pinnedRow struct {
	table   string
	write   func(t *testing.T, p pinEnv) (key any, wrote any)
	read    func(t *testing.T, p pinEnv, key any) any
	columns []pinnedColumn
}

// pinnedColumn is one json or jsonb column and the part of the row's Go
// value that is stored in it.
type pinnedColumn struct {
	name string
	of   func(row any) any
}

// pinEnv is what rows are written beside: a tenant seeded on a fresh
// database.
type pinEnv struct {
	ctx context.Context
	st  *store.Store
	ten tenant
}

// inTx runs fn in one transaction of the tenant's organization.
func (p pinEnv) inTx(t *testing.T, fn func(*store.Tx) error) {
	t.Helper()
	require.NoError(t, p.st.WithTx(p.ctx, store.Scope{OrgID: p.ten.OrgID, UserID: p.ten.UserID}, fn))
}

// pinRow builds a pinnedRow over rows of Go type T.
func pinRow[T any](table string, write func(*testing.T, pinEnv) (any, T), read func(*testing.T, pinEnv, any) T,
	columns map[string]func(T) any) pinnedRow {
	row := pinnedRow{
		table: table,
		write: func(t *testing.T, p pinEnv) (any, any) { return write(t, p) },
		read:  func(t *testing.T, p pinEnv, key any) any { return read(t, p, key) },
	}
	for _, name := range slices.Sorted(maps.Keys(columns)) {
		of := columns[name]
		row.columns = append(row.columns, pinnedColumn{name: name, of: func(v any) any { return of(v.(T)) }})
	}
	return row
}

// TestStoredJSONIsPinned pins the stored form of every json and jsonb
// column: a fully populated value written through the store must be stored
// exactly as its golden file says, and every golden file, written into its
// column, must read back through the store as that value. Renaming a json
// tag of a stored type, or dropping a field from it, fails here: rows
// already stored would no longer read back. Run with -update to rewrite the
// golden files after a deliberate change of format (then existing rows need
// a migration).
func TestStoredJSONIsPinned(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	p := pinEnv{ctx: context.Background(), st: st, ten: seedTenant(t, st, "Pinned", "pinned@example.com")}
	rows := pinnedRows()
	for _, row := range rows {
		t.Run(row.table, func(t *testing.T) {
			key, wrote := row.write(t, p)
			for _, col := range row.columns {
				t.Run(col.name+" is stored as its golden file", func(t *testing.T) {
					golden.RequireFilled(t, col.of(wrote))
					golden.Compare(t, goldenPath(row.table, col.name), "TestStoredJSONIsPinned", storedText(t, p, row.table, col.name, key))
				})
			}
			for _, col := range row.columns {
				setColumn(t, p, row.table, col.name, key, golden.Read(t, goldenPath(row.table, col.name), "TestStoredJSONIsPinned"))
			}
			got := row.read(t, p, key)
			for _, col := range row.columns {
				t.Run(col.name+" golden file reads back", func(t *testing.T) {
					require.JSONEq(t, jsonOf(t, col.of(wrote)), jsonOf(t, col.of(got)))
				})
			}
		})
	}
	t.Run("every json column is pinned", func(t *testing.T) {
		var pinned []string
		for _, row := range rows {
			for _, col := range row.columns {
				pinned = append(pinned, row.table+"."+col.name)
			}
		}
		slices.Sort(pinned)
		require.Equal(t, jsonColumns(t, p), pinned, "a json or jsonb column is not pinned: add it to pinnedRows")
	})
}

// jsonColumns lists, as table.column, every json or jsonb column of the
// migrated schema.
func jsonColumns(t *testing.T, p pinEnv) []string {
	t.Helper()
	rows, err := p.st.Pool().Query(p.ctx, `SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type IN ('json', 'jsonb') ORDER BY 1`)
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var c string
		require.NoError(t, rows.Scan(&c))
		out = append(out, c)
	}
	require.NoError(t, rows.Err())
	return out
}

func goldenPath(table, column string) string {
	return filepath.Join(storedDir, table+"."+column+".json")
}

// storedText reads a column's text with a plain query, as the superuser,
// and indents it.
func storedText(t *testing.T, p pinEnv, table, column string, key any) []byte {
	t.Helper()
	var text *string
	require.NoError(t, p.st.Pool().QueryRow(p.ctx,
		fmt.Sprintf(`SELECT %s::text FROM %s WHERE %s = $1`, column, table, keyColumn(table)), key).Scan(&text))
	require.NotNil(t, text, "%s.%s is NULL", table, column)
	return golden.Indented(t, []byte(*text))
}

// setColumn writes text into a column with a plain statement, as the
// superuser: a row as an earlier version of the service stored it.
func setColumn(t *testing.T, p pinEnv, table, column string, key any, text []byte) {
	t.Helper()
	tag, err := p.st.Pool().Exec(p.ctx,
		fmt.Sprintf(`UPDATE %s SET %s = $1::text::json WHERE %s = $2`, table, column, keyColumn(table)), string(text), key)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
}

// pinnedRows are the tables with json or jsonb columns.
func pinnedRows() []pinnedRow {
	return []pinnedRow{
		txPin[design.Server]{table: "mcp_servers",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) design.Server {
				return design.Server{ID: id, Name: "pinned server", Version: "1.0.0", Type: "mock",
					ProtocolVersion: "2024-11-05", AuthMode: "oauth", Eras: design.DefaultEras,
					CacheScope: design.DefaultCacheScope, CreatedBy: p.ten.UserID.String(),
					Source: golden.Filled[json.RawMessage](t), Fault: golden.Filled[*mockspec.Fault](t), OAuth: golden.Filled[oauthcfg.Settings](t),
					State: golden.Filled[json.RawMessage](t), Skills: golden.Filled[[]design.Skill](t)}
			},
			create: func(p pinEnv, tx *store.Tx, s design.Server) error { return errOf(tx.CreateServer(p.ctx, s)) },
			get:    func(p pinEnv, tx *store.Tx, id uuid.UUID) (design.Server, error) { return tx.Server(p.ctx, id) },
			columns: map[string]func(design.Server) any{
				"source": func(s design.Server) any { return s.Source },
				"fault":  func(s design.Server) any { return s.Fault },
				"oauth":  func(s design.Server) any { return s.OAuth },
				"state":  func(s design.Server) any { return s.State },
				"skills": func(s design.Server) any { return s.Skills },
			},
		}.pinned(),
		txPin[design.Tool]{table: "mcp_tools",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) design.Tool {
				return design.Tool{ID: id, ServerID: p.ten.ServerID, Name: "pinned_tool", InputSchema: golden.Filled[json.RawMessage](t),
					OutputSchema: golden.Filled[json.RawMessage](t), Scenarios: golden.Filled[[]design.Scenario](t),
					Fault: golden.Filled[*mockspec.Fault](t), Meta: golden.Filled[json.RawMessage](t)}
			},
			create: func(p pinEnv, tx *store.Tx, x design.Tool) error { return errOf(tx.CreateTool(p.ctx, x)) },
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (design.Tool, error) {
				return tx.Tool(p.ctx, p.ten.ServerID, id)
			},
			columns: map[string]func(design.Tool) any{
				"input_schema":   func(x design.Tool) any { return x.InputSchema },
				"output_schema":  func(x design.Tool) any { return x.OutputSchema },
				"mock_scenarios": func(x design.Tool) any { return x.Scenarios },
				"fault":          func(x design.Tool) any { return x.Fault },
				"meta":           func(x design.Tool) any { return x.Meta },
			},
		}.pinned(),
		txPin[design.Resource]{table: "mcp_resources",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) design.Resource {
				return design.Resource{ID: id, ServerID: p.ten.ServerID, Name: "pinned resource", URI: "docs://pinned",
					Content: golden.Filled[json.RawMessage](t), Completions: golden.Filled[map[string][]string](t),
					Ask: golden.Filled[map[string]mockspec.InputRequest](t), Then: golden.Filled[[]mockspec.Branch](t),
					Meta: golden.Filled[json.RawMessage](t)}
			},
			create: func(p pinEnv, tx *store.Tx, r design.Resource) error { return errOf(tx.CreateResource(p.ctx, r)) },
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (design.Resource, error) {
				return tx.Resource(p.ctx, p.ten.ServerID, id)
			},
			columns: map[string]func(design.Resource) any{
				"content":     func(r design.Resource) any { return r.Content },
				"completions": func(r design.Resource) any { return r.Completions },
				"ask":         func(r design.Resource) any { return askOf(r.Ask, r.Then) },
				"meta":        func(r design.Resource) any { return r.Meta },
			},
		}.pinned(),
		txPin[design.Prompt]{table: "mcp_prompts",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) design.Prompt {
				return design.Prompt{ID: id, ServerID: p.ten.ServerID, Name: "pinned_prompt",
					Arguments: golden.Filled[[]design.PromptArgument](t), Messages: golden.Filled[[]design.PromptMessage](t),
					Ask: golden.Filled[map[string]mockspec.InputRequest](t), Then: golden.Filled[[]mockspec.Branch](t)}
			},
			create: func(p pinEnv, tx *store.Tx, x design.Prompt) error { return errOf(tx.CreatePrompt(p.ctx, x)) },
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (design.Prompt, error) {
				return tx.Prompt(p.ctx, p.ten.ServerID, id)
			},
			columns: map[string]func(design.Prompt) any{
				"arguments": func(x design.Prompt) any { return x.Arguments },
				"messages":  func(x design.Prompt) any { return x.Messages },
				"ask":       func(x design.Prompt) any { return askOf(x.Ask, x.Then) },
			},
		}.pinned(),
		txPin[store.AgentCard]{table: "agent_cards",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) store.AgentCard {
				return store.AgentCard{ID: id, Card: golden.Filled[agentcard.Card](t)}
			},
			create: func(p pinEnv, tx *store.Tx, a store.AgentCard) error {
				return errOf(tx.CreateAgentCard(p.ctx, a.ID, a.Card, p.ten.UserID.String()))
			},
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (store.AgentCard, error) { return tx.AgentCard(p.ctx, id) },
			columns: map[string]func(store.AgentCard) any{
				"card": func(a store.AgentCard) any { return a.Card },
			},
		}.pinned(),
		txPin[store.RestTest]{table: "rest_tests",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) store.RestTest {
				return store.RestTest{ID: id, Case: golden.Filled[resttest.Case](t), GeneratedFrom: golden.Filled[json.RawMessage](t)}
			},
			create: func(p pinEnv, tx *store.Tx, r store.RestTest) error {
				return errOf(tx.CreateRestTest(p.ctx, r.ID, r.Case, r.GeneratedFrom, "pinned"))
			},
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (store.RestTest, error) { return tx.RestTest(p.ctx, id) },
			columns: map[string]func(store.RestTest) any{
				"test_case":      func(r store.RestTest) any { return r.Case },
				"generated_from": func(r store.RestTest) any { return r.GeneratedFrom },
			},
		}.pinned(),
		txPin[store.TestRun]{table: "rest_test_runs",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) store.TestRun {
				return store.TestRun{ID: id, TestID: p.ten.TestID,
					Run: resttest.Run{Passed: true, StartedAt: time.Now(), Results: golden.Filled[[]resttest.Result](t)}}
			},
			create: func(p pinEnv, tx *store.Tx, r store.TestRun) error {
				return errOf(tx.CreateTestRun(p.ctx, r.ID, r.TestID, r.Run))
			},
			get: testRun,
			columns: map[string]func(store.TestRun) any{
				"results": func(r store.TestRun) any { return r.Results },
			},
		}.pinned(),
		txPin[store.SuiteRun]{table: "rest_suite_runs",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) store.SuiteRun {
				return store.SuiteRun{ID: id, SuiteID: p.ten.SuiteID, StartedAt: time.Now(),
					TestRuns: golden.Filled[[]resttest.SuiteTestRun](t)}
			},
			create: func(p pinEnv, tx *store.Tx, r store.SuiteRun) error { return errOf(tx.CreateSuiteRun(p.ctx, r)) },
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (store.SuiteRun, error) {
				return tx.SuiteRun(p.ctx, p.ten.SuiteID, id)
			},
			columns: map[string]func(store.SuiteRun) any{
				"test_runs": func(r store.SuiteRun) any { return r.TestRuns },
			},
		}.pinned(),
		txPin[store.ExploreEntry]{table: "explore_entries",
			row: func(t *testing.T, p pinEnv, id uuid.UUID) store.ExploreEntry {
				return store.ExploreEntry{ID: id, SessionID: p.ten.SessionID,
					Request: golden.Filled[resttest.Request](t), Response: golden.Filled[*resttest.Response](t)}
			},
			create: func(p pinEnv, tx *store.Tx, e store.ExploreEntry) error {
				return errOf(tx.CreateExploreEntry(p.ctx, e))
			},
			get: func(p pinEnv, tx *store.Tx, id uuid.UUID) (store.ExploreEntry, error) {
				return tx.ExploreEntry(p.ctx, p.ten.SessionID, id)
			},
			columns: map[string]func(store.ExploreEntry) any{
				"request":  func(e store.ExploreEntry) any { return e.Request },
				"response": func(e store.ExploreEntry) any { return e.Response },
			},
		}.pinned(),
		pinRow("mcp_journal", writeJournal, readJournal, map[string]func(store.JournalRecord) any{
			"params":       func(r store.JournalRecord) any { return r.Params },
			"mismatches":   func(r store.JournalRecord) any { return r.Mismatches },
			"rounds":       func(r store.JournalRecord) any { return r.Rounds },
			"state_change": func(r store.JournalRecord) any { return r.StateChange },
		}),
		pinRow("agent_journal", writeAgentJournal, readAgentJournal, map[string]func(store.AgentJournalRecord) any{
			"message":    func(r store.AgentJournalRecord) any { return r.Message },
			"mismatches": func(r store.AgentJournalRecord) any { return r.Mismatches },
		}),
		pinRow("mcp_server_state", writeLiveState, readLiveState, map[string]func(store.LiveState) any{
			"state": func(x store.LiveState) any { return x.State },
		}),
		pinRow("a2a_context_state", writeContextState, readContextState, map[string]func(store.LiveState) any{
			"state": func(x store.LiveState) any { return x.State },
		}),
		pinRow("a2a_tasks", writeA2ATask, readA2ATask, map[string]func(store.A2ATask) any{
			"script":  func(x store.A2ATask) any { return x.Script },
			"history": func(x store.A2ATask) any { return x.History },
		}),
		pinRow("mcp_tasks", writeTask, readTask, map[string]func(store.Task) any{
			"script":        func(x store.Task) any { return x.Script },
			"arguments":     func(x store.Task) any { return x.Arguments },
			"answers":       func(x store.Task) any { return x.Answers },
			"ended_payload": func(x store.Task) any { return x.EndedPayload },
		}),
	}
}

// txPin is a table, keyed by a uuid, whose rows the store writes and reads
// in a transaction of the tenant's organization, over rows of Go type T.
type txPin[T any] struct {
	table string
	// row is a fully populated row keyed id.
	row func(t *testing.T, p pinEnv, id uuid.UUID) T
	// create writes a row through the store; get reads the row keyed id
	// back.
	create  func(p pinEnv, tx *store.Tx, row T) error
	get     func(p pinEnv, tx *store.Tx, id uuid.UUID) (T, error)
	columns map[string]func(T) any
}

// pinned is the pinnedRow that writes and reads x's table, each in one
// transaction.
func (x txPin[T]) pinned() pinnedRow {
	write := func(t *testing.T, p pinEnv) (any, T) {
		id := uuid.New()
		row := x.row(t, p, id)
		p.inTx(t, func(tx *store.Tx) error { return x.create(p, tx, row) })
		return id, row
	}
	read := func(t *testing.T, p pinEnv, key any) (row T) {
		p.inTx(t, func(tx *store.Tx) (err error) {
			row, err = x.get(p, tx, key.(uuid.UUID))
			return err
		})
		return row
	}
	return pinRow(x.table, write, read, x.columns)
}

// errOf is the error of a write whose returned row the test does not need.
func errOf[T any](_ T, err error) error { return err }

// askOf is the questions of a prompt or resource as one value, as its ask
// column holds them.
func askOf(ask map[string]mockspec.InputRequest, then []mockspec.Branch) any {
	return map[string]any{"ask": ask, "then": then}
}

// testRun reads the run id of the tenant's test back: the store lists a
// test's runs, it has no read of one run.
func testRun(p pinEnv, tx *store.Tx, id uuid.UUID) (store.TestRun, error) {
	runs, _, err := tx.TestRuns(p.ctx, p.ten.TestID, nil, 100)
	if err != nil {
		return store.TestRun{}, err
	}
	i := slices.IndexFunc(runs, func(r store.TestRun) bool { return r.ID == id })
	if i < 0 {
		return store.TestRun{}, fmt.Errorf("test run %s does not read back", id)
	}
	return runs[i], nil
}

func writeJournal(t *testing.T, p pinEnv) (any, store.JournalRecord) {
	t.Helper()
	r := store.JournalRecord{ID: uuid.New(), OrgID: p.ten.OrgID, ServerID: p.ten.ServerID, ReceivedAt: time.Now(),
		Method: "tools/call", Tool: "tool", Outcome: "result", Step: -1,
		Params: golden.Filled[json.RawMessage](t), Mismatches: golden.Filled[[]store.JournalMismatch](t),
		Rounds: golden.Filled[[]store.JournalRound](t),
		// As journal.boundStateChange writes it.
		StateChange: json.RawMessage(`{"set":{"item":{"id":"1"}},"set_keys":["item"],"deleted":["old"],"version":3,"truncated":true,"left_out":1}`)}
	skipped, err := p.st.AppendJournal(p.ctx, []store.JournalRecord{r})
	require.NoError(t, err)
	require.Zero(t, skipped)
	return r.ID, r
}

func readJournal(t *testing.T, p pinEnv, key any) store.JournalRecord {
	t.Helper()
	for _, r := range journalOf(t, p.st, p.ten.OrgID, p.ten.ServerID, store.JournalFilter{}) {
		if r.ID == key.(uuid.UUID) {
			return r
		}
	}
	require.Failf(t, "journal record not found", "%s", key)
	return store.JournalRecord{}
}

func writeTask(t *testing.T, p pinEnv) (any, store.Task) {
	t.Helper()
	x := store.Task{ID: taskID(), OrgID: p.ten.OrgID, ServerID: p.ten.ServerID, Tool: "tool", Scenario: "slow",
		Script: golden.Filled[json.RawMessage](t), Arguments: golden.Filled[json.RawMessage](t), CreatedAt: time.Now(),
		Answers: golden.Filled[json.RawMessage](t), EndedPayload: golden.Filled[json.RawMessage](t)}
	require.NoError(t, p.st.CreateTask(p.ctx, x))
	now := time.Now()
	require.NoError(t, p.st.AnswerTask(p.ctx, x.OrgID, x.ServerID, x.ID, x.Answers, &now, now))
	ended, err := p.st.EndTask(p.ctx, x.OrgID, x.ServerID, x.ID, store.TaskCompleted, now, x.EndedPayload)
	require.NoError(t, err)
	require.True(t, ended)
	return x.ID, x
}

func readTask(t *testing.T, p pinEnv, key any) store.Task {
	t.Helper()
	x, err := p.st.GetTask(p.ctx, p.ten.OrgID, p.ten.ServerID, key.(string))
	require.NoError(t, err)
	return x
}

func writeA2ATask(t *testing.T, p pinEnv) (any, store.A2ATask) {
	t.Helper()
	x := store.A2ATask{ID: uuid.New(), OrgID: p.ten.OrgID, CardID: p.ten.CardID, ContextID: "ctx", Reply: "slow",
		Script: golden.Filled[json.RawMessage](t), History: json.RawMessage(`[` + string(golden.Filled[json.RawMessage](t)) + `]`),
		CreatedAt: time.Now()}
	require.NoError(t, p.st.CreateA2ATask(p.ctx, x))
	return x.ID, x
}

func readA2ATask(t *testing.T, p pinEnv, key any) store.A2ATask {
	t.Helper()
	x, err := p.st.A2ATask(p.ctx, p.ten.OrgID, p.ten.CardID, key.(uuid.UUID))
	require.NoError(t, err)
	return x
}

// keyColumn is the column that keys a pinned table's rows: id, but for
// the live state, kept one row per server.
func keyColumn(table string) string {
	switch table {
	case "mcp_server_state":
		return "server_id"
	case "a2a_context_state":
		return "context_id"
	}
	return "id"
}

func writeContextState(t *testing.T, p pinEnv) (any, store.LiveState) {
	t.Helper()
	x := store.LiveState{State: golden.Filled[json.RawMessage](t)}
	out, err := p.st.ChangeA2AContextState(p.ctx, p.ten.OrgID, p.ten.CardID, "pinned", mockspec.StateChange{Sets: x.State})
	require.NoError(t, err)
	x.Version = out.Version
	return "pinned", x
}

func readContextState(t *testing.T, p pinEnv, key any) store.LiveState {
	t.Helper()
	x, err := p.st.A2AContextState(p.ctx, p.ten.OrgID, p.ten.CardID, key.(string))
	require.NoError(t, err)
	return x
}

func writeLiveState(t *testing.T, p pinEnv) (any, store.LiveState) {
	t.Helper()
	x := store.LiveState{State: golden.Filled[json.RawMessage](t)}
	p.inTx(t, func(tx *store.Tx) error { return errOf(tx.ReplaceLiveState(p.ctx, p.ten.ServerID, x.State)) })
	return p.ten.ServerID, x
}

func readLiveState(t *testing.T, p pinEnv, key any) store.LiveState {
	t.Helper()
	x, err := p.st.LiveState(p.ctx, p.ten.OrgID, key.(uuid.UUID))
	require.NoError(t, err)
	return x
}
