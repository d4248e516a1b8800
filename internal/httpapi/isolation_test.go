package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Tenant isolation through the whole service: B, signed in to its own
// organization, aims every route of the OpenAPI document that takes an id at
// A's objects and must get 404, learn nothing, and change nothing.

// isolationPassword is the password of the accounts these tests sign up, so
// that each subtest can sign in a client of its own.
const isolationPassword = "isolation test password"

// notOrgOwned lists the routes with path parameters that take no id of an
// organization's object, each with the reason; TestIsolationRouteTableIsComplete
// accepts them without an isolation case. Every templated route of the
// document takes an organization-owned id today, so the list is empty: a new
// route belongs here only when none of its parameters names an object of an
// organization (a public slug resolved without a session, say). The MCP
// endpoint (/api/platform/{server_id}/mcp) is outside the document and has a
// case of its own in TestIsolationBetweenOrganizations.
var notOrgOwned = map[string]string{
	"GET /api/exchange/agent-cards/{org_slug}/{name}": "the public exchange: published cards of every organization, " +
		"by public slug and name, without a session (TestExchangeShowsOnlyPublishedCards)",
	"GET /api/exchange/agent-cards/{org_slug}/{name}/.well-known/agent-card.json": "the public exchange's A2A " +
		"rendering of published cards (TestExchangeShowsOnlyPublishedCards)",
}

// isolationCase is one request of B's at an object of A's.
type isolationCase struct {
	name   string
	method string
	route  string            // the OpenAPI path, with {parameters}
	params map[string]string // replacements of A's ids, by parameter
	body   any
	// key: B calls with a full-scope API key of its own organization
	// instead of its session (the policy routes take keys only).
	key bool
	// status is the answer B must get; 404 when zero.
	status int
}

// isolationCases are B's attempts. Bodies are valid, so that validation
// cannot answer before the lookup does.
func isolationCases(b account, bServer string) []isolationCase {
	const (
		server   = "/api/servers/{server_id}"
		tools    = server + "/tools"
		tool     = tools + "/{tool_id}"
		res      = server + "/resources"
		resource = res + "/{resource_id}"
		prompts  = server + "/prompts"
		prompt   = prompts + "/{prompt_id}"
		org      = "/api/organizations/{org_id}"
		members  = org + "/members"
		member   = members + "/{user_id}"
		policy   = "/api/platform/{server_id}/mcp"
		test     = "/api/tests/{test_id}"
		suite    = "/api/suites/{suite_id}"
		session  = "/api/sessions/{session_id}"
		card     = "/api/agent-cards/{card_id}"
		skills   = card + "/skills"
		skill    = skills + "/{skill_name}"
	)
	viaOwnServer := map[string]string{"server_id": bServer}
	cases := []isolationCase{
		{name: "get server", method: "GET", route: server},
		{name: "update server", method: "PATCH", route: server, body: map[string]any{"name": "Hijacked by Beta", "enabled": true}},
		{name: "delete server", method: "DELETE", route: server},
		{name: "duplicate server", method: "POST", route: server + "/duplicate", body: map[string]any{"name": "Stolen copy"}},
		{name: "duplicate server without a body", method: "POST", route: server + "/duplicate"},
		{name: "export server", method: "GET", route: server + "/export"},
		{name: "export server as YAML", method: "GET", route: server + "/export?format=yaml"},
		{name: "apply a document with A's server id", method: "POST", route: "/api/servers/apply", status: http.StatusConflict,
			body: map[string]any{"apiVersion": "mockmcp/v1", "kind": "MCPServer", "id": "{server_id}", "name": "Hijacked by Beta"}},
		{name: "reset sequences", method: "POST", route: server + "/sequences/reset", body: map[string]any{"key": "alice"}},
		{name: "get state", method: "GET", route: server + "/state"},
		{name: "set state", method: "PUT", route: server + "/state", body: map[string]any{"hijacked": true}},
		{name: "reset state", method: "DELETE", route: server + "/state"},
		{name: "expire oauth tokens", method: "POST", route: server + "/oauth/expire-tokens"},
		{name: "revoke oauth tokens", method: "POST", route: server + "/oauth/revoke-tokens"},
		{name: "list oauth clients", method: "GET", route: server + "/oauth/clients"},
		{name: "delete oauth clients", method: "DELETE", route: server + "/oauth/clients"},
		{name: "check drift", method: "POST", route: server + "/drift", body: map[string]any{"url": "http://example.com/mcp"}},
		{name: "promote recordings", method: "POST", route: server + "/recordings/promote", body: map[string]any{"dry_run": true}},

		{name: "list journal", method: "GET", route: server + "/journal"},
		{name: "clear journal", method: "DELETE", route: server + "/journal"},
		{name: "verify journal", method: "POST", route: server + "/journal/verify",
			body: map[string]any{"tool": "planted_tool", "arguments": map[string]any{"city": "Paris"}, "times": 0}},
		{name: "verify journal's questions", method: "POST", route: server + "/journal/verify",
			body: map[string]any{"tool": "planted_tool", "asked": "confirm", "answers": map[string]any{"confirm.action": "accept"}}},

		{name: "list tasks", method: "GET", route: server + "/tasks"},
		{name: "end task", method: "POST", route: server + "/tasks/{task_id}/end", body: map[string]any{"status": "cancelled"}},
		{name: "end task through own server", method: "POST", route: server + "/tasks/{task_id}/end", params: viaOwnServer,
			body: map[string]any{"status": "completed", "result": map[string]any{"content": []any{}}}},
	}
	serverSkills := server + "/skills"
	serverSkill := serverSkills + "/{server_skill_name}"
	planted := map[string]any{"name": "planted-skill", "description": "planted", "body": "planted"}
	cases = append(cases, []isolationCase{
		{name: "list server skills", method: "GET", route: serverSkills},
		{name: "create server skill", method: "POST", route: serverSkills, body: planted},
		{name: "get server skill", method: "GET", route: serverSkill},
		{name: "replace server skill", method: "PUT", route: serverSkill, body: planted},
		{name: "delete server skill", method: "DELETE", route: serverSkill},
		{name: "get server skill through own server", method: "GET", route: serverSkill, params: viaOwnServer},
		{name: "replace server skill through own server", method: "PUT", route: serverSkill, params: viaOwnServer, body: planted},
		{name: "delete server skill through own server", method: "DELETE", route: serverSkill, params: viaOwnServer},
	}...)
	cases = append(cases, serverItemCases("tool", "tools", tools, tool, map[string]any{"name": "planted_tool"}, viaOwnServer)...)
	cases = append(cases, serverItemCases("resource", "resources", res, resource,
		map[string]any{"name": "planted", "uri": "planted://x", "content": "x"}, viaOwnServer)...)
	cases = append(cases, serverItemCases("prompt", "prompts", prompts, prompt, map[string]any{"name": "planted_prompt"}, viaOwnServer)...)
	return append(cases, []isolationCase{
		{name: "get organization", method: "GET", route: org},
		{name: "update organization", method: "PATCH", route: org, body: map[string]any{"name": "Hijacked", "slug": "hijacked"}},
		{name: "list members", method: "GET", route: members},
		{name: "add self as owner", method: "POST", route: members, body: map[string]any{"email": b.email, "role": "owner"}},
		{name: "remove the owner", method: "DELETE", route: member},
		{name: "remove self", method: "DELETE", route: member, params: map[string]string{"user_id": b.userID}},

		{name: "revoke A's key", method: "DELETE", route: "/api/keys/{key_id}"},
		{name: "policy spec", method: "GET", route: policy + "/spec", key: true},
		{name: "policy validate", method: "POST", route: policy + "/validate", key: true},
		{name: "policy validate a candidate", method: "POST", route: policy + "/validate", key: true,
			body: map[string]any{"tools": []any{map[string]any{"name": "x"}}}},
		{name: "policy evidence", method: "GET", route: policy + "/evidence", key: true},

		{name: "get agent card", method: "GET", route: card},
		{name: "export agent card", method: "GET", route: card + "/export"},
		{name: "apply an agent document with A's card id", method: "POST", route: "/api/agent-cards/apply", status: http.StatusConflict,
			body: map[string]any{"apiVersion": "mockmcp/v1", "kind": "A2AAgent", "id": "{card_id}", "name": "hijacked-by-beta"}},
		{name: "list agent journal", method: "GET", route: card + "/journal"},
		{name: "clear agent journal", method: "DELETE", route: card + "/journal"},
		{name: "verify agent", method: "POST", route: card + "/verify", body: map[string]any{"reply": "default"}},
		{name: "update agent card", method: "PATCH", route: card, body: map[string]any{"description": "hijacked"}},
		{name: "delete agent card", method: "DELETE", route: card},
		{name: "validate agent card", method: "POST", route: card + "/validate"},
		{name: "publish agent card", method: "POST", route: card + "/publish"},
		{name: "unpublish agent card", method: "POST", route: card + "/unpublish"},
		{name: "duplicate agent card", method: "POST", route: card + "/duplicate", body: map[string]any{"name": "stolen-card"}},
		{name: "list skills", method: "GET", route: skills},
		{name: "add a skill", method: "POST", route: skills, body: map[string]any{"name": "planted_skill"}},
		{name: "get skill", method: "GET", route: skill},
		{name: "update skill", method: "PATCH", route: skill, body: map[string]any{"description": "hijacked"}},
		{name: "delete skill", method: "DELETE", route: skill},
		{name: "invoke skill", method: "POST", route: skill + "/invoke", body: map[string]any{"input": map[string]any{}}},

		{name: "generate tests", method: "POST", route: tool + "/generate-tests"},
		{name: "generate tests through own server", method: "POST", route: tool + "/generate-tests", params: viaOwnServer},
		{name: "get test", method: "GET", route: test},
		{name: "update test", method: "PATCH", route: test, body: map[string]any{"name": "hijacked"}},
		{name: "delete test", method: "DELETE", route: test},
		{name: "run test", method: "POST", route: test + "/run"},
		{name: "list test runs", method: "GET", route: test + "/runs"},
		{name: "get suite", method: "GET", route: suite},
		{name: "update suite", method: "PATCH", route: suite, body: map[string]any{"name": "hijacked"}},
		{name: "delete suite", method: "DELETE", route: suite},
		{name: "run suite", method: "POST", route: suite + "/run"},
		{name: "list suite runs", method: "GET", route: suite + "/runs"},
		{name: "get suite run", method: "GET", route: suite + "/runs/{run_id}"},
		{name: "get suite run as JUnit", method: "GET", route: suite + "/runs/{run_id}?format=junit"},
		{name: "get session", method: "GET", route: session},
		{name: "delete session", method: "DELETE", route: session},
		{name: "send a session request", method: "POST", route: session + "/requests", body: map[string]any{"method": "GET", "path": "/"}},
		{name: "save a session entry as a test", method: "POST", route: session + "/requests/{entry_id}/save-as-test",
			body: map[string]any{"name": "stolen"}},

		// Not templated routes: the id travels in the body.
		{name: "switch to the organization", method: "PUT", route: "/api/me/current-organization", body: map[string]any{"organization_id": "{org_id}"}},
		{name: "bind a key to A's server", method: "POST", route: "/api/keys", status: http.StatusUnprocessableEntity,
			body: map[string]any{"name": "stolen binding", "bound_server_id": "{server_id}"}},
		{name: "put A's test in a suite", method: "POST", route: "/api/suites", status: http.StatusUnprocessableEntity,
			body: map[string]any{"name": "stolen suite", "test_ids": []any{"{test_id}"}}},
		{name: "start a session on A's server", method: "POST", route: "/api/sessions", status: http.StatusUnprocessableEntity,
			body: map[string]any{"name": "stolen session", "server_id": "{server_id}"}},
	}...)
}

// serverItemCases are B's attempts at one kind of item of A's server (its
// tools, resources or prompts): at the collection, at the item, and at the
// item through B's own server.
func serverItemCases(kind, plural, collection, item string, create map[string]any, viaOwnServer map[string]string) []isolationCase {
	hijack := map[string]any{"description": "hijacked"}
	return []isolationCase{
		{name: "list " + plural, method: "GET", route: collection},
		{name: "create " + kind, method: "POST", route: collection, body: create},
		{name: "get " + kind, method: "GET", route: item},
		{name: "update " + kind, method: "PATCH", route: item, body: hijack},
		{name: "delete " + kind, method: "DELETE", route: item},
		{name: "get " + kind + " through own server", method: "GET", route: item, params: viaOwnServer},
		{name: "update " + kind + " through own server", method: "PATCH", route: item, params: viaOwnServer, body: hijack},
		{name: "delete " + kind + " through own server", method: "DELETE", route: item, params: viaOwnServer},
	}
}

// account is a signed-up user and their first organization.
type account struct{ email, userID, orgID string }

func signUp(t *testing.T, env *apitest.Env, email, org string) account {
	t.Helper()
	r := env.Anonymous(t).Do("POST", "/api/auth/signup", map[string]any{
		"email": email, "password": isolationPassword, "organization_name": org,
	}).Status(http.StatusCreated)
	return account{email: email, userID: r.String("user.id"), orgID: r.String("organization.id")}
}

// client signs acc in on a client of t's own.
func (acc account) client(t *testing.T, env *apitest.Env) *apitest.Client {
	t.Helper()
	c := env.Anonymous(t)
	c.Do("POST", "/api/auth/login", map[string]any{"email": acc.email, "password": isolationPassword}).Status(http.StatusOK)
	c.UserID, c.OrgID, c.Email = acc.userID, acc.orgID, acc.email
	return c
}

// alpha is A's world: its home organization with one server owning a tool, a
// resource and a prompt, and a second organization where B is a member.
type alpha struct {
	account
	org2                             string
	server, tool, resource, prompt   string
	key, keyName                     string
	orgName, orgSlug, serverName     string
	toolName, resourceName, resURI   string
	promptName, toolDesc, promptText string
	card, cardName, skillName        string
	test, testName, suite, suiteName string
	suiteRun, session, entry         string
	task                             string
	serverSkill, serverSkillText     string
}

// ids are A's ids by OpenAPI path parameter.
func (a alpha) ids() map[string]string {
	return map[string]string{"org_id": a.orgID, "user_id": a.userID, "server_id": a.server,
		"tool_id": a.tool, "resource_id": a.resource, "prompt_id": a.prompt, "key_id": a.key,
		"card_id": a.card, "skill_name": a.skillName, "test_id": a.test, "suite_id": a.suite, "run_id": a.suiteRun,
		"session_id": a.session, "entry_id": a.entry, "task_id": a.task, "server_skill_name": a.serverSkill}
}

// markers are strings only A's objects carry; none may reach B.
func (a alpha) markers() []string {
	return []string{a.orgID, a.orgName, a.orgSlug, a.email, a.userID, a.server, a.serverName, a.tool, a.toolName,
		a.toolDesc, a.resource, a.resourceName, a.resURI, a.prompt, a.promptName, a.promptText, a.key, a.keyName,
		a.card, a.cardName, a.skillName, a.test, a.testName, a.suite, a.suiteName, a.suiteRun, a.session, a.entry, a.task,
		a.serverSkill, a.serverSkillText}
}

// snapshot reads paths as c, keeping each body, or the status when it is
// not 200.
func snapshot(t *testing.T, c *apitest.Client, paths []string) map[string]any {
	t.Helper()
	out := make(map[string]any, len(paths))
	for _, p := range paths {
		r := c.Do("GET", p, nil)
		if r.Code != http.StatusOK {
			out[p] = r.Code // a problem carries a fresh request id
			continue
		}
		out[p] = withoutLastUse(r.JSON)
	}
	return out
}

// withoutLastUse drops keys' last_used_at, which B's own key use moves in
// the background while the cases run.
func withoutLastUse(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "last_used_at")
		for _, e := range x {
			withoutLastUse(e)
		}
	case []any:
		for _, e := range x {
			withoutLastUse(e)
		}
	}
	return v
}

// requireNoMarkers fails when raw mentions any of A's markers.
func requireNoMarkers(t *testing.T, raw []byte, markers []string, what string) {
	t.Helper()
	body := strings.ToLower(string(raw))
	for _, m := range markers {
		require.NotContainsf(t, body, strings.ToLower(m), "%s reveals %q: %s", what, m, raw)
	}
}

// fill replaces the {parameters} of s.
func fill(s string, ids map[string]string) string {
	for k, v := range ids {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

func TestIsolationBetweenOrganizations(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	a := alpha{
		orgName: "Alpha Isolated Corp", serverName: "alpha-secret-server", toolName: "alpha_secret_tool",
		toolDesc: "alpha secret tool description", resourceName: "alpha-secret-resource", resURI: "alpha-secret://guide",
		promptName: "alpha_secret_prompt", promptText: "alpha secret prompt text", keyName: "alpha secret key",
		cardName: "alpha-secret-card", skillName: "alpha_secret_skill",
		testName: "alpha secret test", suiteName: "alpha secret suite",
		serverSkill: "alpha-secret-server-skill", serverSkillText: "alpha secret skill body",
	}
	a.account = signUp(t, env, "ada@alpha-isolated.example", a.orgName)
	b := signUp(t, env, "bob@beta.example", "Beta Corp")
	ac, bc := a.client(t, env), b.client(t, env)

	a.orgSlug = ac.Do("GET", "/api/organizations/"+a.orgID, nil).Status(http.StatusOK).String("slug")
	a.server = ac.Do("POST", "/api/servers", map[string]any{"name": a.serverName, "description": "alpha secret"}).
		Status(http.StatusCreated).String("id")
	a.tool = ac.Do("POST", "/api/servers/"+a.server+"/tools", map[string]any{
		"name": a.toolName, "description": a.toolDesc,
		"input_schema":   map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "default", "response": map[string]any{"text": "alpha"}}},
	}).Status(http.StatusCreated).String("id")
	a.resource = ac.Do("POST", "/api/servers/"+a.server+"/resources", map[string]any{
		"name": a.resourceName, "uri": a.resURI, "content": "alpha secret content",
	}).Status(http.StatusCreated).String("id")
	a.prompt = ac.Do("POST", "/api/servers/"+a.server+"/prompts", map[string]any{
		"name": a.promptName, "messages": []any{map[string]any{"role": "user", "text": a.promptText}},
	}).Status(http.StatusCreated).String("id")
	ac.Do("POST", "/api/servers/"+a.server+"/skills", map[string]any{
		"name": a.serverSkill, "description": "alpha skill", "body": a.serverSkillText,
	}).Status(http.StatusCreated)
	a.key = ac.Do("POST", "/api/keys", map[string]any{"name": a.keyName}).Status(http.StatusCreated).String("key.id")
	a.card = ac.Do("POST", "/api/agent-cards", map[string]any{"name": a.cardName, "skills": []any{map[string]any{
		"name": a.skillName, "mcp_server": a.server, "mcp_tool": a.toolName}}}).Status(http.StatusCreated).String("id")
	// A's test calls a closed port on loopback: refused before any request
	// leaves, so the runs it records are A's alone.
	a.test = ac.Do("POST", "/api/tests", map[string]any{"name": a.testName, "base_url": "http://127.0.0.1:9",
		"scopes": []any{map[string]any{"method": "GET", "path": "/alpha"}}}).Status(http.StatusCreated).String("id")
	a.suite = ac.Do("POST", "/api/suites", map[string]any{"name": a.suiteName, "test_ids": []any{a.test}}).
		Status(http.StatusCreated).String("id")
	a.suiteRun = ac.Do("POST", "/api/suites/"+a.suite+"/run", nil).Status(http.StatusCreated).String("id")
	a.session = ac.Do("POST", "/api/sessions", map[string]any{"name": "alpha secret session", "server_id": a.server}).
		Status(http.StatusCreated).String("id")
	a.entry = ac.Do("POST", "/api/sessions/"+a.session+"/requests", map[string]any{"method": "POST",
		"body": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}}).Status(http.StatusCreated).String("id")
	// A call in the journal of A's server (a draft's endpoint records none),
	// so that clearing it would show; it asked the client a question, whose
	// answer quotes A's prompt.
	require.True(t, env.Service.Journal().Record(journal.Entry{OrgID: uuid.MustParse(a.orgID), ServerID: uuid.MustParse(a.server),
		ReceivedAt: time.Now(), Method: "tools/call", Tool: a.toolName, Outcome: journal.OutcomeResult, Step: -1,
		Params: []byte(`{"name":"` + a.toolName + `","arguments":{"city":"Paris"}}`), Answer: []byte(`{"content":[]}`),
		Rounds: []journal.Round{{Asked: map[string]json.RawMessage{"confirm": []byte(`{"method":"elicitation/create"}`)},
			Sent: true, Answers: map[string]json.RawMessage{"confirm": []byte(`{"action":"accept","content":{"note":"` +
				a.promptText + `"}}`)}, Branch: 0}}}))
	require.NoError(t, env.Service.Journal().Flush(context.Background()))
	require.Contains(t, string(ac.Do("GET", "/api/servers/"+a.server+"/journal", nil).Status(http.StatusOK).Raw), a.promptText,
		"A's journal lists the answer")
	// An open task of A's server, as the MCP endpoint creates one.
	a.task = strings.Repeat("a1", 16)
	require.NoError(t, env.Service.Store().CreateTask(context.Background(), store.Task{ID: a.task,
		OrgID: uuid.MustParse(a.orgID), ServerID: uuid.MustParse(a.server), Tool: a.toolName, Scenario: "default",
		Script: json.RawMessage(plantedScript), CreatedAt: time.Now()}))
	require.Contains(t, string(ac.Do("GET", "/api/servers/"+a.server+"/tasks", nil).Status(http.StatusOK).Raw), a.task,
		"A's tasks list it")
	// A second organization of A's where B is a plain member: B belonging to
	// one of A's organizations must not open the others.
	a.org2 = ac.Do("POST", "/api/organizations", map[string]any{"name": "Alpha Shared"}).Status(http.StatusCreated).String("id")
	ac.Do("POST", "/api/organizations/"+a.org2+"/members", map[string]any{"email": b.email}).Status(http.StatusCreated)

	bServer := bc.Do("POST", "/api/servers", map[string]any{"name": "beta-server"}).Status(http.StatusCreated).String("id")
	bc.Do("POST", "/api/servers/"+bServer+"/tools", map[string]any{"name": "beta_tool"}).Status(http.StatusCreated)
	bc.Do("POST", "/api/servers/"+bServer+"/resources", map[string]any{"name": "beta", "uri": "beta://x", "content": "b"}).
		Status(http.StatusCreated)
	bc.Do("POST", "/api/servers/"+bServer+"/prompts", map[string]any{"name": "beta_prompt"}).Status(http.StatusCreated)
	bKey := bc.Do("POST", "/api/keys", map[string]any{"name": "beta key"}).Status(http.StatusCreated).String("raw_key")

	aPaths := []string{
		"/api/me", "/api/servers", "/api/organizations", "/api/keys",
		"/api/organizations/" + a.orgID, "/api/organizations/" + a.orgID + "/members",
		"/api/organizations/" + a.org2 + "/members",
		"/api/agent-cards", "/api/agent-cards/" + a.card, "/api/agent-cards/" + a.card + "/skills",
		"/api/tests", "/api/tests/" + a.test, "/api/tests/" + a.test + "/runs", "/api/suites", "/api/suites/" + a.suite,
		"/api/suites/" + a.suite + "/runs", "/api/suites/" + a.suite + "/runs/" + a.suiteRun, "/api/sessions",
		"/api/sessions/" + a.session,
	}
	for _, p := range []string{"", "/tools", "/tools/" + a.tool, "/resources", "/resources/" + a.resource,
		"/prompts", "/prompts/" + a.prompt, "/journal", "/tasks", "/skills", "/skills/" + a.serverSkill} {
		aPaths = append(aPaths, "/api/servers/"+a.server+p)
	}
	bPaths := []string{
		"/api/me", "/api/servers", "/api/organizations", "/api/keys", "/api/organizations/" + b.orgID + "/members",
		"/api/servers/" + bServer, "/api/servers/" + bServer + "/tools", "/api/servers/" + bServer + "/resources", "/api/servers/" + bServer + "/prompts",
		"/api/agent-cards", "/api/tests", "/api/suites", "/api/sessions",
	}
	aBefore := snapshot(t, ac, aPaths)
	for p, v := range aBefore {
		require.IsTypef(t, map[string]any{}, v, "A's GET %s answered %v", p, v)
	}

	// The MCP endpoint is not part of the document: it serves enabled designs
	// to anyone (or to keys of the owning organization), and never a draft.
	t.Run("MCP endpoint of A's draft server", func(t *testing.T) {
		bt := b.client(t, env)
		for _, id := range []string{a.server, a.tool} {
			r := bt.Do("POST", "/api/platform/"+id+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
			r.Problem(http.StatusNotFound)
			requireNoMarkers(t, r.Raw, a.markers(), "the MCP endpoint")
		}
	})

	rounds := []struct {
		name    string
		current string // B's current organization
	}{
		{"B in its own organization", b.orgID},
		{"B in an organization shared with A", a.org2},
	}
	// B's current organization belongs to the user, not to a session, so
	// the rounds run one after the other; within a round the cases run in
	// parallel. Each case compares both snapshots after its own request, and
	// when isolation holds no case changes anything, so a case that does
	// still fails.
	for _, round := range rounds {
		bc.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": round.current}).Status(http.StatusOK)
		bBefore := snapshot(t, bc, bPaths)
		t.Run(round.name, func(t *testing.T) {
			t.Run("lists", func(t *testing.T) {
				t.Parallel()
				bt := b.client(t, env)
				servers := bt.Do("GET", "/api/servers", nil).Status(http.StatusOK)
				requireNoMarkers(t, servers.Raw, a.markers(), "B's server list")
				orgs := bt.Do("GET", "/api/organizations", nil).Status(http.StatusOK)
				requireNoMarkers(t, orgs.Raw, a.markers(), "B's organization list")
				var got []string
				for i := 0; i < orgs.Len("items"); i++ {
					got = append(got, orgs.String("items."+strconv.Itoa(i)+".id"))
				}
				want := []string{b.orgID, a.org2}
				sort.Strings(got)
				sort.Strings(want)
				require.Equal(t, want, got, "B's organizations")
				me := bt.Do("GET", "/api/me", nil).Status(http.StatusOK)
				require.Equal(t, round.current, me.String("current_organization_id"))
				requireNoMarkers(t, me.Raw, a.markers(), "B's /api/me")
			})

			for _, tc := range isolationCases(b, bServer) {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					ids := a.ids()
					for k, v := range tc.params {
						ids[k] = v
					}
					body := tc.body
					if m, ok := body.(map[string]any); ok {
						filled := make(map[string]any, len(m))
						for k, v := range m {
							if s, ok := v.(string); ok {
								v = fill(s, ids)
							}
							filled[k] = v
						}
						body = filled
					}
					path := fill(tc.route, ids)
					require.NotContains(t, path, "{", "a parameter of %s has no value", tc.route)

					caller := b.client(t, env)
					if tc.key {
						caller = env.Anonymous(t)
						caller.Header.Set("X-API-Key", bKey)
					}
					status := tc.status
					if status == 0 {
						status = http.StatusNotFound
					}
					r := caller.Do(tc.method, path, body).Problem(status)
					requireNoMarkers(t, r.Raw, a.markers(), tc.method+" "+path)

					require.Equal(t, aBefore, snapshot(t, a.client(t, env), aPaths), "A's objects after B's %s %s", tc.method, path)
					require.Equal(t, bBefore, snapshot(t, b.client(t, env), bPaths), "B's objects after B's %s %s", tc.method, path)
				})
			}
		})
	}
}

// TestIsolationRouteTableIsComplete fails when a route of the OpenAPI
// document with a path parameter has no isolation case (nor a reason in
// notOrgOwned), so that a route added later is tested too.
func TestIsolationRouteTableIsComplete(t *testing.T) {
	t.Parallel()
	spec, err := api.GetSpec()
	require.NoError(t, err)
	operations := map[string]bool{}
	for path, item := range spec.Paths.Map() {
		for method := range item.Operations() {
			operations[strings.ToUpper(method)+" "+path] = true
		}
	}
	covered := map[string]bool{}
	for _, tc := range isolationCases(account{}, "") {
		route, _, _ := strings.Cut(tc.route, "?")
		key := tc.method + " " + route
		require.Truef(t, operations[key], "isolation case %q names %s, which the document does not have", tc.name, key)
		covered[key] = true
	}
	for key, why := range notOrgOwned {
		require.Truef(t, operations[key], "notOrgOwned names %s, which the document does not have", key)
		require.NotEmptyf(t, why, "notOrgOwned[%s] needs a reason", key)
		require.Falsef(t, covered[key], "%s is both exempt and covered", key)
	}
	var missing []string
	for key := range operations {
		if strings.Contains(key, "{") && !covered[key] && notOrgOwned[key] == "" {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "routes that take an id but have no case in isolationCases (or a reason in notOrgOwned)")
}
