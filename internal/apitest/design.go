package apitest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// CreateServer creates a server from the body of POST /api/servers, then
// its tools, resources and prompts, in order, from the bodies of POST
// /api/servers/{id}/tools, /resources and /prompts, and returns its id.
func (c *Client) CreateServer(server json.RawMessage, tools, resources, prompts []json.RawMessage) string {
	c.t.Helper()
	id := c.Do(http.MethodPost, "/api/servers", []byte(server)).Status(http.StatusCreated).String("id")
	for _, part := range []struct {
		path   string
		bodies []json.RawMessage
	}{{"tools", tools}, {"resources", resources}, {"prompts", prompts}} {
		for _, body := range part.bodies {
			c.Do(http.MethodPost, "/api/servers/"+id+"/"+part.path, []byte(body)).Status(http.StatusCreated)
		}
	}
	return id
}

// EnableServer enables the server id and returns the answer.
func (c *Client) EnableServer(id string) *Response {
	c.t.Helper()
	r := c.Do(http.MethodPatch, "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
	require.Equal(c.t, true, r.Get("enabled"))
	return r
}

// RequireValidDocument requires the design document doc (JSON or YAML) to
// be valid against s, the compiled design document schema.
func RequireValidDocument(t testing.TB, s *schema.Schema, doc []byte) {
	t.Helper()
	js, err := designdoc.ToJSON(doc)
	require.NoError(t, err)
	v, err := jsonvalue.Decode(js)
	require.NoError(t, err)
	require.Empty(t, s.Validate(v), "%s", doc)
}
