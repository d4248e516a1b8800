package task

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/store"
)

func raw(s string) *json.RawMessage { m := json.RawMessage(s); return &m }

// fields lists the fields err names, in order.
func fields(t *testing.T, err error) []string {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, failure.KindInvalid, f.Kind)
	var out []string
	for _, fe := range f.Fields {
		out = append(out, fe.Field)
	}
	return out
}

func TestCheck(t *testing.T) {
	rpcErr := &mockspec.RPCError{Code: -32603, Message: "boom"}
	cases := []struct {
		name    string
		in      Request
		payload string   // when it passes
		fields  []string // when it fails
	}{
		{"completed without a result", Request{Status: "completed"}, `{"content":[]}`, nil},
		{"completed with a result", Request{Status: "completed", Result: raw(`{"content":[{"type":"text","text":"done"}]}`)},
			`{"content":[{"type":"text","text":"done"}]}`, nil},
		{"completed with a result that is no object", Request{Status: "completed", Result: raw(` [1]`)}, "", []string{"result"}},
		{"completed with an error", Request{Status: "completed", Error: rpcErr}, "", []string{"error"}},
		{"failed", Request{Status: "failed", Error: rpcErr}, `{"code":-32603,"message":"boom"}`, nil},
		{"failed without an error", Request{Status: "failed"}, "", []string{"error"}},
		{"failed with a result and a blank error", Request{Status: "failed", Result: raw(`{}`), Error: &mockspec.RPCError{Message: " "}},
			"", []string{"result", "error.code", "error.message"}},
		{"cancelled", Request{Status: "cancelled"}, "", nil},
		{"cancelled with a result and an error", Request{Status: "cancelled", Result: raw(`{}`), Error: rpcErr}, "", []string{"result", "error"}},
		{"another status", Request{Status: "working"}, "", []string{"status"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Check(c.in)
			if c.fields != nil {
				require.Equal(t, c.fields, fields(t, err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.in.Status, e.Status)
			if c.payload == "" {
				require.Nil(t, e.Payload)
				return
			}
			require.JSONEq(t, c.payload, string(e.Payload))
		})
	}
}

// memStore is a server's tasks in memory.
type memStore struct {
	tasks map[string]store.Task
	fail  error // answered by EndTask when set
}

func (m *memStore) Task(_ context.Context, _ uuid.UUID, id string, _ time.Time) (store.Task, error) {
	t, ok := m.tasks[id]
	if !ok {
		return t, failure.NotFound("task")
	}
	return t, nil
}

func (m *memStore) EndTask(_ context.Context, _ uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error) {
	if m.fail != nil {
		return false, m.fail
	}
	t := m.tasks[id]
	if t.EndedStatus != "" {
		return false, nil
	}
	t.EndedStatus, t.EndedAt, t.EndedPayload = status, &at, payload
	m.tasks[id] = t
	return true, nil
}

// script is a task's stored script: one working step of a second, then a
// result.
var script = json.RawMessage(`{"task":{"steps":[{"message":"working","duration_ms":1000}],"result":{"content":[]}},"version":"` +
	protocol.Latest + `"}`)

func TestEnd(t *testing.T) {
	ctx := context.Background()
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := created.Add(500 * time.Millisecond) // the script is still at work
	server := uuid.New()
	newStore := func() *memStore {
		return &memStore{tasks: map[string]store.Task{"a": {ID: "a", ServerID: server, Tool: "t", Scenario: "s",
			Script: script, CreatedAt: created}}}
	}
	failed := Ending{Status: "failed", Payload: json.RawMessage(`{"code":-1,"message":"no"}`)}

	m := newStore()
	got, err := End(ctx, m, server, "a", failed, now)
	require.NoError(t, err)
	require.Equal(t, "failed", got.EndedStatus)
	require.Equal(t, now, *got.EndedAt)
	require.JSONEq(t, `{"code":-1,"message":"no"}`, string(got.EndedPayload))

	_, err = End(ctx, m, server, "a", Ending{Status: "cancelled"}, now.Add(time.Hour))
	require.True(t, failure.Is(err, failure.ErrConflict), "%v", err)
	require.Contains(t, err.Error(), "the task already ended (failed at 2026-01-02T03:04:05Z); a task ends once")

	_, err = End(ctx, newStore(), server, "a", failed, created.Add(2*time.Second))
	require.True(t, failure.Is(err, failure.ErrConflict), "%v", err)
	require.Contains(t, err.Error(), "the task is over already (completed by its script); a task ends once")

	_, err = End(ctx, newStore(), server, "b", failed, now)
	require.True(t, failure.Is(err, failure.ErrNotFound), "%v", err)

	m = newStore()
	m.fail = errors.New("connection lost")
	_, err = End(ctx, m, server, "a", failed, now)
	require.ErrorIs(t, err, m.fail)
	require.Empty(t, m.tasks["a"].EndedStatus)
}
