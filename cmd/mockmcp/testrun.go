package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

// testCommand runs `mockmcp test run`: it asks a running service to run a
// suite, prints the outcome, writes the JUnit XML when asked, and fails
// when the suite did, so a CI step goes red. It talks to the service's
// REST API with a full-scope API key, like any other CI client.
func testCommand(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "run" {
		return errors.New("usage: mockmcp test run --suite <id|name> [--junit out.xml] [--url URL] [--key KEY]")
	}
	fs := flag.NewFlagSet("test run", flag.ContinueOnError)
	fs.SetOutput(out)
	suite := fs.String("suite", "", "the suite to run, by id or by name")
	junit := fs.String("junit", "", "write the run as JUnit XML to this file")
	base := fs.String("url", envOr("MOCKMCP_URL", "http://localhost:8080"), "the service's base URL (MOCKMCP_URL)")
	key := fs.String("key", os.Getenv("MOCKMCP_API_KEY"), "a full-scope platform API key (MOCKMCP_API_KEY)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch {
	case *suite == "":
		return errors.New("--suite is required")
	case *key == "":
		return errors.New("an API key is required: --key or MOCKMCP_API_KEY")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	c := &apiClient{base: strings.TrimRight(*base, "/"), key: *key, http: &http.Client{}}

	id, err := c.suiteID(ctx, *suite)
	if err != nil {
		return err
	}
	var run api.SuiteRun
	if err := c.do(ctx, http.MethodPost, "/api/suites/"+id+"/run", "application/json", &run); err != nil {
		return err
	}
	fmt.Fprintf(out, "suite %s: %d passed, %d failed, %d skipped of %d (%.0f ms)\n",
		*suite, run.PassedCount, run.FailedCount, run.SkippedCount, run.Total, run.DurationMs)
	for _, t := range run.TestRuns {
		if t.Status != resttest.StatusPassed {
			line := fmt.Sprintf("  %s: %s", t.Status, t.TestName)
			if t.Error != "" {
				line += " (" + t.Error + ")"
			}
			fmt.Fprintln(out, line)
		}
	}
	if *junit != "" {
		var xml []byte
		if err := c.do(ctx, http.MethodGet, "/api/suites/"+id+"/runs/"+run.Id.String()+"?format=junit", "application/xml", &xml); err != nil {
			return err
		}
		if err := os.WriteFile(*junit, xml, 0o644); err != nil {
			return fmt.Errorf("write the JUnit report: %w", err)
		}
	}
	if !run.Passed {
		return fmt.Errorf("suite %s failed", *suite)
	}
	return nil
}

// apiClient calls the service's REST API with a key.
type apiClient struct {
	base, key string
	http      *http.Client
}

// suiteID resolves a suite named by id or by name.
func (c *apiClient) suiteID(ctx context.Context, suite string) (string, error) {
	if id, err := uuid.Parse(suite); err == nil {
		return id.String(), nil
	}
	var list api.SuiteList
	if err := c.do(ctx, http.MethodGet, "/api/suites?name="+url.QueryEscape(suite), "application/json", &list); err != nil {
		return "", err
	}
	if len(list.Items) == 0 {
		return "", fmt.Errorf("no suite named %q", suite)
	}
	return list.Items[0].Id.String(), nil
}

// do sends one request and decodes a 2xx answer into out (raw bytes when
// out is a *[]byte); any other answer becomes an error quoting the
// problem's detail.
func (c *apiClient) do(ctx context.Context, method, path, accept string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var p struct {
			Detail string `json:"detail"`
		}
		_ = json.Unmarshal(body, &p)
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, or(p.Detail, strings.TrimSpace(string(body))))
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = body
		return nil
	}
	return json.Unmarshal(body, out)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
