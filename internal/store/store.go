// Package store is the one adapter over the generated sqlc queries (gen/db):
// it runs every tenant transaction under the row-level-security role with the
// organization set, converts rows into the domain types of this package, and
// maps database errors to the failure vocabulary in one place.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// AppRole is the role every tenant transaction runs under. The migrations
// create it NOLOGIN NOSUPERUSER NOBYPASSRLS, so row-level security always
// applies to it, whoever the connecting user is.
const AppRole = "mockmcp_app"

// Store runs queries against one PostgreSQL database. It keeps the pool and
// the transaction and row-level-security plumbing (WithTx, InOrg, Listen);
// what it does outside a tenant transaction is done by its parts, one per
// area, each in its own file, whose methods are promoted to Store: the
// call journal, the policy audit, MCP tasks, A2A tasks, OAuth, served designs and
// their live state. A
// caller that needs one area only can hold that part alone.
type Store struct {
	*conn
	Audit
	Designs
	Journal
	OAuth
	States
	Tasks
	A2ATasks
}

// conn is what the Store and each of its parts share: the pool and the
// generated queries.
type conn struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

// New wraps an open pool.
func New(pool *pgxpool.Pool) *Store {
	c := &conn{pool: pool, q: db.New()}
	return &Store{conn: c, Audit: Audit{c}, Designs: Designs{c}, Journal: Journal{c}, OAuth: OAuth{c}, States: States{c}, Tasks: Tasks{c}, A2ATasks: A2ATasks{c}}
}

// DefaultConnectTimeout bounds a connection attempt when DATABASE_URL sets
// no connect_timeout.
const DefaultConnectTimeout = 5 * time.Second

// Open connects a pool to dsn and checks that it answers.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// Without a bound a connection attempt to an unreachable host waits
		// for the operating system to give up, minutes later; requests then
		// wait too instead of being told the database is unavailable.
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	return New(pool), nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Pool exposes the pool to tests that inspect the database directly.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Scope says for whom a transaction works. Row-level security policies read
// these values from transaction-local settings; an empty value sees nothing
// through the policy that uses it.
type Scope struct {
	OrgID  uuid.UUID // app.org_id: the organization whose data is visible
	UserID uuid.UUID // app.user_id: the signed-in user
	// SessionHash (app.session_hash) reveals only the session whose token
	// hashes to it: a caller must already hold the token.
	SessionHash string
	// LookupEmail (app.login_email) reveals only the account with that
	// e-mail, for login and for adding a member by e-mail.
	LookupEmail string
	// PublicServerID (app.public_server_id) reveals only that server, and
	// only while it is enabled: the MCP endpoint's look-up by URL.
	PublicServerID uuid.UUID
	// KeyHash (app.key_hash) reveals only the API key whose raw value hashes
	// to it: a caller must already hold the key.
	KeyHash string
	// OrgSlug (app.org_slug) reveals only the organization with that slug,
	// for operator commands that name an organization by slug.
	OrgSlug string
	// AuditAppend (app.audit_append) lets the transaction append policy
	// audit records, which it can neither read back nor change.
	AuditAppend bool
	// JournalAppend (app.journal_append) lets the transaction append call
	// journal records, which it can neither read back nor change.
	JournalAppend bool
	// JournalPrune (app.journal_prune) lets the transaction read and delete
	// the call journal of every organization, and nothing else: retention.
	JournalPrune bool
	// TaskSweep (app.task_sweep) lets the transaction read and delete the
	// MCP tasks of every organization, and nothing else: the sweep of
	// expired tasks.
	TaskSweep bool
	// Exchange (app.exchange) reveals published agent cards of every
	// organization and the organizations that publish them, read-only: the
	// public exchange. Set it alone.
	Exchange bool
}

// Tx is one tenant transaction. Its methods come from its parts, one per
// area, each in its own file, whose methods are promoted to Tx; a function
// that needs one area only can take that part alone (tx.KeysTx).
type Tx struct {
	*txConn
	AccountsTx
	AgentCardsTx
	AuditTx
	ComponentsTx
	DesignsTx
	ExploreTx
	JournalTx
	KeysTx
	OAuthTx
	RestTestsTx
	ServersTx
	StatesTx
	SuitesTx
	TasksTx
}

// txConn is what a transaction and each of its parts share.
type txConn struct {
	tx pgx.Tx
	q  *db.Queries
}

func newTx(tx pgx.Tx, q *db.Queries) *Tx {
	c := &txConn{tx: tx, q: q}
	return &Tx{txConn: c, AccountsTx: AccountsTx{c}, AgentCardsTx: AgentCardsTx{c}, AuditTx: AuditTx{c},
		ComponentsTx: ComponentsTx{c}, DesignsTx: DesignsTx{c}, ExploreTx: ExploreTx{c}, JournalTx: JournalTx{c},
		KeysTx: KeysTx{c}, OAuthTx: OAuthTx{c}, RestTestsTx: RestTestsTx{c}, ServersTx: ServersTx{c},
		StatesTx: StatesTx{c}, SuitesTx: SuitesTx{c}, TasksTx: TasksTx{c}}
}

// WithTx runs fn in one transaction under the application role with scope
// set, commits when fn returns nil, and rolls back on every other path
// (including a panic, which it re-raises).
func (s *Store) WithTx(ctx context.Context, scope Scope, fn func(*Tx) error) error {
	return s.inTx(ctx, scope, fn)
}

// inTx is WithTx, for the parts of the Store.
func (s *conn) inTx(ctx context.Context, scope Scope, fn func(*Tx) error) error {
	return mapError(s.withTx(ctx, scope, fn))
}

func (s *conn) withTx(ctx context.Context, scope Scope, fn func(*Tx) error) (err error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err = tx.Exec(ctx, `SELECT set_config('app.org_id', $1, true), set_config('app.user_id', $2, true),
		set_config('app.session_hash', $3, true), set_config('app.login_email', lower($4), true),
		set_config('app.public_server_id', $5, true), set_config('app.key_hash', $6, true),
		set_config('app.org_slug', $7, true), set_config('app.audit_append', $8, true),
		set_config('app.exchange', $9, true), set_config('app.journal_append', $10, true),
		set_config('app.journal_prune', $11, true), set_config('app.task_sweep', $12, true)`,
		uuidText(scope.OrgID), uuidText(scope.UserID), scope.SessionHash, scope.LookupEmail,
		uuidText(scope.PublicServerID), scope.KeyHash, scope.OrgSlug, onOff(scope.AuditAppend),
		onOff(scope.Exchange), onOff(scope.JournalAppend), onOff(scope.JournalPrune), onOff(scope.TaskSweep)); err != nil {
		return fmt.Errorf("set scope: %w", err)
	}
	if _, err = tx.Exec(ctx, "SET LOCAL ROLE "+AppRole); err != nil {
		return fmt.Errorf("set role: %w", err)
	}
	if err = fn(newTx(tx, s.q)); err != nil {
		return err
	}
	if err = tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// SetOrg switches the transaction to another organization, once the caller's
// right to it has been established inside the same transaction.
func (t *txConn) SetOrg(ctx context.Context, org uuid.UUID) error {
	_, err := t.tx.Exec(ctx, `SELECT set_config('app.org_id', $1, true)`, uuidText(org))
	return err
}

// savepoint runs fn in a nested transaction so that an expected failure (a
// unique violation while trying a slug) does not abort the outer one.
func (t *txConn) savepoint(ctx context.Context, fn func(pgx.Tx) error) error {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(sp); err != nil {
		_ = sp.Rollback(ctx)
		return err
	}
	return sp.Commit(ctx)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return ""
}

func uuidText(id uuid.UUID) string {
	if id == uuid.Nil {
		return ""
	}
	return id.String()
}

// mapError turns database errors into failures in one place. Failures pass
// through; a database that cannot be reached is unavailable (503); an
// unknown error stays as it is and becomes a 500 upstream.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := failure.As(err); ok {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return failure.ErrNotFound
	}
	if unreachable(err) {
		return failure.Unavailable(err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return failure.Conflict("%s", conflictDetail(pgErr.ConstraintName))
		case "23503":
			return failure.NotFound("referenced object")
		case "22021", "22P05": // character_not_in_repertoire, untranslatable_character
			return failure.Invalid(failure.Field("body", "text must not contain the NUL character (U+0000)"))
		}
	}
	return err
}

// conflictDetail names the clash a unique constraint reports.
func conflictDetail(constraint string) string {
	switch constraint {
	case "mcp_servers_pkey":
		return "a server with this id already exists"
	case "users_email_key":
		return "an account with this e-mail already exists"
	case "organizations_slug_key":
		return "an organization with this slug already exists"
	case "mcp_tools_server_id_name_key":
		return "a tool with this name already exists on this server"
	case "mcp_resources_server_id_uri_key":
		return "a resource with this URI already exists on this server"
	case "mcp_prompts_server_id_name_key":
		return "a prompt with this name already exists on this server"
	case "api_keys_key_hash_key":
		return "a key with this hash already exists"
	case "agent_cards_org_name_key":
		return "an agent card with this name already exists in the organization"
	case "rest_suites_org_name_key":
		return "a suite with this name already exists in the organization"
	case "organization_members_pkey":
		return "the user is already a member of this organization"
	}
	return "the object already exists"
}

func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}

// SetUser sets the transaction's signed-in user, once the session that names
// them has been found inside the same transaction.
func (t *txConn) SetUser(ctx context.Context, user uuid.UUID) error {
	_, err := t.tx.Exec(ctx, `SELECT set_config('app.user_id', $1, true)`, uuidText(user))
	return err
}

// IsConflict reports whether err, returned inside a transaction, is a
// unique violation: the object already exists.
func IsConflict(err error) bool {
	return failure.Is(mapError(err), failure.ErrConflict)
}
