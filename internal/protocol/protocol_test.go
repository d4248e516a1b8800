package protocol_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

func TestVersionsMatchTheContract(t *testing.T) {
	raw, err := api.GetSpecJSON()
	require.NoError(t, err)
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(raw, &spec))
	schema, ok := spec.Components.Schemas["ProtocolVersion"]
	require.True(t, ok, "the OpenAPI document has a ProtocolVersion schema")
	require.Equal(t, schema.Enum, protocol.Versions())
	require.Contains(t, schema.Enum, protocol.Default)
	require.Equal(t, schema.Enum[len(schema.Enum)-1], protocol.Latest)
}

func TestVersionsAreOrderedDates(t *testing.T) {
	vs := protocol.Versions()
	for i, v := range vs {
		require.True(t, protocol.IsDate(v), v)
		got, ok := protocol.Parse(v)
		require.True(t, ok, v)
		require.Equal(t, v, got)
		require.Equal(t, 0, protocol.Compare(v, v))
		if i > 0 {
			require.Equal(t, 1, protocol.Compare(v, vs[i-1]), "%s after %s", v, vs[i-1])
			require.Equal(t, -1, protocol.Compare(vs[i-1], v))
		}
	}
	vs[0] = "changed"
	require.Equal(t, protocol.V20241105, protocol.Versions()[0], "Versions returns a copy")
}

func TestParse(t *testing.T) {
	for _, v := range []string{"", "2024-11-04", "2026-07-28", "2024-11-05 ", "latest"} {
		_, ok := protocol.Parse(v)
		require.False(t, ok, v)
		require.False(t, protocol.Supported(v), v)
	}
}

func TestIsDate(t *testing.T) {
	for v, want := range map[string]bool{
		"2025-06-18": true, "2026-07-28": true, "": false, "2025-6-18": false,
		"2025/06/18": false, "2025-06-1x": false, "2025-06-180": false,
	} {
		require.Equal(t, want, protocol.IsDate(v), v)
	}
}

func TestFeatures(t *testing.T) {
	type features struct{ audio, completions, structured, outputSchema, links, batches bool }
	for v, want := range map[string]features{
		protocol.V20241105: {batches: true},
		protocol.V20250326: {audio: true, completions: true, batches: true},
		protocol.V20250618: {audio: true, completions: true, structured: true, outputSchema: true, links: true},
		protocol.V20251125: {audio: true, completions: true, structured: true, outputSchema: true, links: true},
		"2026-07-28":       {audio: true, completions: true, structured: true, outputSchema: true, links: true},
	} {
		got := features{protocol.HasAudio(v), protocol.HasCompletions(v), protocol.HasStructuredContent(v),
			protocol.HasOutputSchema(v), protocol.HasResourceLinks(v), protocol.HasBatches(v)}
		require.Equal(t, want, got, v)
	}
	// A header that names no revision keeps batches.
	for _, v := range []string{"", "latest", "2025-06-18x"} {
		require.True(t, protocol.HasBatches(v), v)
	}
}

// nonProtocolDates are dates in the code that name no MCP revision: Go's
// time layout and sample values.
var nonProtocolDates = map[string]bool{
	"2006-01-02": true, // Go's reference time layout
	"2024-01-01": true, // testgen's sample date
	"2024-05-01": true, // agentcard's example of an ISO 8601 date
	"2027-01-31": true, // the keys command's example expiry
}

var dateLiteral = regexp.MustCompile(`20[0-9][0-9]-[01][0-9]-[0-3][0-9]`)

// TestRevisionsNamedOnlyHere scans the Go files under internal/ and cmd/
// (tests aside): a protocol revision is spelled in this package only.
func TestRevisionsNamedOnlyHere(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	self, err := filepath.Abs(".")
	require.NoError(t, err)
	scanned := 0
	for _, dir := range []string{"internal", "cmd"} {
		scanned += scanRevisions(t, filepath.Join(root, dir), root, self)
	}
	require.Greater(t, scanned, 100, "the scan saw the internal packages and the commands")
}

// scanRevisions reports each protocol date in the Go files under dir but
// self's, and returns how many files it read.
func scanRevisions(t *testing.T, dir, root, self string) int {
	t.Helper()
	scanned := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Dir(path) == self {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		for i, line := range strings.Split(string(src), "\n") {
			for _, date := range dateLiteral.FindAllString(line, -1) {
				if !nonProtocolDates[date] {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d names %s: use the protocol package", rel, i+1, date)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return scanned
}
