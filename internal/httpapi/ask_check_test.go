package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAskChecks: a scenario that asks the client is refused, with every
// problem named by its path, when its questions or branches are wrong;
// nothing is stored.
func TestAskChecks(t *testing.T) {
	t.Parallel()
	env, ada, server, tools := designFixture(t, "Acme Labs", "Asker", "tools")
	const name = `{"elicitation":{"message":"Name?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	requireInvalid(t, ada, "POST", tools, []invalidBody{
		{"then without ask", toolBody(t, `{"name":"s","then":[{"response":{}}]}`),
			[]string{"mock_scenarios[0].ask"}},
		{"ask beside a response", toolBody(t, `{"name":"s","ask":{"u":`+name+`},"then":[{"response":{}}],"response":{}}`),
			[]string{"mock_scenarios[0].response"}},
		{"a schema that is not an object's", toolBody(t, `{"name":"s","ask":{"u":{"elicitation":{"message":"m","requested_schema":{"type":"string"}}}},"then":[{"response":{}}]}`),
			[]string{`mock_scenarios[0].ask["u"].elicitation.requested_schema`}},
		{"a bad condition and an unknown placeholder", toolBody(t, `{"name":"s","ask":{"u":`+name+`},"then":[{"when":{"field":"u.action","operator":"is"},"response":{}},{"response":{"a":"{{v.content}}"}}]}`),
			[]string{"mock_scenarios[0].then[0].when.operator", "mock_scenarios[0].then[1].response"}},
		{"a nested round reusing an id", toolBody(t, `{"name":"s","ask":{"u":`+name+`},"then":[{"ask":{"u":{"roots":{}}},"then":[{"response":{}}]}]}`),
			[]string{`mock_scenarios[0].then[0].ask["u"]`}},
		{"an unknown kind of question", toolBody(t, `{"name":"s","ask":{"u":{"telepathy":{}}},"then":[{"response":{}}]}`),
			[]string{"mock_scenarios[0].ask.u.telepathy"}},
	})
	if n := rowCount(t, env, "mcp_tools", "server_id", server); n != 0 {
		t.Fatalf("%d tools stored", n)
	}
}

// TestPromptAsk: a prompt's questions and branches are checked, stored,
// returned as saved, changed by PATCH and copied with the server.
func TestPromptAsk(t *testing.T) {
	t.Parallel()
	_, ada, server, prompts := designFixture(t, "Acme Labs", "Asker", "prompts")
	const ask = `{"ctx":{"elicitation":{"message":"Context?","requested_schema":{"type":"object","properties":{"context":{"type":"string"}}}}}}`
	requireInvalid(t, ada, "POST", prompts, []invalidBody{
		{"messages beside ask", rmJSON(t, `{"name":"p","messages":[{"role":"user","text":"x"}],"ask":`+ask+`,"then":[{"messages":[{"role":"user","text":"y"}]}]}`),
			[]string{"messages"}},
		{"a branch of a tool's answer", rmJSON(t, `{"name":"p","ask":`+ask+`,"then":[{"response":{"a":1}}]}`),
			[]string{"then[0].messages", "then[0].response"}},
		{"a bad role", rmJSON(t, `{"name":"p","ask":`+ask+`,"then":[{"messages":[{"role":"robot","text":"x"}]}]}`),
			[]string{"then[0].messages[0].role"}},
		{"a placeholder naming neither an argument nor a question", rmJSON(t, `{"name":"p","arguments":[{"name":"topic"}],"ask":`+ask+
			`,"then":[{"messages":[{"role":"user","text":"{{topic}} {{ctx.content.context}} {{other.content}}"}]}]}`),
			[]string{"then[0].messages[0].text"}},
		{"a branch without messages", rmJSON(t, `{"name":"p","ask":`+ask+`,"then":[{"when":{}}]}`), []string{"then[0].messages"}},
	})
	id := ada.Do("POST", prompts, rmJSON(t, `{"name":"p","arguments":[{"name":"topic"}],"ask":`+ask+
		`,"then":[{"when":{"ctx.action":"accept"},"messages":[{"role":"user","text":"{{topic}}: {{ctx.content.context}}"}]}]}`)).
		Status(http.StatusCreated).String("id")
	got := ada.Do("GET", prompts+"/"+id, nil).Status(http.StatusOK)
	require.Equal(t, "Context?", got.String("ask.ctx.elicitation.message"))
	require.Equal(t, "{{topic}}: {{ctx.content.context}}", got.String("then.0.messages.0.text"))

	patched := ada.Do("PATCH", prompts+"/"+id, rmJSON(t, `{"then":[{"messages":[{"role":"user","text":"always"}]}]}`)).Status(http.StatusOK)
	require.Equal(t, "always", patched.String("then.0.messages.0.text"))
	require.Equal(t, "Context?", patched.String("ask.ctx.elicitation.message"), "ask kept")

	copied := ada.Do("POST", "/api/servers/"+server+"/duplicate", nil).Status(http.StatusCreated).String("id")
	list := ada.Do("GET", "/api/servers/"+copied+"/prompts", nil).Status(http.StatusOK)
	require.Equal(t, "Context?", list.String("items.0.ask.ctx.elicitation.message"))
	require.Equal(t, "always", list.String("items.0.then.0.messages.0.text"))
}

// TestResourceAsk: a resource's questions and branches are checked,
// stored and returned as saved.
func TestResourceAsk(t *testing.T) {
	t.Parallel()
	_, ada, _, resources := designFixture(t, "Acme Labs", "Asker", "resources")
	const ask = `{"who":{"elicitation":{"message":"Who?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`
	requireInvalid(t, ada, "POST", resources, []invalidBody{
		{"content in a binary resource's branch", rmJSON(t, `{"name":"r","uri":"r://bin","blob":"iVBORw0KGgo=","ask":`+ask+`,"then":[{"content":"x"}]}`),
			[]string{"then[0].content"}},
		{"messages in a resource's branch", rmJSON(t, `{"name":"r","uri":"r://a","content":"x","ask":`+ask+`,"then":[{"messages":[{"role":"user","text":"x"}]}]}`),
			[]string{"then[0].messages"}},
		{"a placeholder naming no question", rmJSON(t, `{"name":"r","uri":"r://a","content":"x","ask":`+ask+`,"then":[{"content":"{{whom.content.name}}"}]}`),
			[]string{"then[0].content"}},
	})
	id := ada.Do("POST", resources, rmJSON(t, `{"name":"r","uri":"r://a","content":"sealed","ask":`+ask+
		`,"then":[{"when":{"who.content.name":"Ada"},"content":"for {{who.content.name}}"},{}]}`)).Status(http.StatusCreated).String("id")
	got := ada.Do("GET", resources+"/"+id, nil).Status(http.StatusOK)
	require.Equal(t, "Who?", got.String("ask.who.elicitation.message"))
	require.Equal(t, "for {{who.content.name}}", got.String("then.0.content"))
}
