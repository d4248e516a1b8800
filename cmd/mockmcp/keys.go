package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/logline"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/store"
)

// keysCommand is `mockmcp keys ...`: key management for scripted setup,
// against the database directly, with the organization named by slug. The
// REST routes of keys take a signed-in user only (a key cannot mint keys),
// so these commands are how a pipeline gets its first key.
func keysCommand() *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke an organization's platform API keys (database)",
		Long: `Manage an organization's platform API keys, named by the organization's slug, directly in
the database named in DATABASE_URL: this is how a setup script gets the key that the REST
commands (import, export, apply, test run) need. 'keys create' also creates and migrates
the database when needed. Without DATABASE_URL they use the embedded PostgreSQL of
--data-dir (see 'mockmcp help serve'), the one a running 'mockmcp serve' uses.`,
	})
	var org, dataDir string
	orgFlag := func(c *cobra.Command) {
		c.Flags().StringVar(&org, "org", "", "the organization's slug (required)")
		dataDirFlag(c, &dataDir)
	}
	var (
		name, expires string
		bind          []string
	)
	create := &cobra.Command{
		Use:   "create --org SLUG --name NAME [--bind SERVER]... [--expires RFC3339]",
		Short: "Create a key and print it (shown this once) on standard output",
		Long: `Create a key and print the raw key, alone, on standard output: it is shown this once.
Without --bind the key has full scope (the REST API of its organization); with --bind it
has policy scope, bound to those servers (the policy routes only), each named by its id or
its exact name.`,
		Example: `  KEY=$(mockmcp keys create --org acme-labs --name ci)`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if org == "" {
				return usagef("--org is required")
			}
			n := keys.NewKey{Name: name, CreatedBy: operator(), BoundField: "--bind"}
			if expires != "" {
				t, err := time.Parse(time.RFC3339, expires)
				if err != nil {
					return usagef("--expires: want an RFC 3339 time such as 2027-01-31T00:00:00Z: %v", err)
				}
				n.ExpiresAt = &t
			}
			ctx := cmd.Context()
			cfg, stopDB, err := keysConfig(dataDir)
			if err != nil {
				return err
			}
			defer stopDB()
			if err := service.Prepare(ctx, cfg, logline.New(stderr, cfg.LogLevel)); err != nil {
				return err
			}
			var raw string
			err = inOrg(ctx, cfg, org, func(tx *store.Tx) (err error) {
				if n.Bound, err = boundServers(ctx, tx, bind); err != nil {
					return err
				}
				_, raw, err = keys.Create(ctx, tx, n)
				return err
			})
			if err != nil {
				return describe(err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), raw)
			return err
		},
	}
	orgFlag(create)
	create.Flags().StringVar(&name, "name", "", "the key's name")
	create.Flags().StringVar(&expires, "expires", "", "expiry time, RFC 3339 (default: never)")
	create.Flags().StringArrayVar(&bind, "bind", nil, "a server (id or name) to bind the key to (repeatable); binding gives policy scope")

	list := &cobra.Command{
		Use:   "list --org SLUG",
		Short: "List the organization's keys (never a raw key or its hash)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if org == "" {
				return usagef("--org is required")
			}
			ctx := cmd.Context()
			cfg, stopDB, err := keysConfig(dataDir)
			if err != nil {
				return err
			}
			defer stopDB()
			var ks []store.Key
			if err := inOrg(ctx, cfg, org, func(tx *store.Tx) (err error) { ks, err = tx.Keys(ctx); return err }); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tBOUND\tCREATED\tEXPIRES\tLAST USED")
			for _, k := range ks {
				bound := make([]string, len(k.BoundAssetIDs))
				for i, id := range k.BoundAssetIDs {
					bound[i] = id.String()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Scope, cmp.Or(strings.Join(bound, ","), "-"),
					k.CreatedAt.UTC().Format(time.RFC3339), timeOr(k.ExpiresAt), timeOr(k.LastUsedAt))
			}
			return tw.Flush()
		},
	}
	orgFlag(list)

	revoke := &cobra.Command{
		Use:   "revoke --org SLUG KEY_ID",
		Short: "Revoke a key: every instance refuses it within a second",
		Args:  exactArgs(1, "one KEY_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if org == "" {
				return usagef("--org is required")
			}
			id, err := uuid.Parse(args[0])
			if err != nil {
				return usagef("KEY_ID %q is not a UUID", args[0])
			}
			ctx := cmd.Context()
			cfg, stopDB, err := keysConfig(dataDir)
			if err != nil {
				return err
			}
			defer stopDB()
			if err := inOrg(ctx, cfg, org, func(tx *store.Tx) error { return tx.DeleteKey(ctx, id) }); err != nil {
				return describe(err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "revoked", id)
			return err
		},
	}
	orgFlag(revoke)
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// keysConfig is the configuration of a keys command, with its database
// ready (useDatabase).
func keysConfig(dataDir string) (config.Config, func(), error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return config.Config{}, nil, err
	}
	stop, err := useDatabase(&cfg, dataDir, logline.New(stderr, cfg.LogLevel))
	return cfg, stop, err
}

// inOrg runs fn in a transaction of the organization named by slug.
func inOrg(ctx context.Context, cfg config.Config, slug string, fn func(*store.Tx) error) error {
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.WithTx(ctx, store.Scope{OrgSlug: slug}, func(tx *store.Tx) error {
		o, err := tx.OrganizationBySlug(ctx, slug)
		if err != nil {
			return fmt.Errorf("no organization with slug %q", slug)
		}
		if err := tx.SetOrg(ctx, o.ID); err != nil {
			return err
		}
		return fn(tx)
	})
}

// describe spells out a failure's fields for a terminal.
func describe(err error) error {
	f, ok := failure.As(err)
	if !ok || len(f.Fields) == 0 {
		return err
	}
	msgs := make([]string, len(f.Fields))
	for i, fe := range f.Fields {
		msgs[i] = fe.Field + ": " + fe.Message
	}
	return errors.New(strings.Join(msgs, "; "))
}

// operator names whoever runs the command, for the key's created_by.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "operator:" + u.Username
	}
	return "operator"
}

func timeOr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// boundServers resolves the servers of --bind in the organization of tx:
// a UUID is an id as it is (keys.Create says when there is no such
// server), other text a server's exact name.
func boundServers(ctx context.Context, tx *store.Tx, servers []string) ([]uuid.UUID, error) {
	var (
		ids []uuid.UUID
		all []named // read once, at the first name
	)
	for _, s := range servers {
		if id, err := uuid.Parse(s); err == nil {
			ids = append(ids, id)
			continue
		}
		if all == nil {
			var err error
			if all, err = serversOf(ctx, tx); err != nil {
				return nil, err
			}
		}
		id, err := pickByName(s, all)
		if err != nil {
			return nil, fmt.Errorf("--bind: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// serversOf is every server of the organization of tx, by id and name.
func serversOf(ctx context.Context, tx *store.Tx) ([]named, error) {
	all := []named{}
	var after *store.PageKey
	for {
		page, err := tx.Servers(ctx, after, 500)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Servers {
			all = append(all, named{s.ID, s.Name})
		}
		if page.Next == nil {
			return all, nil
		}
		after = page.Next
	}
}
