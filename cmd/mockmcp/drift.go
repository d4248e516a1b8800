package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"
	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
)

// driftTimeout bounds one drift check: the service talks to the live
// server itself, within its own limits.
const driftTimeout = 2 * time.Minute

// driftCommand is `mockmcp drift SERVER --url URL`: POST
// /api/servers/{server_id}/drift, for CI.
func driftCommand() *cobra.Command {
	var (
		flags   apiFlags
		live    string
		headers []string
	)
	cmd := &cobra.Command{
		Use:   "drift SERVER --url URL [--header 'Name: value']...",
		Short: "Compare a design with the live MCP server it stands for (REST API)",
		Long: `Compare the server's design with the live MCP server at --url (POST
/api/servers/{server_id}/drift): the service lists the live server's tools, resources and
prompts (nothing is called) under its outbound rules, and reports what only one side has,
and for the rest differing descriptions, input and output schemas, resource names and media
types, and prompt arguments. Headers are sent to the live server and never stored.

Prints one line per change, or "no drift". Exit status: 0 no drift; 1 drift (or another
error); 3 the service, or the live server, could not be reached or was refused. The service
is $` + envURL + ` or --service-url: --url names the live server. SERVER is the server's id
or its exact name.`,
		Example: `  mockmcp drift "$SERVER" --url https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN"`,
		Args:    exactArgs(1, "one SERVER (a name or an id)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if live == "" {
				return usagef("--url URL is required: the live MCP server to compare with")
			}
			if u, err := url.Parse(live); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usagef("--url %q is not an http or https URL", live)
			}
			body := map[string]any{"url": live}
			if len(headers) > 0 {
				h, err := headerFlags(headers)
				if err != nil {
					return err
				}
				body["headers"] = h
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), driftTimeout)
			defer cancel()
			id, err := c.serverID(ctx, args[0])
			if err != nil {
				return err
			}
			var report api.DriftReport
			err = c.do(ctx, request{method: http.MethodPost, path: "/api/servers/" + id + "/drift", body: jsonBody(body)}, &report)
			if err != nil {
				return liveUnreachable(err)
			}
			printDrift(cmd.OutOrStdout(), report)
			if report.Drifted {
				return driftFound{len(report.Changes)}
			}
			return nil
		},
	}
	flags.addAs(cmd, "service-url")
	cmd.Flags().StringVar(&live, "url", "", "the live MCP server's endpoint (required)")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "'Name: value' sent on every request to the live server (repeatable)")
	return cmd
}

// headerFlags reads repeated --header 'Name: value' flags.
func headerFlags(headers []string) (map[string]string, error) {
	h := map[string]string{}
	for _, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--header %q: want 'Name: value'", kv)
		}
		h[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return h, nil
}

// liveUnreachable marks the service's refusal of the live server's URL
// (422 naming url: it could not be reached, or the outbound rules refuse
// it) as an outage, exit status 3, like an unreachable service.
func liveUnreachable(err error) error {
	var apiErr *apiError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnprocessableEntity {
		return err
	}
	for _, fe := range apiErr.Errors {
		if fe.Field == "url" {
			return unreachableError{err}
		}
	}
	return err
}

// driftFound is a drift check that found changes: exit status 1.
type driftFound struct{ changes int }

func (e driftFound) Error() string {
	if e.changes == 1 {
		return "drift: 1 change"
	}
	return fmt.Sprintf("drift: %d changes", e.changes)
}

// printDrift writes one line per change: `tool get_forecast: input_schema
// differs: design {...}, live {...}`.
func printDrift(out io.Writer, r api.DriftReport) {
	if !r.Drifted {
		fmt.Fprintln(out, "no drift")
		return
	}
	for _, c := range r.Changes {
		if c.Field == "presence" {
			where := "only live"
			if c.Live.IsNull() {
				where = "only in the design"
			}
			fmt.Fprintf(out, "%s %s: %s\n", c.Kind, c.Name, where)
			continue
		}
		fmt.Fprintf(out, "%s %s: %s differs: design %s, live %s\n", c.Kind, c.Name, c.Field, jsonText(c.Design), jsonText(c.Live))
	}
}

// jsonText is a change's value as the service sent it (compact JSON).
func jsonText(v nullable.Nullable[api.AnyJSON]) string {
	raw, err := v.Get()
	if err != nil || v.IsNull() || len(raw) == 0 {
		return "null"
	}
	return string(raw)
}
