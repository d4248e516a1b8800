package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/internal/designdoc"
)

// designMediaTypes are the file extensions apply reads and how it sends
// each.
var designMediaTypes = map[string]string{".yaml": "application/yaml", ".yml": "application/yaml", ".json": "application/json"}

// applyCommand is `mockmcp apply -f FILE|DIR`: POST /api/servers/apply
// with each design document, printing the plan the service answers.
func applyCommand() *cobra.Command {
	var (
		flags  apiFlags
		from   string
		dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR [--dry-run]",
		Short: "Create or update servers and agent cards from design files (REST API)",
		Long: `Create or update servers from design documents (the format 'mockmcp export' writes):
POST /api/servers/apply with each document, or POST /api/agent-cards/apply with each
agent card document (kind: A2AAgent). -f names a .yaml, .yml or .json file, or a
directory whose files with those extensions are applied one by one, in name order.

For each file it prints the plan: the server's action (created, updated, unchanged), then
each tool, resource and prompt that is created, updated or deleted; for an agent card, its
action, status and agent endpoint. --dry-run asks the
service for the plan without changing anything. A file the service refuses is reported as
FILE: field: message, and the other files are still applied; the exit status is then 1.`,
		Example: `  mockmcp apply -f weather.yaml --dry-run
  mockmcp apply -f designs/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return usagef("-f FILE|DIR is required")
			}
			files, err := designFiles(from)
			if err != nil {
				return err
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			failed := 0
			for _, f := range files {
				err := applyFile(cmd.Context(), c, f, dryRun, cmd.OutOrStdout())
				var apiErr *apiError
				switch {
				case err == nil:
				case unreachable(err):
					return err
				case errors.As(err, &apiErr) && (apiErr.Status == http.StatusUnauthorized || apiErr.Status == http.StatusForbidden):
					return err // the key, not the file: the other files would fail alike
				case errors.As(err, &apiErr):
					failed++
					printProblem(stderr, f, apiErr)
				default:
					failed++
					fmt.Fprintf(stderr, "%s: %v\n", f, err)
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d design files not applied", failed, len(files))
			}
			return nil
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVarP(&from, "filename", "f", "", "a design file (.yaml, .yml, .json) or a directory of them")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan without changing anything")
	return cmd
}

// designFiles are the files -f names: the file itself, or the design
// files of a directory in name order.
func designFiles(from string) ([]string, error) {
	info, err := os.Stat(from)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if _, ok := designMediaTypes[strings.ToLower(filepath.Ext(from))]; !ok {
			return nil, usagef("%s: a design file is .yaml, .yml or .json", from)
		}
		return []string{from}, nil
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if _, ok := designMediaTypes[strings.ToLower(filepath.Ext(e.Name()))]; ok && e.Type().IsRegular() {
			files = append(files, filepath.Join(from, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .yaml, .yml or .json files", from)
	}
	sort.Strings(files)
	return files, nil
}

// applyResult is the answer of POST /api/servers/apply.
type applyResult struct {
	DryRun  bool `json:"dry_run"`
	Changed bool `json:"changed"`
	Server  struct {
		ID          *string `json:"id"`
		Name        string  `json:"name"`
		Action      string  `json:"action"`
		EndpointURL string  `json:"endpoint_url"`
	} `json:"server"`
	Tools     []applyPart `json:"tools"`
	Resources []applyPart `json:"resources"`
	Prompts   []applyPart `json:"prompts"`
}

// applyPart is the action on one tool, resource or prompt.
type applyPart struct {
	Name   string `json:"name"`
	URI    string `json:"uri"`
	Action string `json:"action"`
}

// applyFile applies one design file and prints its plan.
func applyFile(ctx context.Context, c *apiClient, file string, dryRun bool, out io.Writer) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, designTimeout)
	defer cancel()
	query := ""
	if dryRun {
		query = "?dry_run=true"
	}
	r := request{method: http.MethodPost, path: "/api/servers/apply" + query,
		contentType: designMediaTypes[strings.ToLower(filepath.Ext(file))], body: doc}
	// Which route takes it is the document's kind; one that cannot be
	// read goes to the servers' route, whose answer names the fault.
	if kind, err := designdoc.KindOf(doc, 0); err == nil && kind == designdoc.KindAgent {
		r.path = "/api/agent-cards/apply" + query
		var res agentApplyResult
		if err := c.do(ctx, r, &res); err != nil {
			return err
		}
		printAgentPlan(out, file, res)
		return nil
	}
	var res applyResult
	if err := c.do(ctx, r, &res); err != nil {
		return err
	}
	printPlan(out, file, res)
	return nil
}

// agentApplyResult is the answer of POST /api/agent-cards/apply.
type agentApplyResult struct {
	DryRun bool `json:"dry_run"`
	Card   struct {
		ID       *string `json:"id"`
		Name     string  `json:"name"`
		Action   string  `json:"action"`
		Status   string  `json:"status"`
		AgentURL string  `json:"agent_url"`
	} `json:"card"`
}

// printAgentPlan writes what applying the agent card document file did,
// or would do in a dry run:
//
//	planner.yaml: agent card "travel-planner" created, published (id 0b7f9ad4-…)
//	  agent: http://localhost:8080/api/exchange/agent-cards/acme/travel-planner/a2a
func printAgentPlan(out io.Writer, file string, res agentApplyResult) {
	fmt.Fprintln(out, planLine(fmt.Sprintf("%s: agent card %q %s, %s", file, res.Card.Name, res.Card.Action, res.Card.Status),
		res.Card.ID, res.DryRun))
	if res.Card.Status == "published" && !res.DryRun {
		fmt.Fprintf(out, "  agent: %s\n", res.Card.AgentURL)
	}
}

// planLine is the first line of a plan: head, then in brackets the id
// applied and whether it was a dry run.
func planLine(head string, id *string, dryRun bool) string {
	var notes []string
	if id != nil {
		notes = append(notes, "id "+*id)
	}
	if dryRun {
		notes = append(notes, "dry run: nothing changed")
	}
	if len(notes) > 0 {
		head += " (" + strings.Join(notes, "; ") + ")"
	}
	return head
}

// printPlan writes what applying file did, or would do in a dry run:
//
//	weather.yaml: server "Weather" updated (id 0b7f9ad4-…)
//	  tool get_forecast: created
//	  resource guide docs://guide: deleted
//	  endpoint: http://localhost:8080/api/platform/0b7f9ad4-…/mcp
func printPlan(out io.Writer, file string, res applyResult) {
	fmt.Fprintln(out, planLine(fmt.Sprintf("%s: server %q %s", file, res.Server.Name, res.Server.Action), res.Server.ID, res.DryRun))
	for _, g := range []struct {
		kind  string
		parts []applyPart
	}{{"tool", res.Tools}, {"resource", res.Resources}, {"prompt", res.Prompts}} {
		for _, p := range g.parts {
			if p.Action == "unchanged" {
				continue
			}
			name := p.Name
			if p.URI != "" {
				name += " " + p.URI
			}
			fmt.Fprintf(out, "  %s %s: %s\n", g.kind, name, p.Action)
		}
	}
	if res.Server.EndpointURL != "" && !res.DryRun {
		fmt.Fprintf(out, "  endpoint: %s\n", res.Server.EndpointURL)
	}
}

// printProblem writes the service's refusal of file, one line per field:
// `FILE: field: message`.
func printProblem(w io.Writer, file string, e *apiError) {
	if len(e.Errors) == 0 {
		fmt.Fprintf(w, "%s: %d %s\n", file, e.Status, e.Problem())
		return
	}
	for _, fe := range e.Errors {
		fmt.Fprintf(w, "%s: %s: %s\n", file, fe.Field, fe.Message)
	}
}
