// Package testdb gives each test its own migrated PostgreSQL database,
// cloned from a template that is migrated once per set of migrations. Tests
// run against a real server: TEST_DATABASE_URL names an administrative
// connection to it (default: the local postgres superuser).
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/schema"
)

// AdminURL is the administrative connection tests create databases with.
func AdminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// New creates a fresh migrated database for t, dropped when t ends, and
// returns its URL.
func New(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(ctx) })
	if templateErr != nil {
		t.Fatalf("test database template: %v", templateErr)
	}
	name := "mockmcp_test_" + randomHex(6)
	conn := adminConn(t, ctx)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, templateName)); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	dropWhenDone(t, name)
	return WithDatabase(AdminURL(), name)
}

// Empty creates an empty database (no migrations) for t, dropped when t ends.
func Empty(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := "mockmcp_test_" + randomHex(6)
	conn := adminConn(t, ctx)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	dropWhenDone(t, name)
	return WithDatabase(AdminURL(), name)
}

// Missing returns the URL of a database that does not exist yet, dropped
// when t ends if something created it.
func Missing(t testing.TB) string {
	t.Helper()
	name := "mockmcp_test_" + randomHex(6)
	dropWhenDone(t, name)
	return WithDatabase(AdminURL(), name)
}

func dropWhenDone(t testing.TB, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			t.Logf("drop test database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
}

// Store opens a store on a fresh database for t, closed when t ends.
func Store(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), New(t))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}

// WithDatabase returns dsn pointing at database name.
func WithDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

// ensureTemplate migrates a template database named after the migrations'
// content, once per set of migrations, safely across concurrent test
// processes: it is built under a temporary name and renamed when complete.
func ensureTemplate(ctx context.Context) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "mockmcp_tpl_" + sum
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", AdminURL(), err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	tmp := name + "_build_" + randomHex(4)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+tmp); err != nil {
		return "", err
	}
	if err := store.Migrate(ctx, WithDatabase(AdminURL(), tmp), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+tmp+" WITH (FORCE)")
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", tmp, name)); err != nil {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+tmp+" WITH (FORCE)")
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // another process finished first
			return name, nil
		}
		return "", err
	}
	return name, nil
}

func migrationsHash() (string, error) {
	entries, err := fs.ReadDir(schema.Migrations, ".")
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(schema.Migrations, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func adminConn(t testing.TB, ctx context.Context) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("connect to %s: %v", AdminURL(), err)
	}
	return conn
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
