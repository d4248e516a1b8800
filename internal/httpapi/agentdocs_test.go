package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestAgentCardDocuments: a card exported as a document applies back
// unchanged (replies included), in JSON and YAML; a dry run writes
// nothing; a document creates, updates and publishes a card; what it gets
// wrong is named by its path; another organization cannot export it.
func TestAgentCardDocuments(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Card Documents")
	replies := []any{map[string]any{"name": "paris", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Paris"},
		"text": "Sunny in Paris ({{args.contextId}})."}}
	id := mkCard(t, c, with(validCard("doc-agent"), "replies", replies))
	c.Do("POST", cardsPath+"/"+id+"/publish", nil).Status(http.StatusOK)

	exported := c.Do("GET", cardsPath+"/"+id+"/export", nil).Status(http.StatusOK)
	require.Equal(t, "mockmcp/v1", exported.String("apiVersion"))
	require.Equal(t, "A2AAgent", exported.String("kind"))
	require.Equal(t, true, exported.Get("published"))
	require.JSONEq(t, string(apitest.JSON(t, replies)), jsonAt(t, exported, "replies"))
	require.Nil(t, exported.Get("id"))

	again := c.Do("POST", cardsPath+"/apply", exported.Raw).Status(http.StatusOK)
	require.Equal(t, false, again.Get("changed"), "%s", again.Raw)
	require.Equal(t, "unchanged", again.String("card.action"))
	require.Equal(t, id, again.String("card.id"))
	require.Equal(t, "published", again.String("card.status"))
	require.True(t, strings.HasSuffix(again.String("card.agent_url"), "/doc-agent/a2a"), again.String("card.agent_url"))

	yaml := c.Do("GET", cardsPath+"/"+id+"/export?format=yaml", nil).Status(http.StatusOK)
	require.Equal(t, "application/yaml", yaml.Hdr.Get("Content-Type"))
	require.Contains(t, string(yaml.Raw), "kind: A2AAgent")
	y := c.For(t)
	y.Header.Set("Content-Type", "application/yaml")
	require.Equal(t, false, y.Do("POST", cardsPath+"/apply", yaml.Raw).Status(http.StatusOK).Get("changed"))

	// A changed reply through a dry run writes nothing, then applies.
	changed := strings.Replace(string(yaml.Raw), "Sunny in Paris", "Rainy in Paris", 1)
	dry := y.Do("POST", cardsPath+"/apply?dry_run=true", changed).Status(http.StatusOK)
	require.Equal(t, true, dry.Get("dry_run"))
	require.Equal(t, "updated", dry.String("card.action"))
	require.Contains(t, jsonAt(t, c.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK), "replies"), "Sunny in Paris")
	require.Equal(t, "updated", y.Do("POST", cardsPath+"/apply", changed).Status(http.StatusOK).String("card.action"))
	require.Contains(t, jsonAt(t, c.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK), "replies"), "Rainy in Paris")

	// A new document: a dry run names no id and creates nothing; then a
	// draft is created, and published: true publishes it.
	doc := with(validCard("new-doc-agent"), "apiVersion", "mockmcp/v1", "kind", "A2AAgent")
	dry = c.Do("POST", cardsPath+"/apply?dry_run=true", doc).Status(http.StatusOK)
	require.Equal(t, "created", dry.String("card.action"))
	require.Nil(t, dry.Get("card.id"))
	created := c.Do("POST", cardsPath+"/apply", doc).Status(http.StatusCreated)
	require.Equal(t, "draft", created.String("card.status"))
	published := c.Do("POST", cardsPath+"/apply", with(doc, "published", true)).Status(http.StatusOK)
	require.Equal(t, "published", published.String("card.status"))
	require.Equal(t, created.String("card.id"), published.String("card.id"))
	status, _ := sendAgentMessage(t, env.URL+exchangePath+"/"+orgSlug(t, c)+"/new-doc-agent/a2a", "hi")
	require.Equal(t, http.StatusOK, status)

	// Faults are named by their path in the document.
	c.Do("POST", cardsPath+"/apply", with(doc, "kind", "MCPServer")).Problem(http.StatusUnprocessableEntity, "kind")
	c.Do("POST", cardsPath+"/apply", with(doc, "colour", "red")).Problem(http.StatusUnprocessableEntity, "colour")
	c.Do("POST", cardsPath+"/apply", with(doc, "replies", []any{map[string]any{"name": "x", "text": "{{nope}}"}})).
		Problem(http.StatusUnprocessableEntity, "replies[0].text")
	c.Do("POST", cardsPath+"/apply", with(doc, "skills", "many")).Problem(http.StatusUnprocessableEntity, "skills")
	c.Do("POST", cardsPath+"/apply", with(doc, "published", true, "description", "short")).
		Problem(http.StatusUnprocessableEntity, "description")
	c.Do("POST", cardsPath+"/apply", "").Problem(http.StatusBadRequest)

	other := env.Signup(t, "Card Documents Rival")
	other.Do("GET", cardsPath+"/"+id+"/export", nil).Problem(http.StatusNotFound)
	pinned := with(doc, "id", id, "name", "stolen-agent")
	other.Do("POST", cardsPath+"/apply", pinned).Problem(http.StatusConflict, "id")
}

// TestAgentCardDocumentsRefuseHostileYAML: an agent card document whose
// aliases loop, or expand past what a body may hold, is refused with a 422
// naming the line, at once rather than after the expansion, and nothing is
// written; a body over the limit is a 413.
func TestAgentCardDocumentsRefuseHostileYAML(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Hostile Card Documents")
	y := c.For(t)
	y.Header.Set("Content-Type", "application/yaml")
	head := "apiVersion: mockmcp/v1\nkind: A2AAgent\nname: hostile-agent\ndescription: An agent sent to take the service down\n"
	var laughs strings.Builder
	laughs.WriteString(head + "l0: &l0 lol\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	for name, tc := range map[string]struct{ doc, says string }{
		"an alias cycle": {head + "skills: &s [ *s ]\n", "anchor 's' contains itself"},
		"billion laughs": {laughs.String(), "bytes of JSON"},
	} {
		start := time.Now()
		r := y.Do("POST", cardsPath+"/apply", tc.doc).Problem(http.StatusUnprocessableEntity)
		require.Less(t, time.Since(start), 5*time.Second, "%s: refused at once, not after the expansion", name)
		require.Contains(t, string(r.Raw), tc.says, name)
		require.Regexp(t, `line \d+`, string(r.Raw), name)
	}
	over := head + "notes: \"" + strings.Repeat("x", int(env.Config.MaxBodyBytes)) + "\"\n"
	y.Do("POST", cardsPath+"/apply", over).Problem(http.StatusRequestEntityTooLarge)
	require.NotContains(t, string(c.Do("GET", cardsPath, nil).Status(http.StatusOK).Raw), "hostile-agent")
}
