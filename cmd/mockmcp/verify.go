package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
)

// verifyCommand is `mockmcp verify SERVER --tool T`: POST
// /api/servers/{server_id}/journal/verify, with the verdict as the exit
// status, for CI scripts.
func verifyCommand() *cobra.Command {
	var (
		flags      apiFlags
		tool, args string
		times      int
	)
	cmd := &cobra.Command{
		Use:   "verify SERVER --tool T [--args JSON] [--times N]",
		Short: "Check that a tool was called (with matching arguments, N times); exit status 1 when not (REST API)",
		Long: `Count the recorded tools/call requests of --tool on the server (POST
/api/servers/{server_id}/journal/verify) and print the verdict. --args is a condition on the
call's arguments in the mock-scenario form: field/value pairs ({"city": "Paris"}, dots for
nested fields) or {"field", "operator", "value"}. Without --times the tool must have been
called at least once; with it, exactly N times (0: never). SERVER is the server's id or its
exact name.

Exit status: 0 verified; 1 not verified (or another refusal, such as an unknown server); 2 a
usage error (such as --args that is not a JSON object); 3 the service could not be reached.
When the instance answering dropped journal records of the server (under overload), the
count may miss calls: a warning on standard error says so.`,
		Example: `  mockmcp verify Weather --tool get_forecast --args '{"city": "Paris"}' --times 1`,
		Args:    exactArgs(1, "one SERVER (a name or an id)"),
		RunE: func(cmd *cobra.Command, a []string) error {
			if tool == "" {
				return usagef("--tool is required: the tool whose calls to count")
			}
			body := api.VerifyJournalRequest{Tool: tool}
			if args != "" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
					return usagef("--args: want a JSON object such as '{\"city\": \"Paris\"}', not %q", args)
				}
				raw := json.RawMessage(args)
				body.Arguments = &raw
			}
			if cmd.Flags().Changed("times") {
				if times < 0 {
					return usagef("--times: want 0 or more, not %d", times)
				}
				body.Times = &times
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), listTimeout)
			defer cancel()
			id, err := c.serverID(ctx, a[0])
			if err != nil {
				return err
			}
			var res api.VerifyJournalResult
			path := "/api/servers/" + id + "/journal/verify"
			if err := c.do(ctx, request{method: http.MethodPost, path: path, body: jsonBody(body)}, &res); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), res.Message)
			if !res.Complete {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: the journal is incomplete: the service dropped records of this server under load, so the count may miss calls")
			}
			if !res.Verified {
				return notVerified{tool: tool, expected: res.Expected, count: res.Count}
			}
			return nil
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVar(&tool, "tool", "", "the tool whose calls to count (required)")
	cmd.Flags().StringVar(&args, "args", "", "a condition on the arguments, a JSON object in the mock-scenario form")
	cmd.Flags().IntVar(&times, "times", 0, "the exact number of calls expected (default: at least 1)")
	return cmd
}

// notVerified is a verification that failed: exit status 1.
type notVerified struct {
	tool, expected string
	count          int
}

func (e notVerified) Error() string {
	return fmt.Sprintf("not verified: tool %q: expected %s, recorded %d", e.tool, e.expected, e.count)
}
