package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// policyFixture is an organization with a server worth checking and keys to
// check it with.
type policyFixture struct {
	env                *apitest.Env
	owner              *apitest.Client
	server             string
	fullID, fullRaw    string
	policyID, boundRaw string
}

func newPolicyFixture(t *testing.T, env *apitest.Env, org string) policyFixture {
	t.Helper()
	f := policyFixture{env: env, owner: env.Signup(t, org)}
	f.server = f.owner.Do("POST", "/api/servers", map[string]any{"name": "weather", "description": "Weather data",
		"version": "2.1.0"}).Status(http.StatusCreated).String("id")
	mkChild(t, f.owner, f.server, "tools", map[string]any{
		"name": "get_forecast", "description": "Short description.",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []string{"city"}},
		"mock_scenarios": []any{
			map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"t": 21}},
			map[string]any{"name": "typo", "condition": map[string]any{"field": "town", "operator": "equals", "value": "x"},
				"response": map[string]any{"t": 0}},
		},
	})
	mkChild(t, f.owner, f.server, "resources", map[string]any{"name": "guide", "uri": "docs://guide",
		"description": "The guide", "mime_type": "text/markdown", "content": "# Guide"})
	mkChild(t, f.owner, f.server, "prompts", map[string]any{"name": "summarize", "description": "Summarize a text",
		"arguments": []any{map[string]any{"name": "text", "description": "what to summarize", "required": true}},
		"messages":  []any{map[string]any{"role": "user", "text": "Summarize {{text}}"}}})
	f.fullID, f.fullRaw = mkKey(t, f.owner, map[string]any{"name": "full"})
	f.policyID, f.boundRaw = mkKey(t, f.owner, map[string]any{"name": "policy", "bound_server_id": f.server})
	return f
}

func (f policyFixture) key(t *testing.T, raw string) *apitest.Client {
	return withKey(t, f.env, "X-API-Key", raw)
}

func TestPolicySpec(t *testing.T) {
	t.Parallel()
	f := newPolicyFixture(t, apitest.New(t, nil), "Spec Org")
	k := f.key(t, f.boundRaw)

	r := k.Do("GET", "/api/platform/"+f.server+"/mcp/spec", nil).Status(http.StatusOK)
	require.Equal(t, map[string]any{"id": f.server, "name": "weather", "version": "2.1.0", "description": "Weather data",
		"protocol_version": "2024-11-05", "enabled": false}, r.Get("server"))
	require.Equal(t, "get_forecast", r.String("tools.0.name"))
	require.Equal(t, "object", r.String("tools.0.inputSchema.type"))
	require.Nil(t, r.Get("tools.0.outputSchema"))
	require.Nil(t, r.Get("tools.0.mock_scenarios"), "scenarios are not part of the surface")
	require.Equal(t, map[string]any{"uri": "docs://guide", "name": "guide", "description": "The guide", "mimeType": "text/markdown"},
		r.Get("resources.0"))
	require.Equal(t, []any{map[string]any{"name": "text", "description": "what to summarize", "required": true}},
		r.Get("prompts.0.arguments"))
	hash := r.String("spec_sha256")
	require.Equal(t, apitest.CanonicalHash(t, r.Raw, "spec_sha256"), hash)

	again := k.Do("GET", "/api/platform/"+f.server+"/mcp/spec", nil).Status(http.StatusOK)
	require.Equal(t, hash, again.String("spec_sha256"), "same design, same hash")

	f.owner.Do("PATCH", "/api/servers/"+f.server, map[string]any{"enabled": true}).Status(http.StatusOK)
	changed := k.Do("GET", "/api/platform/"+f.server+"/mcp/spec", nil).Status(http.StatusOK)
	require.NotEqual(t, hash, changed.String("spec_sha256"))
	require.Equal(t, apitest.CanonicalHash(t, changed.Raw, "spec_sha256"), changed.String("spec_sha256"))
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	f := newPolicyFixture(t, apitest.New(t, nil), "Validate Org")
	k := f.key(t, f.boundRaw)
	path := "/api/platform/" + f.server + "/mcp/validate"

	rules := func(r *apitest.Response) map[string]string {
		out := map[string]string{}
		for i := 0; i < r.Len("findings"); i++ {
			out[r.String(fmt.Sprintf("findings.%d.rule", i))] = r.String(fmt.Sprintf("findings.%d.path", i))
		}
		return out
	}

	t.Run("stored definition", func(t *testing.T) {
		r := k.For(t).Do("POST", path, nil).Status(http.StatusOK)
		require.Equal(t, "stored", r.String("source"))
		require.Equal(t, false, r.Get("valid"), "the scenario reads an undeclared field: %s", r.Raw)
		require.Equal(t, map[string]string{
			"tool-description-length":     "tools[0].description",
			"scenario-condition-declared": "tools[0].mock_scenarios[1].condition",
		}, rules(r))
		require.Equal(t, r.Raw, k.For(t).Do("POST", path, map[string]any{}).Status(http.StatusOK).Raw,
			"an empty object checks the stored definition too")
	})
	t.Run("candidate definition", func(t *testing.T) {
		r := k.For(t).Do("POST", path, map[string]any{
			"tools": []any{
				map[string]any{"name": "GetWeather", "description": "d", "inputSchema": map[string]any{"type": "string"}},
				map[string]any{"name": "GetWeather", "inputSchema": "not a schema"},
			},
			"resources": []any{map[string]any{"uri": "no scheme", "name": "r"}},
			"prompts":   []any{map[string]any{"name": "p", "arguments": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}},
		}).Status(http.StatusOK)
		require.Equal(t, "candidate", r.String("source"))
		require.Equal(t, false, r.Get("valid"))
		got := rules(r)
		for rule, at := range map[string]string{
			"tool-name-snake-case":          "tools[1].name",
			"tool-name-unique":              "tools[1].name",
			"tool-description-required":     "tools[1].description",
			"input-schema-valid":            "tools[1].inputSchema",
			"resource-uri-valid":            "resources[0].uri",
			"resource-description-required": "resources[0].description",
			"prompt-argument-unique":        "prompts[0].arguments[1].name",
		} {
			require.Equal(t, at, got[rule], "rule %s in %s", rule, r.Raw)
		}
		stored := k.For(t).Do("POST", path, nil).Status(http.StatusOK)
		require.Equal(t, "stored", stored.String("source"), "nothing was stored")
	})
	t.Run("a compliant candidate", func(t *testing.T) {
		long := "Returns the forecast for a city: temperature, wind and precipitation for the next days. " +
			"Use it whenever a user asks about the weather in a named place; the city must be spelled in English. " +
			"It never guesses."
		r := k.For(t).Do("POST", path, map[string]any{"tools": []any{map[string]any{
			"name": "get_forecast", "description": long,
			"inputSchema":    map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
			"outputSchema":   map[string]any{"type": "object", "properties": map[string]any{"t": map[string]any{"type": "number"}}},
			"mock_scenarios": []any{map[string]any{"condition": map[string]any{"city": "Paris"}, "response": map[string]any{"t": 21}}},
		}}}).Status(http.StatusOK)
		require.Equal(t, true, r.Get("valid"), "%s", r.Raw)
		require.Zero(t, r.Len("findings"))
	})
	t.Run("a candidate of the wrong types", func(t *testing.T) {
		k.For(t).Do("POST", path, map[string]any{"tools": "none"}).Problem(http.StatusUnprocessableEntity, "tools")
		k.For(t).Do("POST", path, "[").Problem(http.StatusBadRequest)
	})
}

func TestPolicyEvidence(t *testing.T) {
	t.Parallel()
	f := newPolicyFixture(t, apitest.New(t, nil), "Evidence Org")
	k := f.key(t, f.fullRaw)
	base := "/api/platform/" + f.server + "/mcp"

	spec := k.Do("GET", base+"/spec", nil).Status(http.StatusOK)
	k.Do("GET", base+"/spec", nil).Status(http.StatusOK)
	k.Do("POST", base+"/validate", nil).Status(http.StatusOK)
	waitAudit(t, f.owner, 3, "")

	r := k.Do("GET", base+"/evidence", nil).Status(http.StatusOK)
	require.Equal(t, f.server, r.String("server_id"))
	require.Equal(t, spec.String("spec_sha256"), r.String("spec_sha256"))
	require.Equal(t, false, r.Get("enabled"))
	require.Equal(t, false, r.Get("validation.valid"))
	require.Equal(t, "stored", r.String("validation.source"))
	require.Equal(t, map[string]any{"spec": 2.0, "validate": 1.0, "evidence": 0.0}, r.Get("policy_calls.by_route"))
	require.Equal(t, 3.0, r.Get("policy_calls.count"))
	require.NotNil(t, r.Get("policy_calls.last_at"))
	generated, err := time.Parse(time.RFC3339Nano, r.String("generated_at"))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), generated, 10*time.Second)
	require.Equal(t, apitest.CanonicalHash(t, r.Raw, "evidence_sha256"), r.String("evidence_sha256"))
}

// waitAudit polls the organization's audit list (with query) until it holds
// at least n records, and returns it.
func waitAudit(t *testing.T, c *apitest.Client, n int, query string) *apitest.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := c.Do("GET", "/api/audit/policy?limit=500"+query, nil).Status(http.StatusOK)
		if r.Len("items") >= n || time.Now().After(deadline) {
			require.GreaterOrEqual(t, r.Len("items"), n, "audit records: %s", r.Raw)
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPolicyAuditRecordsEveryCall: one record per call, refusals included,
// with the status actually sent.
func TestPolicyAuditRecordsEveryCall(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	f := newPolicyFixture(t, env, "Audited Org")
	other := env.Signup(t, "Other Audited Org")
	foreign := mkServer(t, other, "foreign")
	unbound := mkServer(t, f.owner, "unbound")
	_, otherRaw := mkKey(t, other, map[string]any{"name": "other"})

	type call struct {
		client       *apitest.Client
		method, path string
		body         any
		status       int
		route, key   string // key: the key id the record names, "" for none
		asset        string
	}
	full, bound := f.key(t, f.fullRaw), f.key(t, f.boundRaw)
	bound.Header.Set("User-Agent", "policy-engine/1.0")
	calls := []call{
		{full, "GET", "/api/platform/" + f.server + "/mcp/spec", nil, 200, "spec", f.fullID, f.server},
		{bound, "POST", "/api/platform/" + f.server + "/mcp/validate", nil, 200, "validate", f.policyID, f.server},
		{bound, "GET", "/api/platform/" + f.server + "/mcp/evidence", nil, 200, "evidence", f.policyID, f.server},
		{bound, "GET", "/api/platform/" + unbound + "/mcp/spec", nil, 403, "spec", f.policyID, unbound},
		{full, "GET", "/api/platform/" + foreign + "/mcp/spec", nil, 404, "spec", f.fullID, foreign},
		{env.Anonymous(t), "GET", "/api/platform/" + f.server + "/mcp/spec", nil, 401, "spec", "", f.server},
		{f.key(t, "mmcp_"+string(bytes.Repeat([]byte("x"), 43))), "GET", "/api/platform/" + f.server + "/mcp/evidence", nil, 401, "evidence", "", f.server},
		{f.owner, "POST", "/api/platform/" + f.server + "/mcp/validate", nil, 401, "validate", "", f.server},
		{full, "POST", "/api/platform/" + f.server + "/mcp/validate", "{", 400, "validate", f.fullID, f.server},
		{full, "GET", "/api/platform/not-a-uuid/mcp/spec", nil, 400, "spec", f.fullID, ""},
	}
	for _, c := range calls {
		r := c.client.Do(c.method, c.path, c.body)
		require.Equal(t, c.status, r.Code, "%s %s: %s", c.method, c.path, r.Raw)
	}
	// A call of another organization's key, on its own server: A never sees it.
	f.key(t, otherRaw).Do("GET", "/api/platform/"+foreign+"/mcp/spec", nil).Status(http.StatusOK)

	// Every call of A's keys, and every keyless one at A's server, is A's.
	waitAudit(t, f.owner, len(calls), "")
	time.Sleep(300 * time.Millisecond) // a duplicate would show up within a flush interval
	list := f.owner.Do("GET", "/api/audit/policy?limit=500", nil).Status(http.StatusOK)
	var got []map[string]any
	for i := 0; i < list.Len("items"); i++ {
		got = append(got, list.Get(fmt.Sprintf("items.%d", i)).(map[string]any))
	}
	// The bad-UUID call names no server, so no organization sees it as a
	// keyless call would; it carries A's key, so it is A's.
	require.Len(t, got, len(calls), "records: %s", list.Raw)
	ids := map[any]bool{}
	for i, c := range calls {
		rec := got[len(calls)-1-i] // newest first
		require.Equal(t, c.route, rec["route"], "call %d", i)
		require.EqualValues(t, c.status, rec["status"], "call %d", i)
		if c.key == "" {
			require.Nil(t, rec["key_id"], "call %d", i)
		} else {
			require.Equal(t, c.key, rec["key_id"], "call %d", i)
		}
		if c.asset == "" {
			require.Nil(t, rec["asset_id"], "call %d", i)
		} else {
			require.Equal(t, c.asset, rec["asset_id"], "call %d", i)
		}
		require.Equal(t, "127.0.0.1", rec["ip_inet"], "call %d", i)
		require.GreaterOrEqual(t, rec["latency_ms"].(float64), 0.0)
		ids[rec["id"]] = true
	}
	require.Len(t, ids, len(calls), "one record per call")
	require.Equal(t, "policy-engine/1.0", got[len(calls)-2]["user_agent"])

	t.Run("filters", func(t *testing.T) {
		r := f.owner.For(t).Do("GET", "/api/audit/policy?key_id="+f.policyID, nil).Status(http.StatusOK)
		require.Equal(t, 3, r.Len("items"))
		r = f.owner.For(t).Do("GET", "/api/audit/policy?server_id="+unbound, nil).Status(http.StatusOK)
		require.Equal(t, 1, r.Len("items"))
		r = f.owner.For(t).Do("GET", "/api/audit/policy?since="+url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), nil).
			Status(http.StatusOK)
		require.Zero(t, r.Len("items"))
		f.owner.For(t).Do("GET", "/api/audit/policy?since=yesterday", nil).Problem(http.StatusBadRequest, "since")
	})
	t.Run("pages", func(t *testing.T) {
		var seen []any
		cursor := ""
		for range 10 {
			r := f.owner.For(t).Do("GET", "/api/audit/policy?limit=3"+cursor, nil).Status(http.StatusOK)
			for i := 0; i < r.Len("items"); i++ {
				seen = append(seen, r.Get(fmt.Sprintf("items.%d.id", i)))
			}
			next := r.Get("next_cursor")
			if next == nil {
				break
			}
			cursor = "&cursor=" + url.QueryEscape(next.(string))
		}
		require.Len(t, seen, len(calls))
		for i, rec := range got {
			require.Equal(t, rec["id"], seen[i])
		}
	})
	t.Run("another organization sees only its own", func(t *testing.T) {
		r := other.For(t).Do("GET", "/api/audit/policy", nil).Status(http.StatusOK)
		require.Equal(t, 1, r.Len("items"), "%s", r.Raw)
		require.Equal(t, foreign, r.String("items.0.asset_id"))
		require.Equal(t, float64(http.StatusOK), r.Get("items.0.status"))
	})
	t.Run("service endpoint and REST calls are not audited", func(t *testing.T) {
		full.For(t).Do("GET", "/api/servers", nil).Status(http.StatusOK)
		env.Anonymous(t).Do("POST", "/api/platform/"+f.server+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"})
		time.Sleep(300 * time.Millisecond)
		require.Equal(t, len(calls), f.owner.For(t).Do("GET", "/api/audit/policy?limit=500", nil).Status(http.StatusOK).Len("items"))
	})
}

// TestPolicyAuditClientAddress: X-Forwarded-For is believed only from
// TRUSTED_PROXIES.
func TestPolicyAuditClientAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    string
	}{
		{"no trusted proxies", nil, "127.0.0.1"},
		{"loopback trusted", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "198.51.100.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.TrustedProxies = tc.trusted }})
			f := newPolicyFixture(t, env, "Proxied Org")
			k := f.key(t, f.fullRaw)
			k.Header.Set("X-Forwarded-For", "203.0.113.9, 198.51.100.7")
			k.Do("GET", "/api/platform/"+f.server+"/mcp/spec", nil).Status(http.StatusOK)
			r := waitAudit(t, f.owner, 1, "")
			require.Equal(t, tc.want, r.String("items.0.ip_inet"))
		})
	}
}

// TestPolicyAnswersSurviveAFailingAuditTrail: with inserts into the audit
// table refused, the policy routes answer exactly as before; once the
// database accepts them again, every call has its one record.
func TestPolicyAnswersSurviveAFailingAuditTrail(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	f := newPolicyFixture(t, env, "Unaudited Org")
	k := f.key(t, f.boundRaw)
	pool := env.Service.Store().Pool()
	ctx := context.Background()
	spec := "/api/platform/" + f.server + "/mcp/spec"

	healthy := k.Do("GET", spec, nil).Status(http.StatusOK)
	healthyValidate := k.Do("POST", "/api/platform/"+f.server+"/mcp/validate", nil).Status(http.StatusOK)
	waitAudit(t, f.owner, 2, "")
	written := env.Service.Audit().Stats().Written

	_, err := pool.Exec(ctx, `REVOKE INSERT ON policy_api_audit FROM mockmcp_app`)
	require.NoError(t, err)
	regranted := false
	t.Cleanup(func() {
		if !regranted {
			_, _ = pool.Exec(ctx, `GRANT INSERT ON policy_api_audit TO mockmcp_app`)
		}
	})
	const n = 20
	for range n {
		start := time.Now()
		r := k.Do("GET", spec, nil).Status(http.StatusOK)
		require.Equal(t, healthy.Raw, r.Raw, "the answer changed while the audit trail fails")
		require.Less(t, time.Since(start), 2*time.Second)
	}
	require.Equal(t, healthyValidate.Raw, k.Do("POST", "/api/platform/"+f.server+"/mcp/validate", nil).Status(http.StatusOK).Raw)
	requireDetail(t, f.key(t, f.boundRaw).Do("GET", "/api/platform/"+mkServer(t, f.owner, "u")+"/mcp/spec", nil), 403, msgNotBound)

	require.Eventually(t, func() bool { return env.Service.Audit().Stats().Failed > 0 }, 5*time.Second, 10*time.Millisecond,
		"the writer tried and failed")
	require.Equal(t, written, env.Service.Audit().Stats().Written)
	require.Equal(t, 2, f.owner.Do("GET", "/api/audit/policy?limit=500", nil).Status(http.StatusOK).Len("items"))

	_, err = pool.Exec(ctx, `GRANT INSERT ON policy_api_audit TO mockmcp_app`)
	require.NoError(t, err)
	regranted = true
	waitAudit(t, f.owner, 2+n+2, "")
	time.Sleep(300 * time.Millisecond) // a duplicate would show up within a flush interval
	list := f.owner.Do("GET", "/api/audit/policy?limit=500", nil).Status(http.StatusOK)
	require.Equal(t, 2+n+2, list.Len("items"), "every call has exactly one record")
	require.Zero(t, env.Service.Audit().Stats().Dropped)
}
