package main

import (
	"cmp"
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

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/gen/api"
)

// journalTimeFormat is RFC 3339 with milliseconds: calls of one test run
// fall within the same second.
const journalTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// journalCommand is `mockmcp journal SERVER`: GET
// /api/servers/{server_id}/journal, one line per call.
func journalCommand() *cobra.Command {
	var (
		flags                        apiFlags
		tool, since, outcome, method string
		limit                        int
		asJSON                       bool
	)
	cmd := &cobra.Command{
		Use:   "journal SERVER [--tool T] [--method M] [--outcome O] [--since DURATION|RFC3339] [--limit N] [--json]",
		Short: "Print the calls a server's MCP endpoint received, newest first (REST API)",
		Long: `Print the call journal of a server (GET /api/servers/{server_id}/journal), newest first,
one line per call: the time it was received (UTC), the JSON-RPC method, the tool of a
tools/call, the outcome (result, error, no_match, fault, rejected, proxied), the latency,
and what decided the answer (the scenario matched, the JSON-RPC error code, or why the
first scenario did not match). SERVER is the server's id or its exact name.

--since takes a duration back from now (10m, 1h30m) or an RFC 3339 time. --limit caps the
calls printed (default 100; 0 for every call kept). --json prints the records as the API
answers them, as one JSON array.`,
		Example: `  mockmcp journal Weather --tool get_forecast --since 10m
  mockmcp journal Weather --outcome no_match --json | jq '.[0].mismatches'`,
		Args: exactArgs(1, "one SERVER (a name or an id)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := url.Values{}
			if tool != "" {
				q.Set("tool", tool)
			}
			if method != "" {
				q.Set("method", method)
			}
			if outcome != "" {
				if !api.JournalOutcome(outcome).Valid() {
					return usagef("--outcome: want one of result, error, no_match, fault, rejected, proxied, not %q", outcome)
				}
				q.Set("outcome", outcome)
			}
			if since != "" {
				t, err := sinceTime(since, time.Now())
				if err != nil {
					return err
				}
				q.Set("since", t.UTC().Format(time.RFC3339Nano))
			}
			if limit < 0 {
				return usagef("--limit: want 0 (every call) or more, not %d", limit)
			}
			c, err := flags.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), listTimeout)
			defer cancel()
			id, err := c.serverID(ctx, args[0])
			if err != nil {
				return err
			}
			entries, err := c.journal(ctx, id, q, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), entries)
			}
			return printJournal(cmd.OutOrStdout(), entries)
		},
	}
	flags.add(cmd)
	cmd.Flags().StringVar(&tool, "tool", "", "only calls of this tool")
	cmd.Flags().StringVar(&method, "method", "", "only this JSON-RPC method, e.g. tools/call")
	cmd.Flags().StringVar(&outcome, "outcome", "", "only this outcome: result, error, no_match, fault, rejected, proxied")
	cmd.Flags().StringVar(&since, "since", "", "only calls since this long ago (10m) or this RFC 3339 time")
	cmd.Flags().IntVar(&limit, "limit", 100, "print at most this many calls, the newest; 0 for all")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as a JSON array")
	return cmd
}

// sinceTime reads --since: a duration back from now, or an RFC 3339 time.
func sinceTime(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, usagef("--since %q: want a positive duration back from now", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usagef("--since %q: want a duration such as 10m or 2h, or an RFC 3339 time such as 2024-01-01T09:00:00Z", s)
	}
	return t, nil
}

// journalPage is one page of the journal with its records kept as sent,
// so that --json prints every field, and the fields the lines show.
type journalPage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor *string           `json:"next_cursor"`
}

// journal is the server's journal records matching q, newest first, at
// most limit of them (0: all), following the pages.
func (c *apiClient) journal(ctx context.Context, id string, q url.Values, limit int) ([]json.RawMessage, error) {
	all := []json.RawMessage{}
	for {
		size := 500
		if limit > 0 {
			size = min(size, limit-len(all))
		}
		q.Set("limit", strconv.Itoa(size))
		var page journalPage
		if err := c.do(ctx, request{method: http.MethodGet, path: "/api/servers/" + id + "/journal?" + q.Encode()}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextCursor == nil || *page.NextCursor == "" || len(page.Items) == 0 || (limit > 0 && len(all) >= limit) {
			return all, nil
		}
		q.Set("cursor", *page.NextCursor)
	}
}

// printJournal writes one aligned line per record.
func printJournal(out io.Writer, entries []json.RawMessage) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(out, "no calls recorded")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tMETHOD\tTOOL\tOUTCOME\tLATENCY\tDETAIL")
	for _, raw := range entries {
		var e api.JournalEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("a journal record is not the JSON expected: %w", err)
		}
		tool, _ := e.Tool.Get()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ReceivedAt.UTC().Format(journalTimeFormat), e.Method,
			cmp.Or(tool, "-"), e.Outcome, strconv.FormatFloat(float64(e.LatencyMs), 'f', 1, 32)+" ms", journalDetail(e))
	}
	return tw.Flush()
}

// journalDetail is what decided a call's answer, in a few words.
func journalDetail(e api.JournalEntry) string {
	var parts []string
	if s, err := e.MatchedScenario.Get(); err == nil && s != "" {
		parts = append(parts, fmt.Sprintf("scenario %q", s))
	}
	if step, err := e.SequenceStep.Get(); err == nil {
		parts = append(parts, fmt.Sprintf("step %d", step))
	}
	if code, err := e.ErrorCode.Get(); err == nil {
		parts = append(parts, fmt.Sprintf("error %d", code))
	}
	if up, err := e.Upstream.Get(); err == nil {
		parts = append(parts, "upstream "+strconv.FormatFloat(float64(up.LatencyMs), 'f', 1, 32)+" ms")
	}
	// Why the scenarios tried first missed: every one when none matched,
	// those before the one that answered (a fallback, say) otherwise.
	if len(e.Mismatches) > 0 {
		m := e.Mismatches[0]
		parts = append(parts, fmt.Sprintf("%s: %s", m.Scenario, m.Reason))
		if len(e.Mismatches) > 1 {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(e.Mismatches)-1))
		}
	}
	return cmp.Or(strings.Join(parts, ", "), "-")
}
