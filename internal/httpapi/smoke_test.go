package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

func TestSmoke(t *testing.T) {
	env, ada := apitest.SignedUp(t, "Acme Labs")
	r := ada.Do("POST", "/api/servers", map[string]any{"name": "Weather"}).Status(http.StatusCreated)
	require.Equal(t, false, r.Get("enabled"))
	env.Anonymous(t).Do("GET", "/api/servers", nil).Problem(http.StatusUnauthorized)
}
