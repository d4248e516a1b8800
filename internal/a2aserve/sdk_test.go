package a2aserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/nodetest"
)

// sdkPackages are the A2A SDK pinned in .ci/a2a (MOCKMCP_A2A_NODE and
// MOCKMCP_A2A_PACKAGES override node and the folder).
var sdkPackages = nodetest.Packages{
	Name: "A2A SDK", Dir: "../../.ci/a2a", DirEnv: "MOCKMCP_A2A_PACKAGES", NodeEnv: "MOCKMCP_A2A_NODE",
	Installed: "@a2a-js/sdk/package.json", Target: "a2a-packages",
}

func cardDesc(s string) string { return s + strings.Repeat(" Mock agent for tests.", 12) }

// TestOfficialSDKClient: the official A2A client (@a2a-js/sdk 1.3.0)
// resolves a published card from its .well-known path, picks the mock agent
// among its interfaces, sends messages and reads the default and the
// scripted reply, and reads an unsupported A2A-Version as
// VersionNotSupportedError. Then, in each binding (JSON-RPC, HTTP+JSON): a
// task reply's Task, its stream, getTask, cancelTask (twice),
// resubscribeTask, an unknown task and an ended task's subscription.
func TestOfficialSDKClient(t *testing.T) {
	t.Parallel()
	node, dir := sdkPackages.Toolchain(t)
	script, err := os.ReadFile(filepath.Join("testdata", "sdkclient.mjs"))
	require.NoError(t, err)

	env := apitest.New(t, nil)
	owner := env.Signup(t, "SDK Agents")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	skill := func(name string) map[string]any {
		return map[string]any{"name": name, "description": cardDesc("Skill " + name + ".")}
	}
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{
		"name": "travel-agent", "version": "1.0.0", "description": cardDesc("Plans trips."),
		"skills":       []any{skill("search_flights"), skill("book_hotel")},
		"invocation":   map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"capabilities": map[string]any{"streaming": true, "async": true},
		"replies": []any{
			map[string]any{"name": "rome", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Rome"},
				"text": "Three hotels in Rome for {{args.contextId}}."},
			map[string]any{"name": "search", "condition": map[string]any{"field": "text", "operator": "starts_with", "value": "Search"},
				"task": map[string]any{
					"steps": []any{map[string]any{"message": "Searching: {{args.text}}", "duration_ms": 300}},
					"outcome": map[string]any{"state": "completed", "message": "Found 2 flights",
						"artifacts": []any{map[string]any{"name": "flights", "text": "OSL-ROM 09:10, OSL-ROM 17:45"}}}}},
			map[string]any{"name": "long", "condition": map[string]any{"text": "Plan a world tour"},
				"task": map[string]any{
					"steps":   []any{map[string]any{"message": "Planning", "duration_ms": 600000}},
					"outcome": map[string]any{"state": "completed"}}},
		},
	}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "--eval", string(script))
	cmd.Dir = dir // the script's imports resolve from here
	cmd.Stdin = bytes.NewReader(apitest.JSON(t, map[string]any{
		"cardBase": env.URL + "/api/exchange/agent-cards/" + slug + "/travel-agent/",
		"texts":    []string{"Please book hotel rooms in Oslo.", "Please book hotel rooms in Rome."},
		"search":   "Search flights to Oslo",
		"long":     "Plan a world tour",
	}))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	var got struct {
		Interfaces []map[string]string `json:"interfaces"`
		Replies    []struct {
			Role      int            `json:"role"`
			ContextID string         `json:"contextId"`
			Texts     []string       `json:"texts"`
			Metadata  map[string]any `json:"metadata"`
		} `json:"replies"`
		VersionError map[string]any `json:"versionError"`
		Bindings     []struct {
			Binding             string
			Task, Got, Canceled map[string]any
			Immediate           map[string]any
			Stream              []map[string]any
			Resubscribed        []map[string]any
			CancelAgain         map[string]any `json:"cancelAgain"`
			UnknownTask         map[string]any `json:"unknownTask"`
			ResubscribeEnded    map[string]any `json:"resubscribeEnded"`
			PushSet, PushGot    map[string]any
			PushList            []map[string]any
			PushGone            map[string]any
			PushUnknownTask     map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, []map[string]string{
		{"url": env.URL + a2aserve.EndpointPath(slug, "travel-agent"), "protocolBinding": "JSONRPC"},
		{"url": env.URL + a2aserve.RESTPath(slug, "travel-agent"), "protocolBinding": "HTTP+JSON"},
		{"url": "https://agents.example.com/mcp", "protocolBinding": "MCP"},
	}, got.Interfaces)
	require.Len(t, got.Replies, 2)
	for _, r := range got.Replies {
		require.Equal(t, 2, r.Role, "ROLE_AGENT")
		require.Equal(t, "sdk-context", r.ContextID)
	}
	// No reply matches Oslo: the default reply; Rome's scripted reply.
	require.Equal(t, []string{`travel-agent (mock agent): skill "book_hotel" received your message.`}, got.Replies[0].Texts)
	require.Equal(t, map[string]any{"skill": "book_hotel"}, got.Replies[0].Metadata)
	require.Equal(t, []string{"Three hotels in Rome for sdk-context."}, got.Replies[1].Texts)
	require.Equal(t, map[string]any{"skill": "book_hotel", "reply": "rome"}, got.Replies[1].Metadata)
	require.Equal(t, map[string]any{"name": "VersionNotSupportedError", "code": float64(-32009)}, got.VersionError)

	require.Len(t, got.Bindings, 2)
	for i, b := range got.Bindings {
		binding, notCancelable, notFound, unsupported := "JSONRPC", -32002.0, -32001.0, -32004.0
		if i == 1 {
			binding, notCancelable, notFound, unsupported = "HTTP+JSON", 409, 404, 400
		}
		t.Run(binding, func(t *testing.T) {
			require.Equal(t, binding, b.Binding)
			// A task reply: the client reads a Task, once it has ended
			// (TASK_STATE_COMPLETED = 3), or at once (TASK_STATE_WORKING = 2).
			require.Equal(t, float64(3), b.Task["state"], "%v", b.Task)
			require.Equal(t, "Found 2 flights", b.Task["statusText"])
			require.Equal(t, "sdk-context", b.Task["contextId"])
			require.Equal(t, float64(2), b.Immediate["state"], "%v", b.Immediate)
			require.Equal(t, "Searching: Search flights to Oslo", b.Immediate["statusText"])
			// Its stream: the task, then its artifact and its completion (3).
			require.Len(t, b.Stream, 3, "%v", b.Stream)
			require.Equal(t, []map[string]any{
				{"case": "task", "state": float64(2)},
				{"case": "artifactUpdate", "name": "flights"},
				{"case": "statusUpdate", "state": float64(3), "taskId": b.Stream[2]["taskId"]},
			}, b.Stream)
			// The first task, read again.
			require.Equal(t, b.Task["id"], b.Got["id"])
			require.Equal(t, float64(3), b.Got["state"])
			require.Equal(t, "Found 2 flights", b.Got["statusText"])
			require.Equal(t, []any{map[string]any{"name": "flights", "texts": []any{"OSL-ROM 09:10, OSL-ROM 17:45"}}}, b.Got["artifacts"])
			require.Equal(t, float64(1), b.Got["history"])
			// Canceled (5), and not twice.
			require.Equal(t, float64(5), b.Canceled["state"])
			require.Equal(t, map[string]any{"name": "TaskNotCancelableError", "code": notCancelable}, b.CancelAgain)
			// Resubscribing: the task first, then its updates.
			require.Equal(t, "task", b.Resubscribed[0]["case"])
			last := b.Resubscribed[len(b.Resubscribed)-1]
			require.Equal(t, map[string]any{"case": "statusUpdate", "state": float64(3), "taskId": last["taskId"]}, last)
			require.Equal(t, map[string]any{"name": "TaskNotFoundError", "code": notFound}, b.UnknownTask)
			require.Equal(t, map[string]any{"name": "UnsupportedOperationError", "code": unsupported}, b.ResubscribeEnded)
			// Push-notification configs: the token is never read back.
			push := map[string]any{"id": "sdk-push-" + binding, "taskId": b.Task["id"], "url": "https://push.example.com/sdk",
				"token": "", "scheme": "Bearer"}
			require.Equal(t, push, b.PushSet)
			require.Equal(t, push, b.PushGot)
			require.Equal(t, []map[string]any{push}, b.PushList)
			require.NotNil(t, b.PushGone, "a deleted config is gone")
			require.Equal(t, map[string]any{"name": "TaskNotFoundError", "code": notFound}, b.PushUnknownTask)
		})
	}
}
