package platformmcp

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSharesTheTransportNotTheDesignEndpoint: the service endpoint is built
// on the shared MCP transport alone, never on the per-server endpoint.
func TestSharesTheTransportNotTheDesignEndpoint(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command runs this test")
	cmd := exec.Command(goTool, "list", "-deps", ".")
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	const internal = "github.com/mockmcp/mockmcp/internal/"
	require.Contains(t, deps, internal+"mcptransport")
	require.NotContains(t, deps, internal+"mcpserve")
}
