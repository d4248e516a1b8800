// Command mockmcp serves mock MCP servers designed through its REST API.
//
//	mockmcp [serve]   migrate the database and serve (the default)
//	mockmcp migrate   create the database when missing and apply migrations
//	mockmcp version   print the version
//
// Configuration comes from the environment; see the README.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mockmcp:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "version" {
		fmt.Println(service.Version)
		return nil
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
	case "serve":
		svc, err := service.New(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer svc.Close()
		return svc.Run(ctx)
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate or version)", cmd)
	}
}
