package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResourceCreate(t *testing.T) {
	t.Parallel()
	env, ada, server, resources := designFixture(t, "Acme Labs", "Docs", "resources")

	t.Run("text content", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", resources, map[string]any{
			"name": "Guide", "uri": "docs://guide", "description": "The guide", "mime_type": "text/markdown",
			"content": "# Guide\nRead {this}.",
		}).Status(http.StatusCreated)
		require.Equal(t, server, r.Get("server_id"))
		require.Equal(t, "Guide", r.Get("name"))
		require.Equal(t, "docs://guide", r.Get("uri"))
		require.Equal(t, "The guide", r.Get("description"))
		require.Equal(t, "text/markdown", r.Get("mime_type"))
		require.Equal(t, "# Guide\nRead {this}.", r.Get("content"))
		requireReadBack(t, ada, resources+"/"+r.String("id"), r)
	})

	t.Run("JSON content", func(t *testing.T) {
		ada := ada.For(t)
		for _, tc := range []struct {
			name, uri, content string
		}{
			{"object", "data://object", `{"a":[1,2,{"b":null}],"c":"d"}`},
			{"array", "data://array", `[1,"two",false]`},
			{"number", "data://number", `42.5`},
			{"big number", "data://big", `12345678901234567890`},
			{"false", "data://false", `false`},
			{"empty string", "data://empty", `""`},
			{"escaped backslash before u0000", "data://escaped", `"\\u0000"`},
			{"surrogate pair", "data://pair", `"\ud83d\ude00"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ada := ada.For(t)
				r := ada.Do("POST", resources, `{"name":"`+tc.name+`","uri":"`+tc.uri+`","content":`+tc.content+`}`).Status(http.StatusCreated)
				require.Nil(t, r.Get("mime_type"))
				require.Contains(t, r.JSON, "mime_type")
				require.Equal(t, "", r.Get("description"))
				for _, raw := range [][]byte{r.Raw, ada.Do("GET", resources+"/"+r.String("id"), nil).Status(http.StatusOK).Raw} {
					want := exactJSON(t, []byte(`{"c":`+tc.content+`}`))["c"]
					require.Equal(t, want, exactJSON(t, raw)["content"])
				}
			})
		}
	})

	t.Run("URI forms", func(t *testing.T) {
		ada := ada.For(t)
		for _, tc := range []struct {
			name, uri string
			ok        bool
		}{
			{"plain", "docs://guide/intro", true},
			{"template", "weather://{city}/now", true},
			{"two parameters", "weather://{city}/{day_2}", true},
			{"file", "file:///tmp/x", true},
			{"urn", "urn:isbn:0451450523", true},
			{"https with query", "https://example.com/a?b=c#d", true},
			{"no scheme", "no-scheme", false},
			{"relative path", "/docs/guide", false},
			{"scheme starting with a digit", "1docs://guide", false},
			{"space in a parameter", "weather://{ci ty}", false},
			{"repeated parameter", "a://{x}/{x}", false},
			{"unclosed parameter", "weather://{city", false},
			{"unopened parameter", "weather://city}", false},
			{"empty parameter", "weather://{}", false},
			{"parameter starting with a digit", "weather://{1city}", false},
			{"parameter with a dash", "weather://{the-city}", false},
			{"nested braces", "weather://{{city}}", false},
			{"spaces", "docs://my guide", false},
			{"tab", "docs://guide\tx", false},
			{"bad escape", "docs://guide%zz", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ada := ada.For(t)
				r := ada.Do("POST", resources, map[string]any{"name": tc.name, "uri": tc.uri, "content": "x"})
				if !tc.ok {
					r.Problem(http.StatusUnprocessableEntity, "uri")
					return
				}
				r.Status(http.StatusCreated)
				require.Equal(t, tc.uri, r.Get("uri"))
			})
		}
	})

	t.Run("URI unique per server", func(t *testing.T) {
		ada := ada.For(t)
		mkChild(t, ada, server, "resources", map[string]any{"name": "One", "uri": "dup://x", "content": "1"})
		p := ada.Do("POST", resources, map[string]any{"name": "Two", "uri": "dup://x", "content": "2"}).Problem(http.StatusConflict)
		require.Contains(t, p.String("detail"), "URI")
		mkChild(t, ada, server, "resources", map[string]any{"name": "One", "uri": "dup://X", "content": "same name, other URI"})
		other := mkServer(t, ada, "Other")
		mkChild(t, ada, other, "resources", map[string]any{"name": "One", "uri": "dup://x", "content": "other server"})
		require.Equal(t, 1, rowCount(t, env, "mcp_resources", "server_id", other))
	})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		before := rowCount(t, env, "mcp_resources", "server_id", server)
		requireInvalid(t, ada, "POST", resources, []invalidBody{
			{"missing content", map[string]any{"name": "x", "uri": "docs://a"}, []string{"content"}},
			{"null content", map[string]any{"name": "x", "uri": "docs://a", "content": nil}, []string{"content"}},
			{"missing uri", map[string]any{"name": "x", "content": "c"}, []string{"uri"}},
			{"empty uri", map[string]any{"name": "x", "uri": "", "content": "c"}, []string{"uri"}},
			{"missing name", map[string]any{"uri": "docs://a", "content": "c"}, []string{"name"}},
			{"mime_type without a slash", map[string]any{"name": "x", "uri": "docs://a", "content": "c", "mime_type": "markdown"}, []string{"mime_type"}},
			{"mime_type with a space", map[string]any{"name": "x", "uri": "docs://a", "content": "c", "mime_type": "not a type"}, []string{"mime_type"}},
			{"mime_type without a subtype", map[string]any{"name": "x", "uri": "docs://a", "content": "c", "mime_type": "text/"}, []string{"mime_type"}},
			{"mime_type not a string", map[string]any{"name": "x", "uri": "docs://a", "content": "c", "mime_type": 5}, []string{"mime_type"}},
			{"unknown field", map[string]any{"name": "x", "uri": "docs://a", "content": "c", "text": "c"}, []string{"text"}},
			{"NUL in content", map[string]any{"name": "x", "uri": "docs://a", "content": "a\x00"}, []string{"content"}},
			{"NUL in a JSON content key", map[string]any{"name": "x", "uri": "docs://a", "content": map[string]any{"\x00": 1}}, []string{"content"}},
			{"NUL in name, description and uri", map[string]any{"name": "\x00", "description": "\x00", "uri": "docs://\x00", "content": "c"}, []string{"name", "description", "uri"}},
			{"unpaired surrogate escape in content", `{"name":"x","uri":"docs://a","content":"\ud800"}`, []string{"content"}},
			{"several save-time problems at once", map[string]any{"name": "x", "uri": "a://{x}/{x}", "mime_type": "bad", "content": "c"}, []string{"uri", "mime_type"}},
		})
		require.Equal(t, before, rowCount(t, env, "mcp_resources", "server_id", server))
	})

	t.Run("1,000 per server", func(t *testing.T) {
		ada := ada.For(t)
		full := mkServer(t, ada, "Full")
		fillServer(t, env, ada, "mcp_resources", full, 999)
		mkChild(t, ada, full, "resources", map[string]any{"name": "last", "uri": "docs://last", "content": "c"})
		ada.Do("POST", "/api/servers/"+full+"/resources", map[string]any{"name": "over", "uri": "docs://over", "content": "c"}).
			Problem(http.StatusUnprocessableEntity, "resources")
		require.Equal(t, 1000, rowCount(t, env, "mcp_resources", "server_id", full))
	})

	t.Run("listed in creation order", func(t *testing.T) {
		ada := ada.For(t)
		s := mkServer(t, ada, "Ordered")
		for _, n := range []string{"c", "a", "b"} {
			mkChild(t, ada, s, "resources", map[string]any{"name": n, "uri": "o://" + n, "content": n})
		}
		require.Equal(t, []string{"c", "a", "b"}, names(t, ada.Do("GET", "/api/servers/"+s+"/resources", nil).Status(http.StatusOK), "items"))
	})
}

func TestResourceUpdateDelete(t *testing.T) {
	t.Parallel()
	env, ada, server, resources := designFixture(t, "Acme Labs", "Docs", "resources")
	id := mkChild(t, ada, server, "resources", map[string]any{
		"name": "Guide", "uri": "docs://guide", "mime_type": "text/plain", "content": "v1",
	})
	mkChild(t, ada, server, "resources", map[string]any{"name": "Taken", "uri": "docs://taken", "content": "t"})
	path := resources + "/" + id

	t.Run("fields", func(t *testing.T) {
		ada := ada.For(t)
		touched := serverUpdatedAt(t, ada, server)
		r := ada.Do("PATCH", path, map[string]any{"content": map[string]any{"v": 2}, "description": "second"}).Status(http.StatusOK)
		require.JSONEq(t, `{"v":2}`, jsonAt(t, r, "content"))
		require.Equal(t, "second", r.Get("description"))
		require.Equal(t, "text/plain", r.Get("mime_type"), "absent keeps")
		require.Equal(t, "docs://guide", r.Get("uri"))
		require.True(t, serverUpdatedAt(t, ada, server).After(touched))

		r = ada.Do("PATCH", path, map[string]any{"uri": "docs://{section}/guide", "name": "Sections"}).Status(http.StatusOK)
		require.Equal(t, "docs://{section}/guide", r.Get("uri"))
		require.Equal(t, "Sections", r.Get("name"))
		requireReadBack(t, ada, path, r)
	})

	t.Run("mime_type null clears", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"mime_type": nil}).Status(http.StatusOK)
		require.Nil(t, r.Get("mime_type"))
		require.Contains(t, r.JSON, "mime_type")
		require.Nil(t, ada.Do("GET", path, nil).Status(http.StatusOK).Get("mime_type"))
		r = ada.Do("PATCH", path, map[string]any{"mime_type": "application/json; charset=utf-8"}).Status(http.StatusOK)
		require.Equal(t, "application/json; charset=utf-8", r.Get("mime_type"))
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		requirePatchesRefused(t, ada.For(t), path, server, []badPatch{
			{"bad uri", map[string]any{"uri": "weather://{city", "content": "changed"}, http.StatusUnprocessableEntity, []string{"uri"}},
			{"uri of another resource", map[string]any{"uri": "docs://taken"}, http.StatusConflict, nil},
			{"bad mime_type", map[string]any{"mime_type": "text"}, http.StatusUnprocessableEntity, []string{"mime_type"}},
			{"content null", map[string]any{"content": nil}, http.StatusUnprocessableEntity, []string{"content"}},
			{"name null", map[string]any{"name": nil}, http.StatusUnprocessableEntity, []string{"name"}},
			{"unknown field", map[string]any{"server_id": server}, http.StatusUnprocessableEntity, []string{"server_id"}},
		})
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		requireDeletedFromServer(t, ada, path, server)
		ada.Do("PATCH", path, map[string]any{"name": "x"}).Problem(http.StatusNotFound)
		ada.Do("DELETE", path, nil).Problem(http.StatusNotFound)
		require.Equal(t, []string{"Taken"}, names(t, ada.Do("GET", resources, nil).Status(http.StatusOK), "items"))
		require.Equal(t, 0, rowCount(t, env, "mcp_resources", "id", id))
		ada.Do("DELETE", resources+"/nope", nil).Problem(http.StatusBadRequest, "resource_id")
	})
}
