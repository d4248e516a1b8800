// Command mockmcp serves mock MCP servers designed through its REST API.
//
//	mockmcp [serve]   migrate the database and serve (the default)
//	mockmcp migrate   create the database when missing and apply migrations
//	mockmcp version   print the version
//	mockmcp keys create|list|revoke --org SLUG ...
//	                  manage an organization's platform API keys
//	mockmcp import openapi <file|url> --org SLUG [--name NAME]
//	                  import an OpenAPI or Swagger document as a draft server
//	mockmcp test run --suite <id|name> [--junit out.xml]
//	                  run a test suite on a running service (for CI)
//
// Configuration comes from the environment; see the README.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

// stdout receives command output; tests replace it.
var stdout io.Writer = os.Stdout

func main() {
	if err := run(os.Args[1:]); err != nil {
		var logged loggedError
		if !errors.As(err, &logged) {
			fmt.Fprintln(os.Stderr, "mockmcp:", err)
		}
		os.Exit(1)
	}
}

// loggedError is an error already written to the JSON log, which main does
// not print again: the stderr of a serving instance holds JSON lines only.
type loggedError struct{ error }

func (e loggedError) Unwrap() error { return e.error }

// fatal writes err to log and marks it as written.
func fatal(log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	log.Error("mockmcp stopped", "error", err.Error())
	return loggedError{err}
}

func run(args []string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "version" {
		fmt.Fprintln(stdout, service.Version)
		return nil
	}
	if cmd == "test" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return testCommand(ctx, args[1:], stdout)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch cmd {
	case "migrate":
		return service.Prepare(ctx, cfg, log)
	case "keys":
		if err := service.Prepare(ctx, cfg, log); err != nil {
			return err
		}
		return keysCommand(ctx, cfg, args[1:], stdout)
	case "import":
		if err := service.Prepare(ctx, cfg, log); err != nil {
			return err
		}
		return importCommand(ctx, cfg, args[1:], stdout)
	case "serve":
		svc, err := service.New(ctx, cfg, log)
		if err != nil {
			return fatal(log, err)
		}
		defer svc.Close()
		return fatal(log, svc.Run(ctx))
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate, keys, import, test or version)", cmd)
	}
}
