package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/config"
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
	res.Design.Server.Source = oasimport.Source(url, doc, res, time.Now())

	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := st.ImportDesign(ctx, store.OrgRef{Slug: *org}, res.Design, operator())
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
// http(s) URL under the outbound rules; url is empty for a file.
func readDocument(ctx context.Context, cfg config.Config, from string) (doc []byte, url string, err error) {
	if !strings.HasPrefix(from, "http://") && !strings.HasPrefix(from, "https://") {
		doc, err := os.ReadFile(from)
		return doc, "", err
	}
	client := outbound.NewClient(outbound.Options{AllowPrivate: cfg.AllowPrivateTargets, MaxBody: oasimport.MaxDocumentBytes})
	defer client.CloseIdleConnections()
	doc, err = outbound.Get(ctx, client, from, "application/json, application/yaml, */*", oasimport.MaxDocumentBytes)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", from, err)
	}
	return doc, from, nil
}
