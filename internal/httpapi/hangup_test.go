package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestRunsKeptWhenTheClientHangsUp: a client that disconnects while its
// test, suite or session request is out still finds the run (or the log
// entry) stored, the target's answer cut short.
func TestRunsKeptWhenTheClientHangsUp(t *testing.T) {
	env := rtPrivateEnv(t)
	ada := env.Signup(t, "Hangup Org")
	arrived := make(chan struct{}, 1)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select { // until the service gives up on the request
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(target.Close)
	test := rtMkTest(t, ada, rtGetCase("hang", target.URL, "/hang", 200))
	suite := rtMkSuite(t, ada, map[string]any{"name": "hang", "test_ids": []any{test}})
	session := ada.Do("POST", "/api/sessions", map[string]any{"name": "hang", "base_url": target.URL}).
		Status(http.StatusCreated).String("id")

	cases := []struct {
		name, path string
		body       any
		stored     func() int
	}{
		{"a test", "/api/tests/" + test + "/run", nil,
			func() int { return ada.Do("GET", "/api/tests/"+test+"/runs", nil).Status(http.StatusOK).Len("items") }},
		{"a suite", "/api/suites/" + suite + "/run", nil,
			func() int { return ada.Do("GET", "/api/suites/"+suite+"/runs", nil).Status(http.StatusOK).Len("items") }},
		{"a session request", "/api/sessions/" + session + "/requests", map[string]any{"method": "GET", "path": "/hang"},
			func() int { return ada.Do("GET", "/api/sessions/"+session, nil).Status(http.StatusOK).Len("entries") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.stored()
			ctx, hangUp := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := ada.For(t).DoContext(ctx, "POST", c.path, c.body)
				done <- err
			}()
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("the target was never reached")
			}
			hangUp()
			require.ErrorIs(t, <-done, context.Canceled)
			apitest.Eventually(t, "the run stored", func() bool { return c.stored() == before+1 })
		})
	}
}
