package mcptransport_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// TestNotJSONIsAParseErrorWhereBatchesAreGone: under a protocol version
// without batches, a body that begins with '[' is refused as a batch only
// when it is one (UTF-8 JSON); anything else is a parse error, as it is
// where batches exist.
func TestNotJSONIsAParseErrorWhereBatchesAreGone(t *testing.T) {
	tr := mcptransport.Transport{MaxBodyBytes: 1 << 20}
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`, http.StatusBadRequest, `"code":-32600`},
		{"an open bracket", `[`, http.StatusOK, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"a broken array", ` [{"jsonrpc":"2.0","id":1,"method":"echo"},]`, http.StatusOK, `"code":-32700`},
		{"not UTF-8", "[\"\xff\"]", http.StatusOK, `"code":-32700`},
		{"nested too deep", strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001), http.StatusOK, `"code":-32700`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, version := range []string{"2025-06-18", "2026-07-28"} {
				req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader([]byte(tc.body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				req.Header.Set("Mcp-Protocol-Version", version)
				w := httptest.NewRecorder()
				var p mcptransport.Payload
				require.True(t, tr.Read(w, req, &p))
				tr.Serve(w, req, fuzzTarget{}, &p)
				p.Release()
				require.Equal(t, tc.status, w.Code, "%s under %s: %s", tc.name, version, w.Body)
				require.Contains(t, w.Body.String(), tc.want, "under %s", version)
			}
		})
	}
}
