package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/mockmcp/mockmcp/internal/readiness"
	"github.com/mockmcp/mockmcp/schema"
)

// Migrate applies the embedded migrations to the database at dsn, as the
// user dsn names. goose's session locker (a PostgreSQL advisory lock) lets
// several instances start at once: one migrates, the others wait.
func Migrate(ctx context.Context, dsn string, log *slog.Logger) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	sqlDB := stdlib.OpenDB(*cfg)
	defer sqlDB.Close()
	return migrateDB(ctx, sqlDB, log)
}

func migrateDB(ctx context.Context, sqlDB *sql.DB, log *slog.Logger) error {
	// goose retries the lock every 5 s by default: an instance that starts
	// beside the one migrating would stay idle for up to 5 s after the
	// migrations end. Retrying every second keeps the same 5-minute bound.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return err
	}
	p, err := provider(sqlDB, goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range results {
		// The log handler writes the duration as duration_ms.
		log.Info("migration applied", "version", r.Source.Version, "duration", r.Duration)
	}
	return nil
}

// provider is goose over the embedded migrations. It logs nothing itself
// (not verbose): Migrate logs what it applied.
func provider(sqlDB *sql.DB, opts ...goose.ProviderOption) (*goose.Provider, error) {
	migrations, err := fs.Sub(schema.Migrations, ".")
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// CheckMigrations reports whether the database's schema is at least this
// build's latest migration: nil when it is, else an error naming both
// versions. It does not take the migration lock, so it answers while
// another instance migrates. A newer schema passes: during a rolling
// upgrade the new instances migrate first, and the old ones keep serving
// until they are replaced.
func (s *Store) CheckMigrations(ctx context.Context) error {
	sqlDB := stdlib.OpenDBFromPool(s.pool)
	defer sqlDB.Close()
	p, err := provider(sqlDB)
	if err != nil {
		return err
	}
	current, latest, err := p.GetVersions(ctx)
	if err != nil {
		return readiness.Fail("schema version unknown", err)
	}
	if current < latest {
		return fmt.Errorf("pending: the database is at version %d, this build's latest migration is %d", current, latest)
	}
	return nil
}

// EnsureDatabase creates the database dsn names when it does not exist yet,
// connecting to the server's maintenance database to do so. It lets a fresh
// machine go from nothing to a served instance with one command.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return conn.Close(ctx)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		return fmt.Errorf("connect to the database: %w", err)
	}
	name := cfg.Database
	admin := cfg.Copy()
	admin.Database = "postgres"
	aconn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("database %q does not exist and the server's postgres database is unreachable: %w", name, err)
	}
	defer aconn.Close(ctx)
	if _, err := aconn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: another instance won
			return nil
		}
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}
