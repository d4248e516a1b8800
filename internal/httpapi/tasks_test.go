package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// plantedScript is the script the MCP endpoint keeps with a task of a
// scenario working for a day, then answering.
const plantedScript = `{"task":{"steps":[{"message":"Crunching","duration_ms":86400000}],"response":{"done":true}},"version":"2025-06-18"}`

// plantTask creates a task of c's server as the MCP endpoint would, created
// at created and expiring at expires (nil: never); it returns its id.
func plantTask(t *testing.T, env *apitest.Env, c *apitest.Client, server, tool string, created time.Time, expires *time.Time) string {
	t.Helper()
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	require.NoError(t, env.Service.Store().CreateTask(context.Background(), store.Task{ID: id,
		OrgID: uuid.MustParse(c.OrgID), ServerID: uuid.MustParse(server), Tool: tool, Scenario: "slow",
		Script: json.RawMessage(plantedScript), CreatedAt: created, ExpiresAt: expires}))
	return id
}

// taskServers signs up org with two servers: "tasked", whose tasks a test
// plants, and "other", whose tasks must stay out of sight.
func taskServers(t *testing.T, org string) (env *apitest.Env, c *apitest.Client, server, other string) {
	t.Helper()
	env = apitest.New(t, nil)
	c = env.Signup(t, org)
	return env, c, mkServer(t, c, "tasked"), mkServer(t, c, "other")
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	env, c, server, other := taskServers(t, "Tasks Org")
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	expires := base.Add(2 * time.Hour)
	var want []string // newest first
	for i := range 5 {
		want = append([]string{plantTask(t, env, c, server, "report_"+strconv.Itoa(i), base.Add(time.Duration(i)*time.Minute), &expires)}, want...)
	}
	gone := base.Add(-time.Minute)
	plantTask(t, env, c, server, "expired", base.Add(-time.Hour), &gone)
	plantTask(t, env, c, other, "elsewhere", base, nil)

	var got []string
	path := "/api/servers/" + server + "/tasks?limit=2"
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		r := c.Do("GET", path, nil).Status(http.StatusOK)
		for i := range r.Len("items") {
			got = append(got, r.String("items."+strconv.Itoa(i)+".id"))
		}
		next, _ := r.Get("next_cursor").(string)
		if next == "" {
			break
		}
		path = "/api/servers/" + server + "/tasks?limit=2&cursor=" + next
	}
	require.Equal(t, want, got, "newest first, without the expired task or another server's")

	r := c.Do("GET", "/api/servers/"+server+"/tasks?limit=1", nil).Status(http.StatusOK)
	require.JSONEq(t, `{"id":"`+want[0]+`","tool":"report_4","scenario":"slow","status":"working","status_message":"Crunching",
		"created_at":"`+base.Add(4*time.Minute).Format(time.RFC3339)+`","expires_at":"`+expires.Format(time.RFC3339)+`",
		"ended_status":null,"ended_at":null}`, string(apitest.JSON(t, r.Get("items.0"))))

	t.Run("a cursor this service did not return", func(t *testing.T) {
		c.Do("GET", "/api/servers/"+server+"/tasks?cursor=bm90LWEtY3Vyc29y", nil).Problem(http.StatusBadRequest, "cursor")
	})
	t.Run("an unknown server", func(t *testing.T) {
		c.Do("GET", "/api/servers/"+uuid.NewString()+"/tasks", nil).Problem(http.StatusNotFound)
	})
}

func TestEndTask(t *testing.T) {
	t.Parallel()
	env, c, server, other := taskServers(t, "Ending Org")
	now := time.Now()
	end := func(id string) string { return "/api/servers/" + server + "/tasks/" + id + "/end" }

	t.Run("completed with a result, once", func(t *testing.T) {
		id := plantTask(t, env, c, server, "report", now, nil)
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "done by hand"}}}
		r := c.Do("POST", end(id), map[string]any{"status": "completed", "result": result}).Status(http.StatusOK)
		require.Equal(t, "completed", r.String("status"))
		require.Equal(t, "completed", r.String("ended_status"))
		endedAt, err := time.Parse(time.RFC3339Nano, r.String("ended_at"))
		require.NoError(t, err)
		require.WithinDuration(t, time.Now(), endedAt, time.Minute)

		task, err := env.Service.Store().GetTask(context.Background(), uuid.MustParse(c.OrgID), uuid.MustParse(server), id)
		require.NoError(t, err)
		require.JSONEq(t, string(apitest.JSON(t, result)), string(task.EndedPayload))

		again := c.Do("POST", end(id), map[string]any{"status": "cancelled"}).Problem(http.StatusConflict)
		require.Contains(t, again.String("detail"), "already ended (completed")
		list := c.Do("GET", "/api/servers/"+server+"/tasks", nil).Status(http.StatusOK)
		for i := range list.Len("items") {
			if list.String("items."+strconv.Itoa(i)+".id") == id {
				require.Equal(t, "completed", list.String("items."+strconv.Itoa(i)+".status"))
			}
		}
	})
	t.Run("completed without a result gets an empty one", func(t *testing.T) {
		id := plantTask(t, env, c, server, "report", now, nil)
		c.Do("POST", end(id), map[string]any{"status": "completed"}).Status(http.StatusOK)
		task, err := env.Service.Store().GetTask(context.Background(), uuid.MustParse(c.OrgID), uuid.MustParse(server), id)
		require.NoError(t, err)
		require.JSONEq(t, `{"content":[]}`, string(task.EndedPayload))
	})
	t.Run("failed with an error", func(t *testing.T) {
		id := plantTask(t, env, c, server, "report", now, nil)
		c.Do("POST", end(id), map[string]any{"status": "failed",
			"error": map[string]any{"code": -32050, "message": "quota exceeded", "data": map[string]any{"retry": 30}}}).
			Status(http.StatusOK)
		task, err := env.Service.Store().GetTask(context.Background(), uuid.MustParse(c.OrgID), uuid.MustParse(server), id)
		require.NoError(t, err)
		require.Equal(t, "failed", task.EndedStatus)
		require.JSONEq(t, `{"code":-32050,"message":"quota exceeded","data":{"retry":30}}`, string(task.EndedPayload))
	})
	t.Run("cancelled", func(t *testing.T) {
		id := plantTask(t, env, c, server, "report", now, nil)
		require.Equal(t, "cancelled", c.Do("POST", end(id), map[string]any{"status": "cancelled"}).Status(http.StatusOK).String("status"))
	})

	refusals := map[string]struct {
		body   map[string]any
		fields []string
	}{
		"failed without an error": {map[string]any{"status": "failed"}, []string{"error"}},
		"failed with a result": {map[string]any{"status": "failed", "result": map[string]any{},
			"error": map[string]any{"code": -1, "message": "m"}}, []string{"result"}},
		"failed with code 0 and a blank message": {map[string]any{"status": "failed",
			"error": map[string]any{"code": 0, "message": "  "}}, []string{"error.code", "error.message"}},
		"completed with an error": {map[string]any{"status": "completed",
			"error": map[string]any{"code": -1, "message": "m"}}, []string{"error"}},
		"cancelled with a result and an error": {map[string]any{"status": "cancelled", "result": map[string]any{},
			"error": map[string]any{"code": -1, "message": "m"}}, []string{"result", "error"}},
	}
	for name, tc := range refusals {
		t.Run(name, func(t *testing.T) {
			id := plantTask(t, env, c, server, "report", now, nil)
			c.Do("POST", end(id), tc.body).Problem(http.StatusUnprocessableEntity, tc.fields...)
			task, err := env.Service.Store().GetTask(context.Background(), uuid.MustParse(c.OrgID), uuid.MustParse(server), id)
			require.NoError(t, err)
			require.Empty(t, task.EndedStatus, "a refused end changes nothing")
		})
	}

	t.Run("not found", func(t *testing.T) {
		gone := now.Add(-time.Second)
		expired := plantTask(t, env, c, server, "report", now.Add(-time.Hour), &gone)
		elsewhere := plantTask(t, env, c, other, "report", now, nil)
		for _, id := range []string{"0123456789abcdef0123456789abcdef", expired, elsewhere} {
			c.Do("POST", end(id), map[string]any{"status": "cancelled"}).Problem(http.StatusNotFound)
		}
	})
	t.Run("not a task id", func(t *testing.T) {
		c.Do("POST", end("NOT-A-TASK"), map[string]any{"status": "cancelled"}).Problem(http.StatusBadRequest)
	})
}

// TestTaskOfAnUnreadableScript: a task whose kept script this version
// cannot read is listed as failed, not answered with a 500, and can still
// be ended by hand.
func TestTaskOfAnUnreadableScript(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	c := env.Signup(t, "Old Tasks")
	server := mkServer(t, c, "old")
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	require.NoError(t, env.Service.Store().CreateTask(context.Background(), store.Task{ID: id,
		OrgID: uuid.MustParse(c.OrgID), ServerID: uuid.MustParse(server), Tool: "t", Scenario: "s",
		Script: json.RawMessage(`{"steps":"no longer a list"}`), CreatedAt: time.Now()}))
	r := c.Do("GET", "/api/servers/"+server+"/tasks", nil).Status(http.StatusOK)
	require.Equal(t, "failed", r.String("items.0.status"))
	require.Equal(t, "the task's script can no longer be read", r.String("items.0.status_message"))
	c.Do("POST", "/api/servers/"+server+"/tasks/"+id+"/end", map[string]any{"status": "cancelled"}).Status(http.StatusOK)
}
