package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
)

// importTimeout bounds one import: the service fetches the document or
// talks to the MCP server itself, within its own limits.
const importTimeout = 5 * time.Minute

// importCommand is `mockmcp import openapi|mcp`: POST
// /api/servers/import/openapi and /api/servers/import/mcp, into the
// organization of the API key.
func importCommand() *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "import",
		Short: "Import a design from an OpenAPI document or a live MCP server (REST API)",
		Long: `Create a draft server from an OpenAPI or Swagger document, or from a live MCP server,
through the REST API of the service at $` + envURL + ` with the key $` + envAPIKey + `: the
server belongs to the key's organization.`,
	})
	cmd.AddCommand(importOpenAPICommand(), importMCPCommand())
	return cmd
}

func importOpenAPICommand() *cobra.Command {
	var (
		flags apiFlags
		name  string
	)
	cmd := &cobra.Command{
		Use:   "openapi <file|url>",
		Short: "Import an OpenAPI 3.x or Swagger 2.0 document as a draft server",
		Long: `Import an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one, as a draft server of type
openapi with one tool per operation (POST /api/servers/import/openapi). A file is read here
and sent; a URL is fetched by the service, under its outbound rules (private addresses are
refused unless the service runs with ALLOW_PRIVATE_TARGETS=true), and recorded as the
server's source. Prints the server's id, name and tool count, then any warnings.`,
		Example: `  mockmcp import openapi ./petstore.yaml --name Pets
  mockmcp import openapi https://petstore3.swagger.io/api/v3/openapi.json`,
		Args: exactArgs(1, "one <file|url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := flags.client()
			if err != nil {
				return err
			}
			body := map[string]any{}
			if from := args[0]; strings.HasPrefix(from, "http://") || strings.HasPrefix(from, "https://") {
				body["url"] = from
			} else {
				doc, err := os.ReadFile(from)
				if err != nil {
					return err
				}
				// The document travels as JSON text: the service reads
				// JSON and YAML alike.
				body["document"] = string(doc)
			}
			if name != "" {
				body["name"] = name
			}
			return postImport(cmd.Context(), c, "/api/servers/import/openapi", body, cmd.OutOrStdout())
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVar(&name, "name", "", "the server's name (default: the document's title)")
	return cmd
}

func importMCPCommand() *cobra.Command {
	var (
		flags   apiFlags
		name    string
		headers []string
		records []string
	)
	cmd := &cobra.Command{
		Use:   "mcp <url>",
		Short: "Snapshot a live MCP server as a draft server",
		Long: `Connect to the MCP server at <url> (Streamable HTTP, falling back to HTTP+SSE) from the
service, and snapshot its tools, resources, resource templates and prompts into a draft
server of type mock (POST /api/servers/import/mcp). Each --record calls a tool once and
keeps its answer as a scenario for those arguments. Headers are sent to the server and
never stored.`,
		Example: `  mockmcp import mcp https://mcp.example.com/mcp --header 'Authorization: Bearer …' \
    --record 'get_forecast={"city":"Paris"}'`,
		Args: exactArgs(1, "one <url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := map[string]any{"url": args[0]}
			if name != "" {
				body["name"] = name
			}
			if len(headers) > 0 {
				h, err := headerFlags(headers)
				if err != nil {
					return err
				}
				body["headers"] = h
			}
			var calls []api.ImportMCPCall
			for _, r := range records {
				tool, args, _ := strings.Cut(r, "=")
				call := api.ImportMCPCall{Tool: tool}
				if args != "" {
					var m map[string]any
					if err := json.Unmarshal([]byte(args), &m); err != nil {
						return usagef("--record %q: the arguments after = must be a JSON object: %v", r, err)
					}
					call.Arguments = &m
				}
				if tool == "" {
					return usagef("--record %q: want TOOL or TOOL={json arguments}", r)
				}
				calls = append(calls, call)
			}
			if calls != nil {
				body["record_calls"] = calls
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			return postImport(cmd.Context(), c, "/api/servers/import/mcp", body, cmd.OutOrStdout())
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVar(&name, "name", "", "the server's name (default: the MCP server's own)")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "'Name: value' sent on every request to the MCP server (repeatable)")
	cmd.Flags().StringArrayVar(&records, "record", nil, "TOOL or TOOL={json arguments}: call the tool once and keep the answer as a scenario (repeatable)")
	return cmd
}

// postImport sends an import and prints its result: the server's id,
// name and tool count on one line, then one line per warning.
func postImport(ctx context.Context, c *apiClient, path string, body any, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, importTimeout)
	defer cancel()
	var res api.ImportResult
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: jsonBody(body)}, &res); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\t%s\t%d tools, %d resources, %d prompts (draft; enable it with PATCH /api/servers/%s {\"enabled\": true})\n",
		res.Server.Id, res.Server.Name, res.Tools, res.Resources, res.Prompts, res.Server.Id)
	for _, w := range res.Warnings {
		fmt.Fprintln(out, "warning:", w)
	}
	return nil
}
