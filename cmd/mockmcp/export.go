package main

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// designTimeout bounds one export or the apply of one file.
const designTimeout = 2 * time.Minute

// exportFormats are the formats of export and their media types.
var exportFormats = map[string]string{"yaml": "application/yaml", "json": "application/json"}

// exportCommand is `mockmcp export SERVER`: GET
// /api/servers/{server_id}/export, the design as a document that apply
// takes back.
func exportCommand() *cobra.Command {
	var (
		flags       apiFlags
		format, out string
	)
	cmd := &cobra.Command{
		Use:   "export SERVER [--format yaml|json] [-o FILE]",
		Short: "Print a server's design (server, tools, resources, prompts) as YAML or JSON (REST API)",
		Long: `Print a server's whole design, the server with its tools, resources and prompts, as one
YAML or JSON document (GET /api/servers/{server_id}/export): the document 'mockmcp apply'
takes, to keep designs in version control. -o writes it to a file instead, only once the
whole document has arrived. SERVER is the server's id or its exact name.`,
		Example: `  mockmcp export "$SERVER" -o weather.yaml
  mockmcp export "$SERVER" --format json | jq .tools`,
		Args: exactArgs(1, "one SERVER (a name or an id)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			mediaType, ok := exportFormats[format]
			if !ok {
				return usagef("--format: want yaml or json, not %q", format)
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), designTimeout)
			defer cancel()
			id, err := c.serverID(ctx, args[0])
			if err != nil {
				return err
			}
			var doc []byte
			path := "/api/servers/" + id + "/export?format=" + url.QueryEscape(format)
			if err := c.do(ctx, request{method: http.MethodGet, path: path, accept: mediaType}, &doc); err != nil {
				return err
			}
			if out != "" && out != "-" {
				return os.WriteFile(out, doc, 0o644)
			}
			_, err = cmd.OutOrStdout().Write(doc)
			return err
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVar(&format, "format", "yaml", "yaml or json")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the document to this file instead of standard output")
	return cmd
}
