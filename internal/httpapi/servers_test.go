package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// Helpers shared by the server design tests (servers, tools, resources,
// prompts).

// mkServer creates a server design and returns its id.
func mkServer(t testing.TB, c *apitest.Client, name string) string {
	t.Helper()
	return c.Do("POST", "/api/servers", map[string]any{"name": name}).Status(http.StatusCreated).String("id")
}

// designFixture boots the service for t, signs up an organization named org
// and creates a server design named name in it; it returns the server's id
// and the path of its kind (tools, resources or prompts).
func designFixture(t *testing.T, org, name, kind string) (env *apitest.Env, c *apitest.Client, server, path string) {
	t.Helper()
	env, c = apitest.SignedUp(t, org)
	server = mkServer(t, c, name)
	return env, c, server, "/api/servers/" + server + "/" + kind
}

// mkChild creates a tool, resource or prompt (kind is the path segment) on a
// server and returns its id.
func mkChild(t testing.TB, c *apitest.Client, server, kind string, body map[string]any) string {
	t.Helper()
	return c.Do("POST", "/api/servers/"+server+"/"+kind, body).Status(http.StatusCreated).String("id")
}

// rowCount counts the rows of table that belong to server, through the
// superuser pool (which bypasses row-level security).
func rowCount(t *testing.T, env *apitest.Env, table, column, server string) int {
	t.Helper()
	var n int
	err := env.Service.Store().Pool().QueryRow(context.Background(),
		fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = $1", table, column), server).Scan(&n)
	require.NoError(t, err)
	return n
}

// jsonAt re-encodes the value at path of a response, for require.JSONEq.
func jsonAt(t *testing.T, r *apitest.Response, path string) string {
	t.Helper()
	b, err := json.Marshal(r.Get(path))
	require.NoError(t, err)
	return string(b)
}

// timeAt parses the RFC 3339 timestamp at path.
func timeAt(t *testing.T, r *apitest.Response, path string) time.Time {
	t.Helper()
	s := r.String(path)
	require.True(t, strings.HasSuffix(s, "Z"), "%s = %q is not UTC", path, s)
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

// exactJSON decodes a raw body keeping numbers as written.
func exactJSON(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v map[string]any
	require.NoError(t, d.Decode(&v))
	return v
}

// names lists the "name" of every element of the array at path.
func names(t *testing.T, r *apitest.Response, path string) []string {
	t.Helper()
	return rtStrings(t, r, path, "name")
}

// serverUpdatedAt reads a server's updated_at.
func serverUpdatedAt(t *testing.T, c *apitest.Client, server string) time.Time {
	t.Helper()
	return timeAt(t, c.Do("GET", "/api/servers/"+server, nil).Status(http.StatusOK), "updated_at")
}

// requireDeletedFromServer deletes the item at path and requires that its
// server was marked as changed and the item is gone.
func requireDeletedFromServer(t *testing.T, c *apitest.Client, path, server string) {
	t.Helper()
	touched := serverUpdatedAt(t, c, server)
	c.Do("DELETE", path, nil).Status(http.StatusNoContent)
	require.True(t, serverUpdatedAt(t, c, server).After(touched))
	c.Do("GET", path, nil).Problem(http.StatusNotFound)
}

// requireReadBack requires that a GET of path as c answers exactly what r
// (the answer of a create or an update) holds.
func requireReadBack(t *testing.T, c *apitest.Client, path string, r *apitest.Response) {
	t.Helper()
	got := c.Do("GET", path, nil).Status(http.StatusOK)
	require.JSONEq(t, string(r.Raw), string(got.Raw))
}

// badPatch is a PATCH body the API refuses: the status its problem answers
// and the fields it names.
type badPatch struct {
	name   string
	body   any
	status int
	fields []string
}

// requirePatchesRefused sends each patch to path and requires its problem;
// then that the item is as it was and, when server is given, that the
// server was not marked as changed.
func requirePatchesRefused(t *testing.T, c *apitest.Client, path, server string, patches []badPatch) {
	t.Helper()
	before := c.Do("GET", path, nil).Status(http.StatusOK)
	var touched time.Time
	if server != "" {
		touched = serverUpdatedAt(t, c, server)
	}
	for _, tc := range patches {
		t.Run(tc.name, func(t *testing.T) {
			c := c.For(t)
			c.Do("PATCH", path, tc.body).Problem(tc.status, tc.fields...)
		})
	}
	after := c.Do("GET", path, nil).Status(http.StatusOK)
	require.JSONEq(t, string(before.Raw), string(after.Raw))
	if server != "" {
		require.Equal(t, touched, serverUpdatedAt(t, c, server), "a refused change does not touch the server")
	}
}

// invalidBody is a request body the API refuses as invalid (422) and the
// fields its problem names.
type invalidBody struct {
	name   string
	body   any
	fields []string
}

// requireInvalid sends each body to path as c and requires a 422 problem
// naming exactly its fields.
func requireInvalid(t *testing.T, c *apitest.Client, method, path string, bodies []invalidBody) {
	t.Helper()
	for _, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			c.For(t).Do(method, path, tc.body).Problem(http.StatusUnprocessableEntity, tc.fields...)
		})
	}
}

// refusal is a request body the API refuses: the status its problem
// answers, the fields it names and, when set, its detail.
type refusal struct {
	name   string
	body   any
	status int
	fields []string
	detail string
}

// require sends the body as c and requires the problem.
func (rf refusal) require(t *testing.T, c *apitest.Client, method, path string) *apitest.Response {
	t.Helper()
	r := c.Do(method, path, rf.body).Problem(rf.status, rf.fields...)
	if rf.detail != "" {
		require.Equal(t, rf.detail, r.String("detail"))
	}
	return r
}

// fillServer inserts n rows into table (mcp_tools, mcp_resources or
// mcp_prompts) for server directly, through the superuser pool, with names
// (and for resources URIs) prefixed bulk_.
func fillServer(t *testing.T, env *apitest.Env, c *apitest.Client, table, server string, n int) {
	t.Helper()
	cols, vals := "name", "'bulk_' || g"
	switch table {
	case "mcp_tools":
		cols, vals = "name, input_schema", `'bulk_' || g, '{"type":"object"}'`
	case "mcp_resources":
		cols, vals = "name, uri, content", `'bulk_' || g, 'bulk://' || g, '"c"'`
	}
	_, err := env.Service.Store().Pool().Exec(context.Background(), fmt.Sprintf(
		`INSERT INTO %s (id, organization_id, server_id, %s) SELECT gen_random_uuid(), $1, $2, %s FROM generate_series(1, $3::int) g`,
		table, cols, vals), c.OrgID, server, n)
	require.NoError(t, err)
}

const missingID = "3f8a2b9c-1d4e-4f5a-8b6c-7d8e9f0a1b2c"

func TestServerCreate(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Acme Labs")

	t.Run("defaults", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/servers", map[string]any{"name": "  Weather  "}).Status(http.StatusCreated)
		id := r.String("id")
		require.Equal(t, "Weather", r.Get("name"), "the name is trimmed")
		require.Equal(t, false, r.Get("enabled"))
		require.Equal(t, "1.0.0", r.Get("version"))
		require.Equal(t, "mock", r.Get("type"))
		require.Equal(t, "2024-11-05", r.Get("protocol_version"))
		require.Equal(t, "none", r.Get("auth_mode"))
		require.Equal(t, "", r.Get("description"))
		require.Nil(t, r.Get("provider_name"))
		require.Nil(t, r.Get("provider_url"))
		require.Contains(t, r.JSON, "provider_name", "nullable fields are present")
		require.True(t, strings.HasSuffix(r.String("endpoint_url"), "/api/platform/"+id+"/mcp"), r.String("endpoint_url"))
		require.Equal(t, ada.UserID, r.Get("created_by"))
		created := timeAt(t, r, "created_at")
		require.WithinDuration(t, time.Now(), created, time.Minute)
		require.Equal(t, created, timeAt(t, r, "updated_at"))
	})

	t.Run("all fields", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/servers", map[string]any{
			"name": "Full", "description": "All of it", "version": "2.3.4", "provider_name": "Acme",
			"provider_url": "https://acme.example/docs", "type": "openapi", "protocol_version": "2025-06-18",
			"auth_mode": "api_key",
		}).Status(http.StatusCreated)
		got := ada.Do("GET", "/api/servers/"+r.String("id"), nil).Status(http.StatusOK)
		for field, want := range map[string]any{
			"name": "Full", "description": "All of it", "version": "2.3.4", "provider_name": "Acme",
			"provider_url": "https://acme.example/docs", "type": "openapi", "protocol_version": "2025-06-18",
			"auth_mode": "api_key", "enabled": false, "id": r.String("id"), "created_by": ada.UserID,
		} {
			require.Equal(t, want, r.Get(field), "create answer, %s", field)
			require.Equal(t, want, got.Get(field), "get answer, %s", field)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		requireInvalid(t, ada, "POST", "/api/servers", []invalidBody{
			{"missing name", map[string]any{}, []string{"name"}},
			{"empty name", map[string]any{"name": ""}, []string{"name"}},
			{"blank name", map[string]any{"name": "   "}, []string{"name"}},
			{"name too long", map[string]any{"name": strings.Repeat("n", 201)}, []string{"name"}},
			{"unknown field", map[string]any{"name": "x", "colour": "red"}, []string{"colour"}},
			{"bad type", map[string]any{"name": "x", "type": "proxy"}, []string{"type"}},
			{"bad auth_mode", map[string]any{"name": "x", "auth_mode": "oauth2"}, []string{"auth_mode"}},
			{"bad protocol_version", map[string]any{"name": "x", "protocol_version": "1999-01-01"}, []string{"protocol_version"}},
			{"provider_url ftp", map[string]any{"name": "x", "provider_url": "ftp://acme.example"}, []string{"provider_url"}},
			{"provider_url relative", map[string]any{"name": "x", "provider_url": "/docs"}, []string{"provider_url"}},
			{"provider_url without host", map[string]any{"name": "x", "provider_url": "https://"}, []string{"provider_url"}},
			{"provider_url not a URL", map[string]any{"name": "x", "provider_url": "not a url"}, []string{"provider_url"}},
			{"two enum problems", map[string]any{"name": "x", "type": "proxy", "auth_mode": "oauth2"}, []string{"type", "auth_mode"}},
			{"blank name and bad provider_url", map[string]any{"name": " ", "provider_url": "mailto:a@b.c"}, []string{"name", "provider_url"}},
			// PostgreSQL cannot store NUL; it used to surface as a 500.
			{"NUL in name", map[string]any{"name": "a\x00b"}, []string{"name"}},
			{"NUL in description and provider_name", map[string]any{"name": "x", "description": "\x00", "provider_name": "A\x00"}, []string{"description", "provider_name"}},
		})
		ada.Do("POST", "/api/servers", "{nope").Problem(http.StatusBadRequest, "body")
	})
}

func TestServerList(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)

	t.Run("newest first and only the organization's own", func(t *testing.T) {
		c := env.Signup(t, "Order")
		other := env.Signup(t, "Other")
		mkServer(t, other, "Foreign")
		for _, n := range []string{"First", "Second", "Third"} {
			mkServer(t, c, n)
		}
		r := c.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		require.Equal(t, []string{"Third", "Second", "First"}, names(t, r, "items"))
		require.Nil(t, r.Get("next_cursor"))
		require.Contains(t, r.JSON, "next_cursor")
	})

	t.Run("empty", func(t *testing.T) {
		r := env.Signup(t, "Empty").Do("GET", "/api/servers", nil).Status(http.StatusOK)
		require.Equal(t, 0, r.Len("items"))
		require.Nil(t, r.Get("next_cursor"))
	})

	for _, total := range []int{5, 4} {
		t.Run(fmt.Sprintf("limit 2 walks %d servers", total), func(t *testing.T) {
			c := env.Signup(t, fmt.Sprintf("Pages %d", total))
			var want []string
			for i := range total {
				id := mkServer(t, c, fmt.Sprintf("S%d", i))
				want = append([]string{id}, want...) // newest first
			}
			var got []string
			seen := map[string]bool{}
			cursor := ""
			pages := 0
			for {
				path := "/api/servers?limit=2"
				if cursor != "" {
					path += "&cursor=" + url.QueryEscape(cursor)
				}
				r := c.Do("GET", path, nil).Status(http.StatusOK)
				pages++
				require.LessOrEqual(t, r.Len("items"), 2)
				for _, id := range rtStrings(t, r, "items", "id") {
					require.False(t, seen[id], "server %s listed twice", id)
					seen[id] = true
					got = append(got, id)
				}
				next := r.Get("next_cursor")
				if next == nil {
					break
				}
				cursor = next.(string)
				require.NotEmpty(t, cursor)
				require.Less(t, pages, 10, "pagination does not end")
			}
			require.Equal(t, want, got)
			require.Equal(t, (total+1)/2, pages)
		})
	}

	t.Run("bad parameters", func(t *testing.T) {
		c := env.Signup(t, "Params")
		enc := base64URL
		for _, tc := range []struct {
			name, query, field string
		}{
			{"cursor not base64", "cursor=!!!", "cursor"},
			{"cursor without separator", "cursor=" + enc("12345"), "cursor"},
			{"cursor with a bad time", "cursor=" + enc("soon:"+missingID), "cursor"},
			{"cursor with a bad id", "cursor=" + enc("12345:nope"), "cursor"},
			{"cursor too long", "cursor=" + strings.Repeat("A", 201), "cursor"},
			{"limit 0", "limit=0", "limit"},
			{"limit 201", "limit=201", "limit"},
			{"limit negative", "limit=-1", "limit"},
			{"limit not a number", "limit=ten", "limit"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := c.For(t)
				c.Do("GET", "/api/servers?"+tc.query, nil).Problem(http.StatusBadRequest, tc.field)
			})
		}
		id := mkServer(t, c, "Only")
		r := c.Do("GET", "/api/servers?limit=200", nil).Status(http.StatusOK)
		require.Equal(t, []string{"Only"}, names(t, r, "items"))
		r = c.Do("GET", "/api/servers?cursor="+enc("1:"+missingID), nil).Status(http.StatusOK)
		require.Equal(t, 0, r.Len("items"), "a cursor older than every server gives an empty page")
		require.Nil(t, r.Get("next_cursor"))
		r = c.Do("GET", "/api/servers?cursor="+enc(fmt.Sprintf("%d:%s", time.Now().Add(time.Hour).UnixNano(), missingID)), nil).Status(http.StatusOK)
		require.Equal(t, id, r.Get("items.0.id"), "a cursor newer than every server gives them all")
	})
}

func base64URL(s string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

func TestServerUpdate(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Acme Labs")
	id := mkServer(t, ada, "Weather")
	path := "/api/servers/" + id

	t.Run("enable and disable", func(t *testing.T) {
		ada := ada.For(t)
		before := serverUpdatedAt(t, ada, id)
		r := ada.Do("PATCH", path, map[string]any{"enabled": true}).Status(http.StatusOK)
		require.Equal(t, true, r.Get("enabled"))
		require.Equal(t, "Weather", r.Get("name"), "other fields are kept")
		require.True(t, timeAt(t, r, "updated_at").After(before))
		require.Equal(t, true, ada.Do("GET", path, nil).Status(http.StatusOK).Get("enabled"))

		r = ada.Do("PATCH", path, map[string]any{"description": "still on"}).Status(http.StatusOK)
		require.Equal(t, true, r.Get("enabled"), "absent enabled is kept")
		require.Equal(t, "still on", r.Get("description"))

		r = ada.Do("PATCH", path, map[string]any{"enabled": false}).Status(http.StatusOK)
		require.Equal(t, false, r.Get("enabled"))
		require.Equal(t, false, ada.Do("GET", path, nil).Status(http.StatusOK).Get("enabled"))
	})

	t.Run("nullable fields: value, absent, null", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"provider_name": "Acme", "provider_url": "http://acme.example"}).Status(http.StatusOK)
		require.Equal(t, "Acme", r.Get("provider_name"))
		require.Equal(t, "http://acme.example", r.Get("provider_url"))

		r = ada.Do("PATCH", path, map[string]any{"version": "1.1.0"}).Status(http.StatusOK)
		require.Equal(t, "Acme", r.Get("provider_name"), "absent leaves the value")
		require.Equal(t, "http://acme.example", r.Get("provider_url"))
		require.Equal(t, "1.1.0", r.Get("version"))

		r = ada.Do("PATCH", path, map[string]any{"provider_name": nil}).Status(http.StatusOK)
		require.Nil(t, r.Get("provider_name"), "null clears")
		require.Contains(t, r.JSON, "provider_name")
		require.Equal(t, "http://acme.example", r.Get("provider_url"))
		got := ada.Do("GET", path, nil).Status(http.StatusOK)
		require.Nil(t, got.Get("provider_name"))

		r = ada.Do("PATCH", path, map[string]any{"provider_url": nil}).Status(http.StatusOK)
		require.Nil(t, r.Get("provider_url"))
	})

	t.Run("other fields", func(t *testing.T) {
		ada := ada.For(t)
		created := timeAt(t, ada.Do("GET", path, nil).Status(http.StatusOK), "created_at")
		r := ada.Do("PATCH", path, map[string]any{
			"name": " Forecast ", "type": "openapi", "protocol_version": "2025-03-26", "auth_mode": "api_key",
		}).Status(http.StatusOK)
		require.Equal(t, "Forecast", r.Get("name"))
		require.Equal(t, "openapi", r.Get("type"))
		require.Equal(t, "2025-03-26", r.Get("protocol_version"))
		require.Equal(t, "api_key", r.Get("auth_mode"))
		require.Equal(t, created, timeAt(t, r, "created_at"))
		require.Equal(t, ada.UserID, r.Get("created_by"))
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		requirePatchesRefused(t, ada.For(t), path, "", []badPatch{
			{"provider_url not http", map[string]any{"provider_url": "javascript:alert(1)"}, http.StatusUnprocessableEntity, []string{"provider_url"}},
			{"provider_url relative", map[string]any{"provider_url": "acme.example"}, http.StatusUnprocessableEntity, []string{"provider_url"}},
			{"unknown field", map[string]any{"name": "x", "owner": "me"}, http.StatusUnprocessableEntity, []string{"owner"}},
			{"enabled not boolean", map[string]any{"enabled": "yes"}, http.StatusUnprocessableEntity, []string{"enabled"}},
			{"bad type", map[string]any{"type": "MOCK"}, http.StatusUnprocessableEntity, []string{"type"}},
			{"bad auth_mode", map[string]any{"auth_mode": ""}, http.StatusUnprocessableEntity, []string{"auth_mode"}},
			{"bad protocol_version", map[string]any{"protocol_version": "latest"}, http.StatusUnprocessableEntity, []string{"protocol_version"}},
			{"empty name", map[string]any{"name": ""}, http.StatusUnprocessableEntity, []string{"name"}},
			{"blank name", map[string]any{"name": "  ", "enabled": true}, http.StatusUnprocessableEntity, []string{"name"}},
			{"null name", map[string]any{"name": nil}, http.StatusUnprocessableEntity, []string{"name"}},
			{"NUL in version", map[string]any{"version": "1\x00"}, http.StatusUnprocessableEntity, []string{"version"}},
		})
	})
}

func TestServerGetDelete(t *testing.T) {
	t.Parallel()
	env, ada, eve := apitest.Rivals(t, "Acme Labs", "Evil Corp")

	t.Run("get", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Weather")
		r := ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK)
		require.Equal(t, id, r.Get("id"))
		require.Equal(t, "Weather", r.Get("name"))
	})

	t.Run("unknown, foreign and malformed ids", func(t *testing.T) {
		ada := ada.For(t)
		eve := eve.For(t)
		foreign := mkServer(t, eve, "Theirs")
		for _, id := range []string{missingID, foreign} {
			ada.Do("GET", "/api/servers/"+id, nil).Problem(http.StatusNotFound)
			ada.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Problem(http.StatusNotFound)
			ada.Do("DELETE", "/api/servers/"+id, nil).Problem(http.StatusNotFound)
			ada.Do("POST", "/api/servers/"+id+"/duplicate", nil).Problem(http.StatusNotFound)
		}
		r := eve.Do("GET", "/api/servers/"+foreign, nil).Status(http.StatusOK)
		require.Equal(t, false, r.Get("enabled"), "the other organization's attempts changed nothing")
		for _, bad := range []string{"nope", "123", missingID + "0"} {
			ada.Do("GET", "/api/servers/"+bad, nil).Problem(http.StatusBadRequest, "server_id")
			ada.Do("DELETE", "/api/servers/"+bad, nil).Problem(http.StatusBadRequest, "server_id")
		}
	})

	t.Run("delete takes everything the server owns", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Doomed")
		keep := mkServer(t, ada, "Kept")
		for _, s := range []string{id, keep} {
			mkChild(t, ada, s, "tools", map[string]any{"name": "one", "mock_scenarios": []any{map[string]any{"name": "ok", "response": map[string]any{}}}})
			mkChild(t, ada, s, "tools", map[string]any{"name": "two"})
			mkChild(t, ada, s, "resources", map[string]any{"name": "Guide", "uri": "docs://guide", "content": "hi"})
			mkChild(t, ada, s, "prompts", map[string]any{"name": "greet"})
		}
		want := map[string]int{"mcp_tools": 2, "mcp_resources": 1, "mcp_prompts": 1}
		for table, n := range want {
			require.Equal(t, n, rowCount(t, env, table, "server_id", id), table)
		}

		ada.Do("DELETE", "/api/servers/"+id, nil).Status(http.StatusNoContent)
		ada.Do("GET", "/api/servers/"+id, nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", "/api/servers/"+id, nil).Problem(http.StatusNotFound)
		ada.Do("GET", "/api/servers/"+id+"/tools", nil).Problem(http.StatusNotFound)
		require.Equal(t, 0, rowCount(t, env, "mcp_servers", "id", id))
		for table, n := range want {
			require.Equal(t, 0, rowCount(t, env, table, "server_id", id), table)
			require.Equal(t, n, rowCount(t, env, table, "server_id", keep), "the other server keeps its %s", table)
		}
		r := ada.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		require.NotContains(t, names(t, r, "items"), "Doomed")
		require.Contains(t, names(t, r, "items"), "Kept")
	})
}

func TestServerDuplicate(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Acme Labs", "Bob Inc")

	src := ada.Do("POST", "/api/servers", map[string]any{
		"name": "Weather", "description": "Forecasts", "version": "3.0.0", "provider_name": "Acme",
		"provider_url": "https://acme.example", "protocol_version": "2025-06-18", "auth_mode": "api_key",
	}).Status(http.StatusCreated)
	srcID := src.String("id")
	// Names out of alphabetical order, so the copy's order is seen to follow
	// creation.
	for _, name := range []string{"zeta", "alpha", "mid"} {
		mkChild(t, ada, srcID, "tools", map[string]any{
			"name": name, "description": "tool " + name,
			"input_schema":  map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
			"output_schema": map[string]any{"type": "object"},
			"mock_scenarios": []any{
				map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"temp": 21}},
				map[string]any{"name": "regex", "condition": map[string]any{"field": "city", "operator": "matches", "value": "^L"}, "response": map[string]any{"temp": 12}},
				map[string]any{"name": "fallback", "response": map[string]any{"temp": 0}},
			},
		})
	}
	mkChild(t, ada, srcID, "resources", map[string]any{"name": "Guide", "uri": "docs://guide", "mime_type": "text/markdown", "content": "# Guide"})
	mkChild(t, ada, srcID, "resources", map[string]any{"name": "Now", "uri": "weather://{city}/now", "content": map[string]any{"city": "{city}"}})
	mkChild(t, ada, srcID, "prompts", map[string]any{
		"name": "forecast", "arguments": []any{map[string]any{"name": "city", "required": true}},
		"messages": []any{map[string]any{"role": "user", "text": "Weather in {{city}}?"}},
	})
	ada.Do("PATCH", "/api/servers/"+srcID, map[string]any{"enabled": true}).Status(http.StatusOK)

	// children lists a server's tools, resources and prompts.
	children := func(t *testing.T, c *apitest.Client, server string) map[string]*apitest.Response {
		t.Helper()
		out := map[string]*apitest.Response{}
		for _, kind := range []string{"tools", "resources", "prompts"} {
			out[kind] = c.Do("GET", "/api/servers/"+server+"/"+kind, nil).Status(http.StatusOK)
		}
		return out
	}
	// withoutIdentity strips what must differ between an item and its copy.
	withoutIdentity := func(t *testing.T, r *apitest.Response) string {
		t.Helper()
		items, _ := r.Get("items").([]any)
		var out []any
		for _, it := range items {
			m := map[string]any{}
			for k, v := range it.(map[string]any) {
				switch k {
				case "id", "server_id", "created_at", "updated_at":
				default:
					m[k] = v
				}
			}
			out = append(out, m)
		}
		b, err := json.Marshal(out)
		require.NoError(t, err)
		return string(b)
	}

	var copyID string
	t.Run("copy is a draft with everything", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/servers/"+srcID+"/duplicate", nil).Status(http.StatusCreated)
		copyID = r.String("id")
		require.NotEqual(t, srcID, copyID)
		require.Equal(t, "Weather (copy)", r.Get("name"))
		require.Equal(t, false, r.Get("enabled"), "the copy of an enabled server is a draft")
		for _, f := range []string{"description", "version", "provider_name", "provider_url", "type", "protocol_version", "auth_mode"} {
			require.Equal(t, src.Get(f), r.Get(f), f)
		}
		require.Equal(t, ada.UserID, r.Get("created_by"))
		require.True(t, strings.HasSuffix(r.String("endpoint_url"), "/api/platform/"+copyID+"/mcp"))
		require.True(t, timeAt(t, r, "created_at").After(timeAt(t, src, "created_at")))
		require.JSONEq(t, string(r.Raw), string(ada.Do("GET", "/api/servers/"+copyID, nil).Status(http.StatusOK).Raw))
		require.Equal(t, true, ada.Do("GET", "/api/servers/"+srcID, nil).Status(http.StatusOK).Get("enabled"), "the original stays enabled")

		orig, cp := children(t, ada, srcID), children(t, ada, copyID)
		require.Equal(t, []string{"zeta", "alpha", "mid"}, names(t, cp["tools"], "items"))
		require.Equal(t, []string{"Guide", "Now"}, names(t, cp["resources"], "items"))
		require.Equal(t, []string{"forecast"}, names(t, cp["prompts"], "items"))
		require.Equal(t, []string{"paris", "regex", "fallback"}, names(t, cp["tools"], "items.0.mock_scenarios"))
		require.JSONEq(t, `{"field":"city","operator":"matches","value":"^L"}`, jsonAt(t, cp["tools"], "items.2.mock_scenarios.1.condition"))
		for kind := range orig {
			require.JSONEq(t, withoutIdentity(t, orig[kind]), withoutIdentity(t, cp[kind]), kind)
			n := cp[kind].Len("items")
			for i := range n {
				require.Equal(t, copyID, cp[kind].Get(fmt.Sprintf("items.%d.server_id", i)))
				require.NotEqual(t, orig[kind].Get(fmt.Sprintf("items.%d.id", i)), cp[kind].Get(fmt.Sprintf("items.%d.id", i)), "%s %d has a new id", kind, i)
			}
		}
	})

	t.Run("changing the copy leaves the original", func(t *testing.T) {
		ada := ada.For(t)
		require.NotEmpty(t, copyID)
		before := children(t, ada, srcID)
		cp := children(t, ada, copyID)
		ada.Do("PATCH", "/api/servers/"+copyID+"/tools/"+cp["tools"].String("items.0.id"),
			map[string]any{"name": "renamed", "mock_scenarios": []any{}}).Status(http.StatusOK)
		ada.Do("DELETE", "/api/servers/"+copyID+"/tools/"+cp["tools"].String("items.1.id"), nil).Status(http.StatusNoContent)
		ada.Do("PATCH", "/api/servers/"+copyID+"/resources/"+cp["resources"].String("items.0.id"), map[string]any{"content": "changed"}).Status(http.StatusOK)
		ada.Do("PATCH", "/api/servers/"+copyID+"/prompts/"+cp["prompts"].String("items.0.id"), map[string]any{"messages": []any{}}).Status(http.StatusOK)
		ada.Do("PATCH", "/api/servers/"+copyID, map[string]any{"name": "Copy renamed", "enabled": true}).Status(http.StatusOK)
		after := children(t, ada, srcID)
		for kind := range before {
			require.JSONEq(t, string(before[kind].Raw), string(after[kind].Raw), kind)
		}
		require.Equal(t, "Weather", ada.Do("GET", "/api/servers/"+srcID, nil).Status(http.StatusOK).Get("name"))
		// And deleting the original keeps the copy.
		other := ada.Do("POST", "/api/servers/"+srcID+"/duplicate", map[string]any{"name": "Second"}).Status(http.StatusCreated).String("id")
		ada.Do("DELETE", "/api/servers/"+srcID, nil).Status(http.StatusNoContent)
		require.Equal(t, 3, rowCount(t, env, "mcp_tools", "server_id", other))
		require.Equal(t, 2, rowCount(t, env, "mcp_tools", "server_id", copyID))
	})

	t.Run("names", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Plain")
		r := ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{"name": "  Chosen  "}).Status(http.StatusCreated)
		require.Equal(t, "Chosen", r.Get("name"))
		r = ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{}).Status(http.StatusCreated)
		require.Equal(t, "Plain (copy)", r.Get("name"))
		r = ada.Do("POST", "/api/servers/"+r.String("id")+"/duplicate", nil).Status(http.StatusCreated)
		require.Equal(t, "Plain (copy) (copy)", r.Get("name"))

		long := strings.Repeat("é", 200)
		lid := mkServer(t, ada, long)
		r = ada.Do("POST", "/api/servers/"+lid+"/duplicate", nil).Status(http.StatusCreated)
		require.Equal(t, strings.Repeat("é", 193)+" (copy)", r.Get("name"), "the copy's name stays within 200 characters")

		ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{"name": "   "}).Problem(http.StatusUnprocessableEntity, "name")
		ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{"name": ""}).Problem(http.StatusUnprocessableEntity, "name")
		ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{"title": "x"}).Problem(http.StatusUnprocessableEntity, "title")
		ada.Do("POST", "/api/servers/"+id+"/duplicate", map[string]any{"name": "a\x00"}).Problem(http.StatusUnprocessableEntity, "name")
	})

	t.Run("the copy is created by whoever copies", func(t *testing.T) {
		ada := ada.For(t)
		cy := env.Signup(t, "Cy Home")
		ada.Do("POST", "/api/organizations/"+ada.OrgID+"/members", map[string]any{"email": cy.Email}).Status(http.StatusCreated)
		cy.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Status(http.StatusOK)
		id := mkServer(t, ada, "Shared")
		r := cy.Do("POST", "/api/servers/"+id+"/duplicate", nil).Status(http.StatusCreated)
		require.Equal(t, cy.UserID, r.Get("created_by"))
		require.Equal(t, ada.UserID, ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK).Get("created_by"))
		require.Equal(t, cy.UserID, ada.Do("GET", "/api/servers/"+r.String("id"), nil).Status(http.StatusOK).Get("created_by"))
	})

	t.Run("another organization cannot copy", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		id := mkServer(t, ada, "Private")
		bob.Do("POST", "/api/servers/"+id+"/duplicate", nil).Problem(http.StatusNotFound)
		require.Equal(t, 0, bob.Do("GET", "/api/servers", nil).Status(http.StatusOK).Len("items"))
	})
}

func TestChildRoutesOfOtherServers(t *testing.T) {
	t.Parallel()
	env, ada, eve := apitest.Rivals(t, "Acme Labs", "Evil Corp")
	adaServer := mkServer(t, ada, "Mine")
	eveServer := mkServer(t, eve, "Theirs")

	for _, kind := range []struct {
		path, table string
		body        map[string]any
	}{
		{"tools", "mcp_tools", map[string]any{"name": "t"}},
		{"resources", "mcp_resources", map[string]any{"name": "r", "uri": "docs://r", "content": "c"}},
		{"prompts", "mcp_prompts", map[string]any{"name": "p"}},
	} {
		t.Run(kind.path, func(t *testing.T) {
			ada, eve := ada.For(t), eve.For(t)
			eveChild := mkChild(t, eve, eveServer, kind.path, kind.body)
			adaChild := mkChild(t, ada, adaServer, kind.path, kind.body)
			original := eve.Do("GET", "/api/servers/"+eveServer+"/"+kind.path+"/"+eveChild, nil).Status(http.StatusOK)

			for _, tc := range []struct{ name, server, child string }{
				{"unknown server", missingID, eveChild},
				{"other organization's server", eveServer, eveChild},
				{"own server, other organization's child", adaServer, eveChild},
				{"other organization's server, own child", eveServer, adaChild},
			} {
				t.Run(tc.name, func(t *testing.T) {
					ada := ada.For(t)
					base := "/api/servers/" + tc.server + "/" + kind.path
					if tc.server != adaServer {
						ada.Do("GET", base, nil).Problem(http.StatusNotFound)
						ada.Do("POST", base, kind.body).Problem(http.StatusNotFound)
					}
					ada.Do("GET", base+"/"+tc.child, nil).Problem(http.StatusNotFound)
					ada.Do("PATCH", base+"/"+tc.child, map[string]any{"name": "hijacked"}).Problem(http.StatusNotFound)
					ada.Do("DELETE", base+"/"+tc.child, nil).Problem(http.StatusNotFound)
				})
			}
			require.Equal(t, 1, rowCount(t, env, kind.table, "server_id", eveServer), "nothing was added to the other organization's server")
			require.Equal(t, 1, rowCount(t, env, kind.table, "server_id", adaServer))
			after := eve.Do("GET", "/api/servers/"+eveServer+"/"+kind.path+"/"+eveChild, nil).Status(http.StatusOK)
			require.JSONEq(t, string(original.Raw), string(after.Raw), "the other organization's child is unchanged")
			require.Equal(t, adaChild, ada.Do("GET", "/api/servers/"+adaServer+"/"+kind.path, nil).Status(http.StatusOK).Get("items.0.id"))
			ada.Do("GET", "/api/servers/nope/"+kind.path, nil).Problem(http.StatusBadRequest, "server_id")
			env.Anonymous(t).Do("GET", "/api/servers/"+adaServer+"/"+kind.path, nil).Problem(http.StatusUnauthorized)
		})
	}
}
