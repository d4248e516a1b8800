package credential_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/credential"
)

func TestIs(t *testing.T) {
	for _, name := range credential.Headers {
		require.True(t, credential.Is(name), name)
		require.True(t, credential.Is(" "+name+" "), "%q padded", name)
	}
	for _, name := range []string{"api_key", "access_token", "X-Amz-Signature", "X-Amz-Credential", "password",
		"passwd", "pwd", "client_secret", "sig", "session_id", "apikey", "code_verifier_token"} {
		require.True(t, credential.Is(name), "query parameter %s", name)
	}
	for _, name := range []string{"Accept", "Content-Type", "X-Request-Id", "User-Agent", "X-Amz-Content-Sha256",
		"X-Amz-Date", "WWW-Authenticate", "Proxy-Authenticate", "Idempotency-Key", "Sec-WebSocket-Key",
		"Cache-Control", "Keep-Alive", "X-Trace", "q", "page", "signal", "design", ""} {
		require.False(t, credential.Is(name), name)
	}
}
