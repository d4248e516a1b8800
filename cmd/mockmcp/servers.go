package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
)

// listTimeout bounds a command that only reads: servers list, journal,
// verify.
const listTimeout = time.Minute

// serversCommand is `mockmcp servers list`: the organization's servers, so
// that a name can be matched to its id and endpoint.
func serversCommand() *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "servers",
		Short: "List the organization's MCP server designs (REST API)",
	})
	var (
		flags  apiFlags
		asJSON bool
	)
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the servers: name, id, enabled, endpoint URL",
		Long: `List every MCP server design of the key's organization (GET /api/servers, all pages),
newest first: a table of name, id, whether it is enabled (a draft's endpoint answers 404),
and its endpoint URL. --json prints the servers as the API answers them, as one JSON array.`,
		Example: `  mockmcp servers list
  mockmcp servers list --json | jq -r '.[] | select(.name == "Weather") | .endpoint_url'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), listTimeout)
			defer cancel()
			servers, err := c.servers(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), servers)
			}
			return printServers(cmd.OutOrStdout(), servers)
		},
	}
	flags.add(list)
	list.Flags().BoolVar(&asJSON, "json", false, "print the servers as a JSON array")
	cmd.AddCommand(list)
	return cmd
}

func printServers(out io.Writer, servers []api.Server) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tENABLED\tENDPOINT")
	for _, s := range servers {
		enabled := "no"
		if s.Enabled {
			enabled = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Id, enabled, s.EndpointUrl)
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON.
func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// serverPageSize is the limit asked of each page of GET /api/servers (the
// API's maximum); tests lower it to walk several pages.
var serverPageSize = 200

// servers is every server of the key's organization, following the
// pages of GET /api/servers.
func (c *apiClient) servers(ctx context.Context) ([]api.Server, error) {
	all := []api.Server{}
	cursor := ""
	for {
		path := "/api/servers?limit=" + strconv.Itoa(serverPageSize)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var page api.ServerList
		if err := c.do(ctx, request{method: http.MethodGet, path: path}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		next, err := page.NextCursor.Get()
		if err != nil || page.NextCursor.IsNull() || next == "" || len(page.Items) == 0 {
			return all, nil
		}
		cursor = next
	}
}

// serverID resolves the SERVER argument of a command: a UUID is taken as
// an id as it is (the service says when there is no such server); any
// other text is a server's exact name, looked up among the organization's
// servers.
func (c *apiClient) serverID(ctx context.Context, server string) (string, error) {
	if id, err := uuid.Parse(server); err == nil {
		return id.String(), nil
	}
	if strings.TrimSpace(server) == "" {
		return "", usagef("SERVER is empty: give a server's name or id")
	}
	servers, err := c.servers(ctx)
	if err != nil {
		return "", err
	}
	list := make([]named, len(servers))
	for i, s := range servers {
		list[i] = named{s.Id, s.Name}
	}
	id, err := pickByName(server, list)
	return id.String(), err
}

// named is a server's id and name, whether read from the API or the
// database.
type named struct {
	id   uuid.UUID
	name string
}

// pickByName is the id of the one server called name. None, or several
// (names are not unique), is an error of exit status 1 that says what to
// do.
func pickByName(name string, servers []named) (uuid.UUID, error) {
	var found []uuid.UUID
	for _, s := range servers {
		if s.name == name {
			found = append(found, s.id)
		}
	}
	switch len(found) {
	case 0:
		return uuid.Nil, fmt.Errorf("no server named %q (see `mockmcp servers list`)", name)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, id := range found {
		ids[i] = id.String()
	}
	return uuid.Nil, fmt.Errorf("%d servers are named %q: give the id of the one you mean (%s)",
		len(found), name, strings.Join(ids, ", "))
}
