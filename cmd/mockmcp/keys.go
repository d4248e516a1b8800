package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/store"
)

const keysUsage = `usage:
  mockmcp keys create --org SLUG --name NAME [--bind SERVER_ID]... [--expires RFC3339]
      prints the raw key (shown this once) on standard output
  mockmcp keys list --org SLUG
  mockmcp keys revoke --org SLUG KEY_ID`

// keysCommand runs `mockmcp keys ...`: key management for scripted setup,
// against the database directly, with the organization named by slug.
func keysCommand(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(keysUsage)
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	org := fs.String("org", "", "organization slug")
	name := fs.String("name", "", "key name")
	expires := fs.String("expires", "", "expiry time, RFC 3339")
	var bind uuidList
	fs.Var(&bind, "bind", "server id to bind the key to (repeatable); binding gives scope policy")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%v\n%s", err, keysUsage)
	}
	if *org == "" {
		return fmt.Errorf("--org is required\n%s", keysUsage)
	}

	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	inOrg := func(fn func(*store.Tx) error) error {
		return st.WithTx(ctx, store.Scope{OrgSlug: *org}, func(tx *store.Tx) error {
			o, err := tx.OrganizationBySlug(ctx, *org)
			if err != nil {
				return fmt.Errorf("no organization with slug %q", *org)
			}
			if err := tx.SetOrg(ctx, o.ID); err != nil {
				return err
			}
			return fn(tx)
		})
	}

	switch args[0] {
	case "create":
		n := keys.NewKey{Name: *name, Bound: bind, CreatedBy: operator(), BoundField: "--bind"}
		if *expires != "" {
			t, err := time.Parse(time.RFC3339, *expires)
			if err != nil {
				return fmt.Errorf("--expires: want an RFC 3339 time such as 2027-01-31T00:00:00Z: %v", err)
			}
			n.ExpiresAt = &t
		}
		var raw string
		err := inOrg(func(tx *store.Tx) (err error) {
			_, raw, err = keys.Create(ctx, tx, n)
			return err
		})
		if err != nil {
			return describe(err)
		}
		_, err = fmt.Fprintln(out, raw)
		return err
	case "list":
		var ks []store.Key
		if err := inOrg(func(tx *store.Tx) (err error) { ks, err = tx.Keys(ctx); return err }); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tBOUND\tCREATED\tEXPIRES\tLAST USED")
		for _, k := range ks {
			bound := make([]string, len(k.BoundAssetIDs))
			for i, id := range k.BoundAssetIDs {
				bound[i] = id.String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Scope, or(strings.Join(bound, ","), "-"),
				k.CreatedAt.UTC().Format(time.RFC3339), timeOr(k.ExpiresAt), timeOr(k.LastUsedAt))
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return fmt.Errorf("revoke takes one KEY_ID\n%s", keysUsage)
		}
		id, err := uuid.Parse(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("KEY_ID %q is not a UUID", fs.Arg(0))
		}
		if err := inOrg(func(tx *store.Tx) error { return tx.DeleteKey(ctx, id) }); err != nil {
			return describe(err)
		}
		_, err = fmt.Fprintln(out, "revoked", id)
		return err
	default:
		return fmt.Errorf("unknown keys command %q\n%s", args[0], keysUsage)
	}
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

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type uuidList []uuid.UUID

func (l *uuidList) String() string { return fmt.Sprint([]uuid.UUID(*l)) }

func (l *uuidList) Set(s string) error {
	id, err := uuid.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a server id (UUID)", s)
	}
	*l = append(*l, id)
	return nil
}
