// Command mockmcp serves mock MCP servers designed through its REST API,
// and is the command line of that API.
//
//	mockmcp [serve]            migrate the database and serve (the default)
//	mockmcp migrate            create the database when missing and apply migrations
//	mockmcp version            print the version, commit and date (also --version)
//	mockmcp keys create|list|revoke --org SLUG ...
//	                           manage an organization's platform API keys (database)
//	mockmcp import openapi <file|url>, import mcp <url>
//	                           import a design (REST API)
//	mockmcp export SERVER      print a design as YAML or JSON (REST API)
//	mockmcp apply -f FILE|DIR  create or update designs from files (REST API)
//	mockmcp test run --suite <id|name>
//	                           run a test suite on a running service (REST API)
//	mockmcp servers list       list the servers: name, id, enabled, endpoint (REST API)
//	mockmcp journal SERVER     print the calls a server received (REST API)
//	mockmcp verify SERVER --tool T
//	                           check that a tool was called; exit status 1 when not (REST API)
//
// A SERVER argument is a server's id or its exact name.
//
// `mockmcp help CMD` and `mockmcp CMD --help` describe each command; they
// never touch the database or the service. The exit statuses are in exit.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/embeddedpg"
	"github.com/mockmcp/mockmcp/internal/gctune"
	"github.com/mockmcp/mockmcp/internal/logline"
	"github.com/mockmcp/mockmcp/internal/service"
)

// stdout and stderr receive command output; tests replace them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

func main() {
	// As root, the embedded PostgreSQL is started by this executable run
	// again as its helper (which drops to an unprivileged user).
	embeddedpg.RunHelper()
	err := run(os.Args[1:])
	var logged loggedError
	if err != nil && !errors.As(err, &logged) {
		fmt.Fprintln(os.Stderr, "mockmcp:", err)
		var usage usageError
		if errors.As(err, &usage) {
			fmt.Fprintln(os.Stderr, "Run 'mockmcp --help' or 'mockmcp help COMMAND' for usage.")
		}
	}
	os.Exit(exitCode(err))
}

// run runs one command line. Its error decides the exit status (exitCode):
// an error cobra returns before any command runs (an unknown command or
// flag, a missing argument) is a usageError.
func run(args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	err := root.ExecuteContext(ctx)
	var usage usageError
	if err != nil && !started && !errors.As(err, &usage) {
		err = usageError{err}
	}
	return err
}

// newRoot builds the command tree. Nothing here reads the environment or
// opens a connection: only a command's RunE does, so --help and mistyped
// command lines have no side effects.
func newRoot() *cobra.Command {
	var dataDir string
	root := &cobra.Command{
		Use:   "mockmcp",
		Short: "Mock MCP servers: the service and its command line",
		Long: `mockmcp serves mock MCP servers designed through its REST API, and is the
command line of that API.

With no command it serves (as 'mockmcp serve'). Commands that act on designs (import,
export, apply, drift, test run, servers, journal, verify) call the REST API of a running
service: $` + envURL + ` (default ` + defaultURL + `) with the full-scope platform API key
$` + envAPIKey + `. A SERVER argument is a server's id or its exact name.

Exit status: 0 success; 1 a check failed (a failed test, drift, a call not verified) or another
error; 2 a usage error (unknown command or flag, missing argument); 3 the service or database
could not be reached.`,
		Version:       service.VersionLine(),
		Args:          noArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serve(cmd.Context(), "", dataDir, listenFlags{})
		},
	}
	dataDirFlag(root, &dataDir)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.SetHelpCommand(helpCommand(root))
	root.AddCommand(serveCommand(), migrateCommand(), versionCommand(), keysCommand(), importCommand(),
		exportCommand(), applyCommand(), testCommand(), driftCommand(), serversCommand(), journalCommand(),
		verifyCommand())
	visit(root, func(c *cobra.Command) {
		// A usage line that names its flags needs no "[flags]" after them.
		c.DisableFlagsInUseLine = strings.Contains(c.Use, " -")
	})
	return root
}

// visit calls fn on cmd and every command under it.
func visit(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		visit(c, fn)
	}
}

// noArgs refuses arguments, naming the unknown command when cmd has
// subcommands.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		return unknownCommand(cmd, args[0])
	}
	return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
}

// unknownCommand is the usage error for an unknown subcommand of cmd,
// with the near misses.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return usageError{errors.New(msg)}
}

// group is a command that only holds subcommands: run bare or with an
// unknown subcommand it is a usage error (cobra would print the help and
// succeed).
func group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	// `keys mint --org x` is an unknown command, not an unknown flag.
	cmd.FParseErrWhitelist.UnknownFlags = true
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("%s needs a command: %s", cmd.CommandPath(), subcommandNames(cmd))
		}
		return unknownCommand(cmd, args[0])
	}
	return cmd
}

func subcommandNames(cmd *cobra.Command) string {
	var s string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			if s != "" {
				s += ", "
			}
			s += c.Name()
		}
	}
	return s
}

// helpCommand is `mockmcp help [COMMAND]`; an unknown topic is a usage
// error.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]...",
		Short: "Describe a command",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return usagef("no help for %q: unknown command", args)
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// exactArgs is cobra.ExactArgs as a usage error naming what is expected.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s, got %d argument(s)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func serveCommand() *cobra.Command {
	var (
		designs, dataDir string
		addrs            listenFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Create and migrate the database if needed, then serve (the default command)",
		Long: `Create the database named in DATABASE_URL when it does not exist, apply the migrations,
and serve the REST API and the MCP endpoints on LISTEN_ADDR (default :8080) until SIGTERM or
SIGINT, and the Prometheus metrics on METRICS_ADDR (default 127.0.0.1:9091; empty for none).
--listen and --metrics-listen, when given, win over LISTEN_ADDR and METRICS_ADDR.
Without DATABASE_URL an embedded PostgreSQL is started, its data in --data-dir
(MOCKMCP_DATA_DIR, default $XDG_STATE_HOME/mockmcp or ~/.local/state/mockmcp), and stopped with
the service. A banner on stdout says where everything is; logs are JSON lines on stderr. The
README's configuration table lists the variables.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := addrs.read(cmd); err != nil {
				return err
			}
			return serve(cmd.Context(), designs, dataDir, addrs)
		},
	}
	cmd.Flags().StringVar(&designs, "designs", "", "a directory of design files to serve (default $MOCKMCP_DESIGNS)")
	addrs.add(cmd)
	dataDirFlag(cmd, &dataDir)
	return cmd
}

// serve runs the service; designs, when not empty, overrides
// MOCKMCP_DESIGNS, dataDir MOCKMCP_DATA_DIR, and addrs the listen
// addresses.
func serve(ctx context.Context, designs, dataDir string, addrs listenFlags) error {
	cfg, err := serveConfig(designs)
	if err != nil {
		return fatal(logline.New(stderr, slog.LevelInfo), err)
	}
	addrs.apply(&cfg)
	log := serviceLogger(cfg)
	stopDB, err := useDatabase(&cfg, dataDir, log)
	if err != nil {
		return fatal(log, err)
	}
	// Stopped last: the service's Close writes to it.
	defer stopDB()
	if gctune.Enabled() {
		defer gctune.Start(uint64(cfg.GCHeadroom)).Stop()
	}
	svc, err := service.New(ctx, cfg, log)
	if err != nil {
		return fatal(log, err)
	}
	defer svc.Close()
	svc.SetOutput(stdout)
	if err := svc.Listen(); err != nil {
		return fatal(log, err)
	}
	printBanner(stdout, cfg, svc)
	return fatal(log, svc.Run(ctx))
}

// serviceLogger is the JSON logger of serve and migrate on stderr, made
// the process's default so that the standard library's log package writes
// JSON lines too.
func serviceLogger(cfg config.Config) *slog.Logger {
	log := logline.New(stderr, cfg.LogLevel)
	logline.Install(log)
	return log
}

// serveConfig is the configuration from the environment, with the
// designs directory of --designs when given.
func serveConfig(designs string) (config.Config, error) {
	cfg, err := config.FromEnv()
	if err == nil && designs != "" {
		cfg.Designs = designs
	}
	return cfg, err
}

// fatal writes err to log and marks it as written.
func fatal(log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	log.Error("mockmcp stopped", "error", err.Error())
	return loggedError{err}
}

func migrateCommand() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Create the database if needed and apply the migrations, without serving",
		Long: `Create the database named in DATABASE_URL when it does not exist and apply the
migrations. Several instances may migrate at once: one does, the others wait. Without
DATABASE_URL, the embedded PostgreSQL's (see 'mockmcp help serve').`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.FromEnv()
			if err != nil {
				return fatal(logline.New(stderr, slog.LevelInfo), err)
			}
			log := serviceLogger(cfg)
			stopDB, err := useDatabase(&cfg, dataDir, log)
			if err != nil {
				return fatal(log, err)
			}
			defer stopDB()
			return fatal(log, service.Prepare(cmd.Context(), cfg, log))
		},
	}
	dataDirFlag(cmd, &dataDir)
	return cmd
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version (with the commit and its date when the build is stamped)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), service.VersionLine())
			return err
		},
	}
}
