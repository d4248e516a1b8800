package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/oasimport"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/store"
)

const importUsage = "usage: mockmcp import openapi <file|url> --org SLUG [--name NAME]"

// importCommand runs `mockmcp import openapi`: it imports an OpenAPI or
// Swagger document from a file or a URL into a draft server of the
// organization named by slug, as POST /api/servers/import/openapi does.
func importCommand(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "openapi" {
		return errors.New(importUsage)
	}
	fs := flag.NewFlagSet("import openapi", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	org := fs.String("org", "", "organization slug")
	name := fs.String("name", "", "server name (default: the document's title)")
	// The document comes first, the flags after it, as the usage line shows.
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return errors.New(importUsage)
	}
	from := args[1]
	if err := fs.Parse(args[2:]); err != nil {
		return fmt.Errorf("%v\n%s", err, importUsage)
	}
	if *org == "" {
		return fmt.Errorf("--org is required\n%s", importUsage)
	}
	doc, url, err := readDocument(ctx, cfg, from)
	if err != nil {
		return err
	}
	res, err := oasimport.Import(ctx, doc, oasimport.Options{Name: *name})
	if err != nil {
		return describe(err)
	}
	sum := sha256.Sum256(doc)
	source, err := json.Marshal(map[string]any{"kind": "openapi", "url": url, "sha256": hex.EncodeToString(sum[:]),
		"format": res.Format, "title": res.Title, "imported_at": time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	res.Design.Server.Source = source
	if err := design.CheckServer(res.Design.Server); err != nil {
		return describe(err)
	}

	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	var srv store.Server
	err = st.WithTx(ctx, store.Scope{OrgSlug: *org}, func(tx *store.Tx) error {
		o, err := tx.OrganizationBySlug(ctx, *org)
		if err != nil {
			return fmt.Errorf("no organization with slug %q", *org)
		}
		if err := tx.SetOrg(ctx, o.ID); err != nil {
			return err
		}
		srv, err = tx.CreateDesign(ctx, res.Design, operator())
		return err
	})
	if err != nil {
		return describe(err)
	}
	fmt.Fprintf(out, "%s\t%s\t%d tools (draft; enable it with PATCH /api/servers/%s {\"enabled\": true})\n",
		srv.ID, srv.Name, len(res.Design.Tools), srv.ID)
	for _, w := range res.Warnings {
		fmt.Fprintln(out, "warning:", w)
	}
	return nil
}

// readDocument reads the document from a file, or fetches it from an
// http(s) URL under the outbound rules; url is nil for a file.
func readDocument(ctx context.Context, cfg config.Config, from string) ([]byte, any, error) {
	if !strings.HasPrefix(from, "http://") && !strings.HasPrefix(from, "https://") {
		doc, err := os.ReadFile(from)
		return doc, nil, err
	}
	const max = 5 << 20
	client := outbound.NewClient(outbound.Options{AllowPrivate: cfg.AllowPrivateTargets, MaxBody: max})
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch %s: %w", from, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("fetch %s: %s", from, resp.Status)
	}
	doc, truncated, err := outbound.ReadBody(resp.Body, max)
	if truncated || errors.Is(err, outbound.ErrBodyTooLarge) {
		return nil, nil, fmt.Errorf("fetch %s: the document is larger than 5 MiB", from)
	}
	return doc, from, err
}
