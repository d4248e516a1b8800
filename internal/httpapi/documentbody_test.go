package httpapi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// TestDocumentBody: a document is read from the JSON body or the text body,
// and a request with neither, or whose body cannot be read, is a 400 that
// names the document.
func TestDocumentBody(t *testing.T) {
	js := json.RawMessage(`{"kind":"A2AAgent"}`)
	raw, err := documentBody(&js, nil, "an agent card document")
	require.NoError(t, err)
	require.Equal(t, `{"kind":"A2AAgent"}`, string(raw))

	raw, err = documentBody(nil, strings.NewReader("kind: MCPServer\n"), "a design document")
	require.NoError(t, err)
	require.Equal(t, "kind: MCPServer\n", string(raw))

	_, err = documentBody(nil, nil, "a design document")
	var f *failure.Error
	require.True(t, errors.As(err, &f), "%T", err)
	require.Contains(t, err.Error(), "the body must be a design document")

	_, err = documentBody(nil, failingReader{}, "a design document")
	require.ErrorContains(t, err, "the request body could not be read")
}
