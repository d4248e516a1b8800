package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

func TestBodyLimit(t *testing.T) {
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.MaxBodyBytes = 4096 }})
	ada := env.Signup(t, "Acme")
	big := `{"name":"` + strings.Repeat("x", 5000) + `"}`
	r := ada.Do("POST", "/api/servers", big).Problem(http.StatusRequestEntityTooLarge)
	require.Contains(t, r.String("detail"), "4096")
	// Just under the limit is read and then refused for what it says, not its size.
	fits := `{"name":"` + strings.Repeat("x", 4000) + `"}`
	ada.Do("POST", "/api/servers", fits).Problem(http.StatusUnprocessableEntity, "name")
}

func TestRequestID(t *testing.T) {
	env := apitest.New(t, nil)
	c := env.Anonymous(t)
	r := c.Do("GET", "/api/health", nil).Status(http.StatusOK)
	generated := r.Hdr.Get("X-Request-Id")
	require.Len(t, generated, 24)

	c.Header.Set("X-Request-Id", "trace-abc-123")
	r = c.Do("GET", "/api/servers", nil).Problem(http.StatusUnauthorized)
	require.Equal(t, "trace-abc-123", r.Hdr.Get("X-Request-Id"))
	require.Equal(t, "trace-abc-123", r.Get("request_id"), "problems carry the request id")

	c.Header.Set("X-Request-Id", "has spaces\tand tabs")
	r = c.Do("GET", "/api/health", nil).Status(http.StatusOK)
	require.NotEqual(t, "has spaces\tand tabs", r.Hdr.Get("X-Request-Id"), "unsafe ids are replaced")
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	_, ada := apitest.SignedUp(t, "Acme")
	ada.Do("GET", "/api/nothing-here", nil).Problem(http.StatusNotFound)
	r := ada.Do("PUT", "/api/servers", map[string]any{}).Problem(http.StatusMethodNotAllowed)
	require.NotEmpty(t, r.Hdr.Get("Allow"))
}

func TestHealth(t *testing.T) {
	env := apitest.New(t, nil)
	r := env.Anonymous(t).Do("GET", "/api/health", nil).Status(http.StatusOK)
	require.Equal(t, "ok", r.Get("status"))
	require.Equal(t, "ok", r.Get("database"))
	require.Equal(t, "dev", r.Get("version"))

	// With the database gone, health says so with 503 instead of failing.
	env.Service.Store().Close()
	r = env.Anonymous(t).Do("GET", "/api/health", nil).Status(http.StatusServiceUnavailable)
	require.Equal(t, "unavailable", r.Get("database"))
	require.Equal(t, "degraded", r.Get("status"))
}
