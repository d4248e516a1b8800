package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/service"
)

// applyItems applies the design document of testdata/stateful-items.json
// (the README's example) for c and returns the server's id.
func applyItems(t *testing.T, c *apitest.Client) string {
	t.Helper()
	doc, err := os.ReadFile("testdata/stateful-items.json")
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(doc, &body))
	return c.Do("POST", "/api/servers/apply", body).Status(http.StatusCreated).String("server.id")
}

// TestStatefulItemsThroughTheSDK drives the four tools of a stateful
// design with the official MCP Go SDK client, in both protocol eras: an
// item created is listed, read and deleted, and the journal records what
// each call did to the state.
func TestStatefulItemsThroughTheSDK(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Stateful")
	id := applyItems(t, owner)

	for _, tc := range []struct{ name, clientVersion string }{
		{name: "modern client"},
		{name: "legacy client", clientVersion: "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner.Do("DELETE", "/api/servers/"+id+"/state", nil).Status(http.StatusOK)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "items", Version: "1.0.0"}, nil)
			session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.URL + "/api/platform/" + id + "/mcp"},
				&mcp.ClientSessionOptions{ProtocolVersion: tc.clientVersion})
			require.NoError(t, err)
			defer func() { _ = session.Close() }()

			// call calls a tool and returns its result's text and whether
			// it is a tool error.
			call := func(name string, args map[string]any) (string, bool) {
				t.Helper()
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				require.NoError(t, err)
				require.Len(t, res.Content, 1)
				text, ok := res.Content[0].(*mcp.TextContent)
				require.True(t, ok, "content is %T", res.Content[0])
				return text.Text, res.IsError
			}
			item := map[string]any{"id": "item-1"}

			got, _ := call("list_items", nil)
			require.JSONEq(t, `{"items": []}`, got, "the fallback: no item yet")
			got, isErr := call("get_item", item)
			require.True(t, isErr, got)

			got, _ = call("create_item", map[string]any{"name": "pen"})
			require.JSONEq(t, `{"id": "item-1", "name": "pen"}`, got)
			require.JSONEq(t, `{"item": {"id": "item-1", "name": "pen"}}`,
				string(owner.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))

			got, _ = call("list_items", nil)
			require.JSONEq(t, `{"items": [{"id": "item-1", "name": "pen"}]}`, got)
			got, isErr = call("get_item", item)
			require.False(t, isErr)
			require.JSONEq(t, `{"id": "item-1", "name": "pen"}`, got)

			got, isErr = call("delete_item", item)
			require.False(t, isErr)
			require.JSONEq(t, `{"deleted": "item-1"}`, got)
			got, _ = call("list_items", nil)
			require.JSONEq(t, `{"items": []}`, got)
			got, isErr = call("delete_item", item)
			require.True(t, isErr, got)
			require.JSONEq(t, `{}`, string(owner.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
		})
	}

	t.Run("the journal records each change of the state", func(t *testing.T) {
		// journal is the newest n records of tool, once there are n: the
		// journal writes in the background.
		journal := func(tool string, n int) *apitest.Response {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				r := owner.Do("GET", "/api/servers/"+id+"/journal?tool="+tool+"&limit="+strconv.Itoa(n), nil).Status(http.StatusOK)
				if r.Len("items") == n || time.Now().After(deadline) {
					return r
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		r := journal("create_item", 2)
		for _, i := range []string{"0", "1"} {
			require.Equal(t, map[string]any{"item": map[string]any{"id": "item-1", "name": "pen"}}, r.Get("items."+i+".state_change.set"), "%s", r.Raw)
			require.NotZero(t, r.Get("items."+i+".state_change.version"))
		}
		r = journal("delete_item", 4)
		require.Nil(t, r.Get("items.0.state_change"), "the second delete found no item and changed nothing")
		require.Equal(t, []any{"item"}, r.Get("items.1.state_change.deleted"), "%s", r.Raw)
		r = journal("list_items", 1)
		require.Nil(t, r.Get("items.0.state_change"), "reading the state changes nothing")
		require.Equal(t, "one item", r.Get("items.0.mismatches.0.scenario"), "%s", r.Raw)
		require.Equal(t, "when_state.item", r.Get("items.0.mismatches.0.field"), "the state explains the mismatch")
		require.Equal(t, "exists", r.Get("items.0.mismatches.0.operator"))
	})
}

// TestStateIsSharedByInstances: a set_state answered by one instance is
// seen by the when_state of another on the very next call, in both eras.
func TestStateIsSharedByInstances(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	second, err := service.New(context.Background(), env.Config, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	srv2 := httptest.NewServer(second.Handler())
	t.Cleanup(func() { srv2.Close(); _ = second.Close() })

	owner := env.Signup(t, "Shared")
	id := applyItems(t, owner)
	onA, onB := env.URL+"/api/platform/"+id+"/mcp", srv2.URL+"/api/platform/"+id+"/mcp"
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			owner.Do("DELETE", "/api/servers/"+id+"/state", nil).Status(http.StatusOK)
			a, b := e.open(t, onA), e.open(t, onB)
			require.Contains(t, b.call("tools/call", map[string]any{"name": "list_items"}).ok(t), `{\"items\":[]}`)
			a.call("tools/call", map[string]any{"name": "create_item", "arguments": map[string]any{"name": "pen"}}).ok(t)
			require.Contains(t, b.call("tools/call", map[string]any{"name": "list_items"}).ok(t), `item-1`,
				"B sees A's change on its very next call")
			b.call("tools/call", map[string]any{"name": "delete_item", "arguments": map[string]any{"id": "item-1"}}).ok(t)
			require.Contains(t, a.call("tools/call", map[string]any{"name": "list_items"}).ok(t), `{\"items\":[]}`,
				"and A sees B's")
		})
	}
}
