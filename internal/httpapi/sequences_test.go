package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// seqNext counts one call of the scenario "flaky" by key on server, as the
// per-server endpoint does, and returns the calls before it.
func seqNext(t *testing.T, seq mcpserve.Sequencer, server, key string) int64 {
	t.Helper()
	n, err := seq.Next(context.Background(), uuid.MustParse(server), "flaky", key)
	require.NoError(t, err)
	return n
}

func TestSequenceReset(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	seq := env.Service.Sequences()
	ada := env.Signup(t, "Sequence Labs")
	eve := env.Signup(t, "Sequence Rivals")

	// prime counts two calls by alice and by bob on each server and returns
	// the reset route of the first.
	prime := func(t *testing.T, servers ...string) string {
		t.Helper()
		for _, s := range servers {
			for _, key := range []string{"alice", "bob"} {
				require.NoError(t, seq.Reset(context.Background(), uuid.MustParse(s), key))
				seqNext(t, seq, s, key)
				seqNext(t, seq, s, key)
			}
		}
		return "/api/servers/" + servers[0] + "/sequences/reset"
	}

	t.Run("every key", func(t *testing.T) {
		ada := ada.For(t)
		server, other := mkServer(t, ada, "Every key"), mkServer(t, ada, "Untouched")
		for _, body := range []any{nil, map[string]any{}} {
			path := prime(t, server, other)
			r := ada.Do("POST", path, body).Status(http.StatusNoContent)
			require.Empty(t, r.Raw)
			require.Equal(t, int64(0), seqNext(t, seq, server, "alice"), "body %v", body)
			require.Equal(t, int64(0), seqNext(t, seq, server, "bob"), "body %v", body)
			require.Equal(t, int64(2), seqNext(t, seq, other, "alice"), "another server's counts are kept")
		}
	})

	t.Run("one key", func(t *testing.T) {
		ada := ada.For(t)
		server := mkServer(t, ada, "One key")
		path := prime(t, server)
		ada.Do("POST", path, map[string]any{"key": "alice"}).Status(http.StatusNoContent)
		require.Equal(t, int64(0), seqNext(t, seq, server, "alice"))
		require.Equal(t, int64(2), seqNext(t, seq, server, "bob"))
	})

	t.Run("another organization's server", func(t *testing.T) {
		eve := eve.For(t)
		server := mkServer(t, ada.For(t), "Not Eve's")
		path := prime(t, server)
		for _, body := range []any{nil, map[string]any{"key": "alice"}} {
			eve.Do("POST", path, body).Problem(http.StatusNotFound)
		}
		require.Equal(t, int64(2), seqNext(t, seq, server, "alice"), "nothing was reset")
		require.Equal(t, int64(2), seqNext(t, seq, server, "bob"))
	})

	t.Run("missing server", func(t *testing.T) {
		ada.For(t).Do("POST", "/api/servers/"+missingID+"/sequences/reset", nil).Problem(http.StatusNotFound)
	})

	t.Run("anonymous", func(t *testing.T) {
		server := mkServer(t, ada.For(t), "Anonymous")
		env.Anonymous(t).Do("POST", "/api/servers/"+server+"/sequences/reset", nil).Problem(http.StatusUnauthorized)
	})

	t.Run("invalid body", func(t *testing.T) {
		ada := ada.For(t)
		server := mkServer(t, ada, "Invalid")
		path := prime(t, server)
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"empty key", map[string]any{"key": ""}, "key"},
			{"key too long", map[string]any{"key": strings.Repeat("k", 201)}, "key"},
			{"key not a string", map[string]any{"key": 7}, "key"},
			{"unknown field", map[string]any{"keys": []string{"alice"}}, "keys"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ada.For(t).Do("POST", path, tc.body).Problem(http.StatusUnprocessableEntity, tc.field)
			})
		}
		ada.Do("POST", path, "{nope").Problem(http.StatusBadRequest, "body")
		require.Equal(t, int64(2), seqNext(t, seq, server, "alice"), "a refused request resets nothing")
	})
}

// With REDIS_URL, instances share the counts: a reset through one instance
// starts over the counts the other keeps.
func TestSequenceResetSharedThroughRedis(t *testing.T) {
	t.Parallel()
	url := os.Getenv("TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	one := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.RedisURL = url }})
	two := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.RedisURL, c.DatabaseURL = url, one.Config.DatabaseURL
	}})
	ada := one.Signup(t, "Shared Sequences")
	server := mkServer(t, ada, "Shared")
	t.Cleanup(func() { _ = one.Service.Sequences().Reset(context.Background(), uuid.MustParse(server), "") })

	seqNext(t, one.Service.Sequences(), server, "alice")
	require.Equal(t, int64(1), seqNext(t, two.Service.Sequences(), server, "alice"), "the second instance sees the first's count")
	bob := two.Anonymous(t)
	bob.Do("POST", "/api/auth/login", map[string]any{"email": ada.Email, "password": "correct horse battery"}).Status(http.StatusOK)
	bob.Do("POST", "/api/servers/"+server+"/sequences/reset", nil).Status(http.StatusNoContent)
	require.Equal(t, int64(0), seqNext(t, one.Service.Sequences(), server, "alice"))
}
