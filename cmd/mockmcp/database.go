package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/docpage"
	"github.com/mockmcp/mockmcp/internal/embeddedpg"
	"github.com/mockmcp/mockmcp/internal/service"
)

// dataDirFlag adds --data-dir, the embedded database's directory, to cmd.
func dataDirFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "data-dir", "",
		"where the embedded PostgreSQL keeps its data when DATABASE_URL is not set (default $MOCKMCP_DATA_DIR, else $XDG_STATE_HOME/mockmcp or ~/.local/state/mockmcp)")
}

// useDatabase readies the database of cfg for a command that works on it.
// With DATABASE_URL set nothing happens. Without it the embedded
// PostgreSQL starts in dataDir (--data-dir, else MOCKMCP_DATA_DIR, else
// the state directory), or the one another mockmcp runs there is used,
// and cfg.DatabaseURL points at it; stop stops it.
func useDatabase(cfg *config.Config, dataDir string, log *slog.Logger) (stop func(), err error) {
	if !cfg.EmbeddedDatabase {
		return func() {}, nil
	}
	if dataDir != "" {
		cfg.DataDir = dataDir
	}
	if cfg.DataDir == "" {
		if cfg.DataDir, err = embeddedpg.DefaultDir(os.Getenv); err != nil {
			return nil, err
		}
	}
	log.Info("starting the embedded database", "dir", cfg.DataDir, "binaries", cfg.PostgresBinaries)
	db, err := embeddedpg.Start(embeddedpg.Options{
		Dir: cfg.DataDir, Binaries: cfg.PostgresBinaries, Repository: cfg.PostgresRepository,
	})
	if err != nil {
		return nil, err
	}
	cfg.DataDir, cfg.DatabaseURL = db.Dir, db.URL
	log.Info("embedded database ready", "dir", db.Dir, "shared_with_another_mockmcp", db.Attached)
	return func() {
		if err := db.Stop(); err != nil {
			log.Error("stopping the embedded database", "error", err.Error())
		}
	}, nil
}

// printBanner writes what a person starting the service wants to know, in
// a few lines: where it listens, the console, the docs page, the metrics,
// the database. Local mode's `NAME  ENDPOINT` lines follow it.
func printBanner(w io.Writer, cfg config.Config, svc *service.Service) {
	var b strings.Builder
	fmt.Fprintf(&b, "mockmcp %s listening on %s\n", service.Version, svc.Addr())
	fmt.Fprintf(&b, "  console:   %s/\n", svc.BaseURL())
	fmt.Fprintf(&b, "  docs:      %s%s\n", svc.BaseURL(), docpage.Path)
	if m := svc.MetricsAddr(); m != "" {
		fmt.Fprintf(&b, "  metrics:   http://%s/metrics\n", m)
	} else {
		fmt.Fprintf(&b, "  metrics:   off (METRICS_ADDR is empty)\n")
	}
	if cfg.EmbeddedDatabase {
		fmt.Fprintf(&b, "  database:  embedded PostgreSQL, data in %s\n", cfg.DataDir)
	} else {
		fmt.Fprintf(&b, "  database:  DATABASE_URL\n")
	}
	if cfg.Designs != "" {
		fmt.Fprintf(&b, "  designs:   %s (each server's endpoint below)\n", cfg.Designs)
	}
	_, _ = io.WriteString(w, b.String())
}
