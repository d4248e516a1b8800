package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

// testCommand is `mockmcp test run`: it asks a running service to run a
// suite, prints the outcome, writes the JUnit XML when asked, and fails
// (exit status 1) when the suite did, so a CI step goes red. It talks to
// the service's REST API with a full-scope API key, like any other CI
// client.
func testCommand() *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "test",
		Short: "Run REST API test suites on a running service (REST API)",
	})
	var (
		flags        apiFlags
		suite, junit string
		timeout      time.Duration
	)
	run := &cobra.Command{
		Use:   "run --suite <id|name> [--junit FILE]",
		Short: "Run a test suite; exit status 1 when it fails",
		Long: `Run a suite of REST API tests on the service (POST /api/suites/{suite_id}/run), print
the outcome and each test that did not pass, and write the run as JUnit XML with --junit.
The exit status is 1 when the suite fails, so a CI step goes red.`,
		Example: `  MOCKMCP_URL=https://mockmcp.example.com MOCKMCP_API_KEY=mmcp_… \
    mockmcp test run --suite smoke --junit mockmcp-junit.xml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if suite == "" {
				return usagef("--suite is required")
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			return runSuite(ctx, c, suite, junit, cmd)
		},
	}
	flags.add(run)
	// --key is the flag's name before --api-key; kept so that existing CI
	// steps keep working.
	run.Flags().StringVar(&flags.key, "key", "", "")
	_ = run.Flags().MarkHidden("key")
	run.Flags().StringVar(&suite, "suite", "", "the suite to run, by id or by name")
	run.Flags().StringVar(&junit, "junit", "", "write the run as JUnit XML to this file")
	run.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after this long")
	cmd.AddCommand(run)
	return cmd
}

// suiteFailed is a suite that ran and did not pass: the check failed.
type suiteFailed struct{ suite string }

func (e suiteFailed) Error() string { return "suite " + e.suite + " failed" }

func runSuite(ctx context.Context, c *apiClient, suite, junit string, cmd *cobra.Command) error {
	out := cmd.OutOrStdout()
	id, err := c.suiteID(ctx, suite)
	if err != nil {
		return err
	}
	var run api.SuiteRun
	if err := c.do(ctx, request{method: http.MethodPost, path: "/api/suites/" + id + "/run"}, &run); err != nil {
		return err
	}
	fmt.Fprintf(out, "suite %s: %d passed, %d failed, %d skipped of %d (%.0f ms)\n",
		suite, run.PassedCount, run.FailedCount, run.SkippedCount, run.Total, run.DurationMs)
	for _, t := range run.TestRuns {
		if t.Status != resttest.StatusPassed {
			line := fmt.Sprintf("  %s: %s", t.Status, t.TestName)
			if t.Error != "" {
				line += " (" + t.Error + ")"
			}
			fmt.Fprintln(out, line)
		}
	}
	if junit != "" {
		var xml []byte
		path := "/api/suites/" + id + "/runs/" + run.Id.String() + "?format=junit"
		if err := c.do(ctx, request{method: http.MethodGet, path: path, accept: "application/xml"}, &xml); err != nil {
			return err
		}
		if err := os.WriteFile(junit, xml, 0o644); err != nil {
			return fmt.Errorf("write the JUnit report: %w", err)
		}
	}
	if !run.Passed {
		return suiteFailed{suite}
	}
	return nil
}

// suiteID resolves a suite named by id or by name.
func (c *apiClient) suiteID(ctx context.Context, suite string) (string, error) {
	if id, err := uuid.Parse(suite); err == nil {
		return id.String(), nil
	}
	var list api.SuiteList
	if err := c.do(ctx, request{method: http.MethodGet, path: "/api/suites?name=" + url.QueryEscape(suite)}, &list); err != nil {
		return "", err
	}
	if len(list.Items) == 0 {
		return "", fmt.Errorf("no suite named %q", suite)
	}
	return list.Items[0].Id.String(), nil
}
