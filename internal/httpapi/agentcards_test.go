package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Helpers of the agent card tests.

const (
	cardsPath    = "/api/agent-cards"
	exchangePath = "/api/exchange/agent-cards"
	a2aSuffix    = "/.well-known/agent-card.json"
	testEndpoint = "https://agents.example.com/mcp"
)

// cardPadding fills descriptions; it holds none of the words the exchange
// search tests look for.
const cardPadding = "The quick brown fox jumps over the lazy dog while the band plays on. "

// cardText is an ASCII text of exactly n characters.
func cardText(n int) string {
	return strings.Repeat(cardPadding, n/len(cardPadding)+1)[:n]
}

// cardDesc is a valid card description (240 characters) starting with topic.
func cardDesc(topic string) string {
	return topic + " " + cardText(240-len(topic)-1)
}

// skillDesc is a valid skill description (at least 50 characters).
func skillDesc(what string) string {
	return what + ": " + cardText(60)
}

func validSkill(name string) map[string]any {
	return map[string]any{"name": name, "description": skillDesc("Skill " + name)}
}

// validCard is a card that passes every publishing rule: name, version
// 1.0.0, a 240-character description, one skill and an MCP invocation.
func validCard(name string) map[string]any {
	return map[string]any{
		"name": name, "version": "1.0.0", "description": cardDesc("An agent named " + name + "."),
		"skills":     []any{validSkill("get_forecast")},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": testEndpoint},
	}
}

// with returns a copy of body with the given fields set.
func with(body map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(body)+len(kv)/2)
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// mkCard creates a card and returns its id.
func mkCard(t testing.TB, c *apitest.Client, body map[string]any) string {
	t.Helper()
	return c.Do("POST", cardsPath, body).Status(http.StatusCreated).String("id")
}

// orgSlug reads the slug of c's organization.
func orgSlug(t testing.TB, c *apitest.Client) string {
	t.Helper()
	return c.Do("GET", "/api/organizations/"+c.OrgID, nil).Status(http.StatusOK).String("slug")
}

// errorFields lists the field of every FieldError in the array at path.
func errorFields(t *testing.T, r *apitest.Response, path string) []string {
	t.Helper()
	return rtStrings(t, r, path, "field")
}

// strs reads the array of strings at path.
func strs(t *testing.T, r *apitest.Response, path string) []string {
	t.Helper()
	return rtStrings(t, r, path, "")
}

// requireMention requires one of warnings to contain every one of words.
func requireMention(t *testing.T, warnings []string, words ...string) {
	t.Helper()
	for _, w := range warnings {
		all := true
		for _, word := range words {
			all = all && strings.Contains(w, word)
		}
		if all {
			return
		}
	}
	require.Failf(t, "no warning mentions every word", "words %q in %q", words, warnings)
}

func TestAgentCardCRUD(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Card Makers", "Other Makers")

	t.Run("a draft needs only a name", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", cardsPath, map[string]any{"name": "weather-agent"}).Status(http.StatusCreated)
		id := r.String("id")
		require.Equal(t, "draft", r.Get("status"))
		require.Equal(t, "weather-agent", r.Get("name"))
		require.Equal(t, "", r.Get("version"))
		require.Equal(t, false, r.Get("validation.valid"))
		require.ElementsMatch(t, []string{"version", "description", "skills", "invocation"}, errorFields(t, r, "validation.errors"))
		require.Equal(t, 0, r.Len("skills"))
		require.Equal(t, 0, r.Len("examples"))
		require.Equal(t, 0, r.Len("warnings"))
		for _, f := range []string{"author", "license", "homepage", "repository", "capabilities", "invocation", "metadata", "published_at", "exchange_url"} {
			require.Contains(t, r.JSON, f, "nullable fields are present")
			require.Nil(t, r.Get(f), f)
		}
		require.Equal(t, ada.UserID, r.Get("created_by"))
		created := timeAt(t, r, "created_at")
		require.WithinDuration(t, time.Now(), created, time.Minute)
		require.Equal(t, created, timeAt(t, r, "updated_at"))

		requireReadBack(t, ada, cardsPath+"/"+id, r)
	})

	t.Run("get of an unknown card is 404", func(t *testing.T) {
		ada.For(t).Do("GET", cardsPath+"/"+missingID, nil).Problem(http.StatusNotFound)
	})

	t.Run("patch changes the given fields and null clears", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, map[string]any{
			"name": "patched", "author": "Ada", "license": "MIT", "homepage": "https://example.com/home",
			"capabilities": map[string]any{"languages": []any{"en"}, "streaming": true},
			"metadata":     map[string]any{"tags": []any{"one"}},
		})
		path := cardsPath + "/" + id

		r := ada.Do("PATCH", path, map[string]any{"version": "1.1.0", "description": cardDesc("Patched."), "author": "Grace"}).
			Status(http.StatusOK)
		require.Equal(t, "1.1.0", r.Get("version"))
		require.Equal(t, cardDesc("Patched."), r.Get("description"))
		require.Equal(t, "Grace", r.Get("author"))
		require.Equal(t, "MIT", r.Get("license"), "absent fields are kept")
		require.Equal(t, "https://example.com/home", r.Get("homepage"))
		require.JSONEq(t, `{"languages":["en"],"streaming":true,"async":false,"state_management":false}`, jsonAt(t, r, "capabilities"))
		require.JSONEq(t, `{"tags":["one"]}`, jsonAt(t, r, "metadata"))

		r = ada.Do("PATCH", path, map[string]any{"homepage": nil, "capabilities": nil, "name": "patched-renamed"}).Status(http.StatusOK)
		require.Nil(t, r.Get("homepage"))
		require.Nil(t, r.Get("capabilities"))
		require.Contains(t, r.JSON, "capabilities")
		require.Equal(t, "patched-renamed", r.Get("name"))
		require.Equal(t, "Grace", r.Get("author"))
		require.JSONEq(t, `{"tags":["one"]}`, jsonAt(t, r, "metadata"))

		got := ada.Do("GET", path, nil).Status(http.StatusOK)
		for _, f := range []string{"name", "version", "description", "author", "license", "homepage", "capabilities", "metadata"} {
			require.Equal(t, r.Get(f), got.Get(f), f)
		}
		require.True(t, timeAt(t, got, "updated_at").After(timeAt(t, got, "created_at")))
	})

	t.Run("list with status filter and cursor pagination", func(t *testing.T) {
		carol := env.Signup(t, "Card Lister")
		mkCard(t, bob, map[string]any{"name": "foreign-card"})
		first := mkCard(t, carol, validCard("first-card"))
		second := mkCard(t, carol, map[string]any{"name": "second-card"})
		third := mkCard(t, carol, map[string]any{"name": "third-card"})
		carol.Do("POST", cardsPath+"/"+first+"/publish", nil).Status(http.StatusOK)

		ids := func(r *apitest.Response) []string { return rtStrings(t, r, "items", "id") }
		p1 := carol.Do("GET", cardsPath+"?limit=2", nil).Status(http.StatusOK)
		require.Equal(t, []string{third, second}, ids(p1), "newest first")
		cursor := p1.String("next_cursor")
		p2 := carol.Do("GET", cardsPath+"?limit=2&cursor="+url.QueryEscape(cursor), nil).Status(http.StatusOK)
		require.Equal(t, []string{first}, ids(p2))
		require.Nil(t, p2.Get("next_cursor"))
		require.Contains(t, p2.JSON, "next_cursor")

		all := carol.Do("GET", cardsPath, nil).Status(http.StatusOK)
		require.Equal(t, []string{third, second, first}, ids(all), "only the organization's own cards")
		require.Nil(t, all.Get("next_cursor"))

		drafts := carol.Do("GET", cardsPath+"?status=draft", nil).Status(http.StatusOK)
		require.Equal(t, []string{third, second}, ids(drafts))
		published := carol.Do("GET", cardsPath+"?status=published", nil).Status(http.StatusOK)
		require.Equal(t, []string{first}, ids(published))
		require.Equal(t, "published", published.Get("items.0.status"))
		require.Equal(t, true, published.Get("items.0.validation.valid"))

		carol.Do("GET", cardsPath+"?status=archived", nil).Problem(http.StatusBadRequest, "status")
		carol.Do("GET", cardsPath+"?cursor=not-a-cursor", nil).Problem(http.StatusBadRequest, "cursor")
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, map[string]any{"name": "short-lived"})
		ada.Do("DELETE", cardsPath+"/"+id, nil).Status(http.StatusNoContent)
		ada.Do("GET", cardsPath+"/"+id, nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", cardsPath+"/"+id, nil).Problem(http.StatusNotFound)
		// The name is free again.
		mkCard(t, ada, map[string]any{"name": "short-lived"})
	})

	t.Run("duplicate", func(t *testing.T) {
		ada := ada.For(t)
		src := ada.Do("POST", cardsPath, with(validCard("original"),
			"examples", []any{map[string]any{"skill": "get_forecast", "input": map[string]any{}, "output": map[string]any{}}})).
			Status(http.StatusCreated)
		ada.Do("POST", cardsPath+"/"+src.String("id")+"/publish", nil).Status(http.StatusOK)
		cp := ada.Do("POST", cardsPath+"/"+src.String("id")+"/duplicate", nil).Status(http.StatusCreated)
		require.Equal(t, "original-copy", cp.Get("name"))
		require.Equal(t, "draft", cp.Get("status"))
		require.Nil(t, cp.Get("published_at"))
		require.NotEqual(t, src.Get("id"), cp.Get("id"))
		for _, f := range []string{"version", "description", "skills", "examples", "invocation", "validation"} {
			require.Equal(t, src.Get(f), cp.Get(f), f)
		}
		ada.Do("POST", cardsPath+"/"+src.String("id")+"/duplicate", nil).Problem(http.StatusConflict)
		named := ada.Do("POST", cardsPath+"/"+src.String("id")+"/duplicate", map[string]any{"name": "named-copy"}).Status(http.StatusCreated)
		require.Equal(t, "named-copy", named.Get("name"))
		ada.Do("POST", cardsPath+"/"+src.String("id")+"/duplicate", map[string]any{"name": "Bad Copy"}).
			Problem(http.StatusUnprocessableEntity, "name")

		long := mkCard(t, ada, map[string]any{"name": strings.Repeat("l", 50)})
		r := ada.Do("POST", cardsPath+"/"+long+"/duplicate", nil).Status(http.StatusCreated)
		require.Equal(t, strings.Repeat("l", 45)+"-copy", r.Get("name"), "cut to 50 characters")
		require.Equal(t, "published", ada.Do("GET", cardsPath+"/"+src.String("id"), nil).Status(http.StatusOK).Get("status"))
	})

	t.Run("name rules on save", func(t *testing.T) {
		ada := ada.For(t)
		existing := mkCard(t, ada, map[string]any{"name": "name-rules"})
		for _, tc := range []struct {
			name   string
			body   map[string]any
			fields []string
		}{
			{"space and capitals", map[string]any{"name": "Bad Name"}, []string{"name"}},
			{"capitals", map[string]any{"name": "Weather"}, []string{"name"}},
			{"underscore", map[string]any{"name": "bad_name"}, []string{"name"}},
			{"51 characters", map[string]any{"name": strings.Repeat("a", 51)}, []string{"name"}},
			{"empty", map[string]any{"name": ""}, []string{"name"}},
			{"skill name in camel case", map[string]any{"name": "skilled", "skills": []any{map[string]any{"name": "GetForecast"}}},
				[]string{"skills[0].name"}},
			{"skill name with a hyphen", map[string]any{"name": "skilled", "skills": []any{validSkill("ok_skill"), map[string]any{"name": "get-forecast"}}},
				[]string{"skills[1].name"}},
			{"duplicate skill names", map[string]any{"name": "skilled", "skills": []any{validSkill("get_forecast"), validSkill("get_forecast")}},
				[]string{"skills[1].name"}},
			{"bad card and skill names", map[string]any{"name": "Bad Name", "skills": []any{map[string]any{"name": "Bad"}}},
				[]string{"name", "skills[0].name"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ada := ada.For(t)
				ada.Do("POST", cardsPath, tc.body).Problem(http.StatusUnprocessableEntity, tc.fields...)
				patch := map[string]any{}
				for k, v := range tc.body {
					patch[k] = v
				}
				ada.Do("PATCH", cardsPath+"/"+existing, patch).Problem(http.StatusUnprocessableEntity, tc.fields...)
			})
		}
		require.Equal(t, "name-rules", ada.Do("GET", cardsPath+"/"+existing, nil).Status(http.StatusOK).Get("name"))
		listed := ada.Do("GET", cardsPath+"?limit=200", nil).Status(http.StatusOK)
		require.NotContains(t, names(t, listed, "items"), "skilled", "no refused card was stored")
	})

	t.Run("names are unique per organization", func(t *testing.T) {
		ada := ada.For(t)
		mkCard(t, ada, map[string]any{"name": "dup-card"})
		ada.Do("POST", cardsPath, map[string]any{"name": "dup-card"}).Problem(http.StatusConflict)
		other := mkCard(t, ada, map[string]any{"name": "not-dup"})
		ada.Do("PATCH", cardsPath+"/"+other, map[string]any{"name": "dup-card"}).Problem(http.StatusConflict)
		require.Equal(t, "not-dup", ada.Do("GET", cardsPath+"/"+other, nil).Status(http.StatusOK).Get("name"))
		ada.Do("POST", cardsPath+"/"+other+"/duplicate", map[string]any{"name": "dup-card"}).Problem(http.StatusConflict)

		bob := bob.For(t)
		r := bob.Do("POST", cardsPath, map[string]any{"name": "dup-card"}).Status(http.StatusCreated)
		require.Equal(t, "dup-card", r.Get("name"), "another organization may use the name")
	})
}

func TestAgentCardValidate(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Validators")

	t.Run("a valid card", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", cardsPath, validCard("valid-card")).Status(http.StatusCreated)
		require.Equal(t, true, r.Get("validation.valid"), "body: %s", r.Raw)
		require.Equal(t, 0, r.Len("validation.errors"))
		v := ada.Do("POST", cardsPath+"/"+r.String("id")+"/validate", nil).Status(http.StatusOK)
		require.JSONEq(t, `{"valid":true,"errors":[]}`, string(v.Raw))
	})

	t.Run("a broken card lists every problem with its JSON path", func(t *testing.T) {
		ada := ada.For(t)
		body := with(validCard("broken-card"),
			"skills", []any{validSkill("get_forecast"), map[string]any{"name": "second", "description": "too short"}},
			"invocation", map[string]any{"protocol": "ftp", "endpoint": testEndpoint},
			"capabilities", map[string]any{"languages": []any{"english"}},
			"metadata", map[string]any{"created_at": "yesterday"},
			"examples", []any{map[string]any{"skill": "get_forecast", "input": map[string]any{"city": "Paris"}}},
		)
		r := ada.Do("POST", cardsPath, body).Status(http.StatusCreated)
		require.Equal(t, "draft", r.Get("status"))
		want := []string{"skills[1].description", "invocation.protocol", "capabilities.languages[0]", "metadata.created_at", "examples[0].output"}
		require.ElementsMatch(t, want, errorFields(t, r, "validation.errors"))

		v := ada.Do("POST", cardsPath+"/"+r.String("id")+"/validate", nil).Status(http.StatusOK)
		require.Equal(t, false, v.Get("valid"))
		require.ElementsMatch(t, want, errorFields(t, v, "errors"))
		for i := range v.Len("errors") {
			require.NotEmpty(t, v.String(fmt.Sprintf("errors.%d.message", i)))
		}
		require.JSONEq(t, jsonAt(t, r, "validation"), string(v.Raw), "the card's validation is the validate route's")
		ada.Do("POST", cardsPath+"/"+missingID+"/validate", nil).Problem(http.StatusNotFound)
	})

	t.Run("boundaries", func(t *testing.T) {
		for i, tc := range []struct {
			name   string
			set    []any
			fields []string // the validation's problems; none when empty
		}{
			{"50-character name", []any{"name", strings.Repeat("n", 50)}, nil},
			{"200-character description", []any{"description", cardText(200)}, nil},
			{"2000-character description", []any{"description", cardText(2000)}, nil},
			{"pre-release version", []any{"version", "2.0.0-beta.1"}, nil},
			{"50-character skill description", []any{"skills", []any{map[string]any{"name": "s", "description": cardText(50)}}}, nil},
			{"199-character description", []any{"description", cardText(199)}, []string{"description"}},
			{"2001-character description", []any{"description", cardText(2001)}, []string{"description"}},
			{"version with a v", []any{"version", "v1.0.0"}, []string{"version"}},
			{"two-part version", []any{"version", "1.0"}, []string{"version"}},
			{"49-character skill description", []any{"skills", []any{map[string]any{"name": "s", "description": cardText(49)}}}, []string{"skills[0].description"}},
			{"no skills", []any{"skills", []any{}}, []string{"skills"}},
			{"endpoint not http", []any{"invocation", map[string]any{"protocol": "mcp", "endpoint": "ftp://agents.example.com"}}, []string{"invocation.endpoint"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ada := ada.For(t)
				body := with(validCard(fmt.Sprintf("boundary-%d", i)), tc.set...)
				r := ada.Do("POST", cardsPath, body).Status(http.StatusCreated)
				v := ada.Do("POST", cardsPath+"/"+r.String("id")+"/validate", nil).Status(http.StatusOK)
				require.Equal(t, len(tc.fields) == 0, v.Get("valid"), "body: %s", v.Raw)
				if len(tc.fields) == 0 {
					require.Equal(t, 0, v.Len("errors"), "body: %s", v.Raw)
					ada.Do("POST", cardsPath+"/"+r.String("id")+"/publish", nil).Status(http.StatusOK)
				} else {
					require.ElementsMatch(t, tc.fields, errorFields(t, v, "errors"))
				}
			})
		}
	})
}

func TestAgentCardPublishing(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Publishers")
	slug := orgSlug(t, ada)

	t.Run("an invalid card is refused with every problem and stays a draft", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, map[string]any{
			"name": "not-ready", "version": "one", "homepage": "not a url",
			"skills":     []any{map[string]any{"name": "a_skill", "description": "short"}},
			"invocation": map[string]any{"protocol": "MCP"},
		})
		v := ada.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
		fields := errorFields(t, v, "errors")
		require.ElementsMatch(t, []string{"version", "description", "homepage", "skills[0].description",
			"invocation.protocol", "invocation.endpoint"}, fields)

		p := ada.Do("POST", cardsPath+"/"+id+"/publish", nil).Problem(http.StatusUnprocessableEntity, fields...)
		require.JSONEq(t, jsonAt(t, v, "errors"), jsonAt(t, p, "errors"), "the same problems as validate, in the same order")
		require.NotEmpty(t, p.String("detail"))

		got := ada.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK)
		require.Equal(t, "draft", got.Get("status"))
		require.Nil(t, got.Get("published_at"))
		require.Nil(t, got.Get("exchange_url"))
	})

	t.Run("publish, edit while published, unpublish", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, validCard("live-agent"))
		path := cardsPath + "/" + id

		r := ada.Do("POST", path+"/publish", nil).Status(http.StatusOK)
		require.Equal(t, "published", r.Get("status"))
		publishedAt := timeAt(t, r, "published_at")
		require.WithinDuration(t, time.Now(), publishedAt, time.Minute)
		exchangeURL := r.String("exchange_url")
		require.True(t, strings.HasSuffix(exchangeURL, "/api/exchange/agent-cards/"+slug+"/live-agent"), exchangeURL)
		require.True(t, strings.HasPrefix(exchangeURL, env.URL), "the exchange URL is where the caller reached the service: %s", exchangeURL)
		// Publishing again keeps it published, and the first publication time.
		again := ada.Do("POST", path+"/publish", nil).Status(http.StatusOK)
		require.Equal(t, "published", again.Get("status"))
		require.Equal(t, publishedAt, timeAt(t, again, "published_at"))

		before := ada.Do("GET", path, nil).Status(http.StatusOK)
		require.Equal(t, "published", before.Get("status"))
		require.Equal(t, exchangeURL, before.Get("exchange_url"))

		// A change that would make it invalid is refused, and nothing changes.
		ada.Do("PATCH", path, map[string]any{"description": "ten chars!"}).Problem(http.StatusUnprocessableEntity, "description")
		ada.Do("PATCH", path, map[string]any{"description": "ten chars!", "version": "latest"}).
			Problem(http.StatusUnprocessableEntity, "description", "version")
		ada.Do("PATCH", path, map[string]any{"invocation": nil}).Problem(http.StatusUnprocessableEntity, "invocation")
		unchanged := ada.Do("GET", path, nil).Status(http.StatusOK)
		require.JSONEq(t, string(before.Raw), string(unchanged.Raw))

		// A valid change is saved and the card stays published.
		desc := cardDesc("A better description.")
		r = ada.Do("PATCH", path, map[string]any{"description": desc, "version": "1.0.1"}).Status(http.StatusOK)
		require.Equal(t, "published", r.Get("status"))
		require.Equal(t, desc, r.Get("description"))
		require.Equal(t, publishedAt, timeAt(t, r, "published_at"))
		require.Equal(t, exchangeURL, r.Get("exchange_url"))

		// Skills: the last one cannot go, an invalid one cannot come.
		ada.Do("DELETE", path+"/skills/get_forecast", nil).Problem(http.StatusUnprocessableEntity, "skills")
		ada.Do("POST", path+"/skills", map[string]any{"name": "tiny", "description": "short"}).
			Problem(http.StatusUnprocessableEntity, "skills[1].description")
		ada.Do("PATCH", path+"/skills/get_forecast", map[string]any{"description": "short"}).
			Problem(http.StatusUnprocessableEntity, "skills[0].description")
		require.Equal(t, []string{"get_forecast"}, names(t, ada.Do("GET", path+"/skills", nil).Status(http.StatusOK), "items"))

		r = ada.Do("POST", path+"/unpublish", nil).Status(http.StatusOK)
		require.Equal(t, "draft", r.Get("status"))
		require.Nil(t, r.Get("published_at"))
		require.Nil(t, r.Get("exchange_url"))
		got := ada.Do("GET", path, nil).Status(http.StatusOK)
		require.Equal(t, "draft", got.Get("status"))
		require.Nil(t, got.Get("published_at"))

		// A draft may be incomplete again.
		ada.Do("DELETE", path+"/skills/get_forecast", nil).Status(http.StatusNoContent)
		ada.Do("PATCH", path, map[string]any{"description": "ten chars!"}).Status(http.StatusOK)
		ada.Do("POST", path+"/publish", nil).Problem(http.StatusUnprocessableEntity, "description", "skills")
		ada.Do("POST", path+"/unpublish", nil).Status(http.StatusOK)
		ada.Do("POST", cardsPath+"/"+missingID+"/publish", nil).Problem(http.StatusNotFound)
	})
}

func TestAgentCardVersionWarnings(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Versioners")

	base := func(name string) map[string]any {
		return map[string]any{
			"name": name, "version": "1.2.0", "description": cardDesc("Versioned."),
			"skills":     []any{validSkill("a_skill"), validSkill("b_skill")},
			"invocation": map[string]any{"protocol": "mcp", "endpoint": testEndpoint},
			"examples": []any{
				map[string]any{"skill": "a_skill", "input": map[string]any{"q": 1}, "output": map[string]any{"r": 1}},
				map[string]any{"skill": "b_skill", "input": map[string]any{"q": 2}, "output": map[string]any{"r": 2}},
			},
		}
	}
	onlyA := []any{validSkill("a_skill")}

	for i, tc := range []struct {
		name  string
		patch map[string]any
		want  [][]string // each a set of words one warning must contain; none: no warnings
	}{
		{"skill removed on a minor increase", map[string]any{"version": "1.3.0", "skills": onlyA},
			[][]string{{"b_skill", "2.0.0"}}},
		{"skill removed without a version change", map[string]any{"skills": onlyA},
			[][]string{{"b_skill"}}},
		{"endpoint changed on a patch increase", map[string]any{"version": "1.3.1",
			"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/v2/mcp"}},
			[][]string{{"endpoint", "https://agents.example.com/v2/mcp"}}},
		{"skill added without a minor increase", map[string]any{"skills": []any{validSkill("a_skill"), validSkill("b_skill"), validSkill("c_skill")}},
			[][]string{{"c_skill", "1.3.0"}}},
		{"skills removed on a major increase", map[string]any{"version": "2.0.0", "skills": onlyA}, nil},
		{"endpoint changed on a major increase", map[string]any{"version": "2.0.0",
			"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/v2/mcp"}}, nil},
		{"skill added on a minor increase", map[string]any{"version": "1.3.0",
			"skills": []any{validSkill("a_skill"), validSkill("b_skill"), validSkill("c_skill")}}, nil},
		{"description only", map[string]any{"description": cardDesc("Only the description changed.")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			id := mkCard(t, ada, base(fmt.Sprintf("versioned-%d", i)))
			r := ada.Do("PATCH", cardsPath+"/"+id, tc.patch).Status(http.StatusOK)
			warnings := strs(t, r, "warnings")
			if len(tc.want) == 0 {
				require.Empty(t, warnings)
			} else {
				require.Len(t, warnings, len(tc.want), "%q", warnings)
				for _, words := range tc.want {
					requireMention(t, warnings, words...)
				}
			}
			got := ada.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK)
			require.Equal(t, 0, got.Len("warnings"), "warnings are about the change just made")
		})
	}

	t.Run("renaming a skill warns and takes its examples along", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, base("renamed"))
		r := ada.Do("PATCH", cardsPath+"/"+id+"/skills/a_skill", map[string]any{"name": "first_skill"}).Status(http.StatusOK)
		require.Equal(t, "first_skill", r.Get("name"))
		require.Equal(t, skillDesc("Skill a_skill"), r.Get("description"), "unchanged fields are kept")
		warnings := strs(t, r, "warnings")
		require.Len(t, warnings, 1, "%q", warnings)
		requireMention(t, warnings, "a_skill", "first_skill", "renamed")

		got := ada.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK)
		require.Equal(t, []string{"first_skill", "b_skill"}, names(t, got, "skills"))
		require.Equal(t, "first_skill", got.Get("examples.0.skill"))
		require.Equal(t, "b_skill", got.Get("examples.1.skill"))
		require.Equal(t, true, got.Get("validation.valid"), "body: %s", got.Raw)
		ada.Do("GET", cardsPath+"/"+id+"/skills/a_skill", nil).Problem(http.StatusNotFound)

		// The advice compares with the version as stored: once 2.0.0 is
		// saved, a later rename within 2.x is breaking again.
		r = ada.Do("PATCH", cardsPath+"/"+id, map[string]any{"version": "2.0.0"}).Status(http.StatusOK)
		require.Equal(t, 0, r.Len("warnings"))
		r = ada.Do("PATCH", cardsPath+"/"+id+"/skills/b_skill", map[string]any{"name": "second_skill"}).Status(http.StatusOK)
		requireMention(t, strs(t, r, "warnings"), "b_skill", "second_skill", "3.0.0")
	})
}

func TestAgentCardSkills(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Skill Makers")
	server := mkServer(t, ada, "Skill Server")
	mkChild(t, ada, server, "tools", map[string]any{
		"name": "echo", "mock_scenarios": []any{scenario("always", nil, map[string]any{"echoed": true})},
	})
	id := mkCard(t, ada, with(validCard("skilled-agent"),
		"skills", []any{validSkill("a_skill"), validSkill("b_skill")},
		"examples", []any{
			map[string]any{"skill": "a_skill", "input": map[string]any{}, "output": map[string]any{}},
			map[string]any{"skill": "b_skill", "input": map[string]any{}, "output": map[string]any{}},
		}))
	skills := cardsPath + "/" + id + "/skills"

	t.Run("list", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("GET", skills, nil).Status(http.StatusOK)
		require.Equal(t, []string{"a_skill", "b_skill"}, names(t, r, "items"))
		require.Equal(t, skillDesc("Skill a_skill"), r.Get("items.0.description"))
		ada.Do("GET", cardsPath+"/"+missingID+"/skills", nil).Problem(http.StatusNotFound)
	})

	t.Run("add", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", skills, map[string]any{
			"name": "c_skill", "description": skillDesc("Third"), "returns": "a forecast",
			"parameters": map[string]any{"city": map[string]any{"type": "string"}},
			"examples":   []any{"Forecast for Paris", map[string]any{"city": "Paris"}},
		}).Status(http.StatusCreated)
		require.Equal(t, "c_skill", r.Get("name"))
		require.Equal(t, "a forecast", r.Get("returns"))
		require.JSONEq(t, `{"city":{"type":"string"}}`, jsonAt(t, r, "parameters"))
		require.JSONEq(t, `["Forecast for Paris",{"city":"Paris"}]`, jsonAt(t, r, "examples"))
		requireMention(t, strs(t, r, "warnings"), "c_skill", "1.1.0")

		ada.Do("POST", skills, map[string]any{"name": "c_skill", "description": skillDesc("Again")}).Problem(http.StatusConflict)
		ada.Do("POST", skills, map[string]any{"name": "BadName"}).Problem(http.StatusUnprocessableEntity, "skills[3].name")
		ada.Do("POST", skills, map[string]any{"description": "no name"}).Problem(http.StatusUnprocessableEntity)
		require.Equal(t, []string{"a_skill", "b_skill", "c_skill"}, names(t, ada.Do("GET", skills, nil).Status(http.StatusOK), "items"))
	})

	t.Run("get", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("GET", skills+"/b_skill", nil).Status(http.StatusOK)
		require.Equal(t, "b_skill", r.Get("name"))
		require.Equal(t, skillDesc("Skill b_skill"), r.Get("description"))
		require.NotContains(t, r.JSON, "warnings")
		ada.Do("GET", skills+"/no_skill", nil).Problem(http.StatusNotFound)
	})

	t.Run("patch", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", skills+"/b_skill", map[string]any{
			"description": skillDesc("Changed"), "returns": "text", "mcp_server": "Skill Server", "mcp_tool": "echo",
		}).Status(http.StatusOK)
		require.Equal(t, skillDesc("Changed"), r.Get("description"))
		require.Equal(t, "text", r.Get("returns"))
		require.Equal(t, "Skill Server", r.Get("mcp_server"))
		require.Equal(t, 0, r.Len("warnings"))

		r = ada.Do("PATCH", skills+"/b_skill", map[string]any{"returns": nil}).Status(http.StatusOK)
		require.NotContains(t, r.JSON, "returns", "null clears")
		require.Equal(t, "echo", r.Get("mcp_tool"), "absent fields are kept")
		got := ada.Do("GET", skills+"/b_skill", nil).Status(http.StatusOK)
		require.Nil(t, got.Get("returns"))
		require.Equal(t, skillDesc("Changed"), got.Get("description"))

		ada.Do("PATCH", skills+"/b_skill", map[string]any{"name": "a_skill"}).Problem(http.StatusConflict)
		ada.Do("PATCH", skills+"/b_skill", map[string]any{"name": "Bad Name"}).Problem(http.StatusUnprocessableEntity, "skills[1].name")
		ada.Do("PATCH", skills+"/no_skill", map[string]any{"description": "x"}).Problem(http.StatusNotFound)
		ada.Do("PATCH", skills+"/b_skill", map[string]any{"colour": "red"}).Problem(http.StatusUnprocessableEntity, "colour")
	})

	t.Run("invoke", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", skills+"/b_skill/invoke", map[string]any{"input": map[string]any{}}).Status(http.StatusOK)
		require.JSONEq(t, `{"echoed":true}`, jsonAt(t, r, "output"))
		require.Equal(t, "always", r.Get("matched_scenario"))
		require.Equal(t, server, r.Get("server_id"))
		require.Equal(t, "echo", r.Get("tool"))
		ada.Do("POST", skills+"/no_skill/invoke", nil).Problem(http.StatusNotFound)
		ada.Do("POST", skills+"/a_skill/invoke", nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_tool")
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("DELETE", skills+"/a_skill", nil).Status(http.StatusNoContent)
		ada.Do("GET", skills+"/a_skill", nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", skills+"/a_skill", nil).Problem(http.StatusNotFound)
		got := ada.Do("GET", cardsPath+"/"+id, nil).Status(http.StatusOK)
		require.Equal(t, []string{"b_skill", "c_skill"}, names(t, got, "skills"))
		require.Equal(t, 1, got.Len("examples"), "the skill's examples went with it")
		require.Equal(t, "b_skill", got.Get("examples.0.skill"))
	})

	t.Run("concurrent adds all land", func(t *testing.T) {
		// Plain goroutines, not parallel subtests: -parallel may be as low
		// as the number of CPUs, and the adds must really overlap.
		const n = 12
		_, raw := mkKey(t, ada.For(t), map[string]any{"name": "concurrent"})
		codes := make([]int, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body, _ := json.Marshal(validSkill(fmt.Sprintf("parallel_%d", i)))
				req, err := http.NewRequest("POST", env.URL+skills, bytes.NewReader(body))
				if err != nil {
					errs[i] = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-Key", raw)
				<-start
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs[i] = err
					return
				}
				_ = resp.Body.Close()
				codes[i] = resp.StatusCode
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, http.StatusCreated, codes[i], "add %d", i)
		}
		got := names(t, ada.For(t).Do("GET", skills, nil).Status(http.StatusOK), "items")
		require.Len(t, got, 2+n, "no add was lost: %q", got)
		for i := range n {
			require.Contains(t, got, fmt.Sprintf("parallel_%d", i))
		}
	})
}

func TestAgentCardSkillInvocation(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Invokers", "Intruders")
	const serverName = "Weather Station Alpha"
	server := mkServer(t, ada, serverName)
	mkChild(t, ada, server, "tools", map[string]any{
		"name": "get_weather", "description": "Current weather",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []any{"city"}},
		"mock_scenarios": []any{
			scenario("paris", map[string]any{"city": "Paris"}, map[string]any{"temp": 18}),
			scenario("fallback", map[string]any{}, map[string]any{"temp": 0}),
		},
	})
	linked := func(name string, mcpServer, mcpTool any) map[string]any {
		sk := validSkill("weather")
		if mcpServer != nil {
			sk["mcp_server"] = mcpServer
		}
		if mcpTool != nil {
			sk["mcp_tool"] = mcpTool
		}
		return with(validCard(name), "skills", []any{sk})
	}
	byID := mkCard(t, ada, linked("by-id", server, "get_weather"))
	byName := mkCard(t, ada, linked("by-name", serverName, "get_weather"))
	invoke := func(card string) string { return cardsPath + "/" + card + "/skills/weather/invoke" }

	t.Run("linked cards are valid", func(t *testing.T) {
		ada := ada.For(t)
		for _, id := range []string{byID, byName} {
			v := ada.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
			require.JSONEq(t, `{"valid":true,"errors":[]}`, string(v.Raw))
		}
	})

	for _, tc := range []struct {
		name     string
		body     any
		output   string
		scenario string
		fields   []string // a 422 naming these
	}{
		{"matching scenario", map[string]any{"input": map[string]any{"city": "Paris"}}, `{"temp":18}`, "paris", nil},
		{"fallback", map[string]any{"input": map[string]any{"city": "Oslo"}}, `{"temp":0}`, "fallback", nil},
		{"missing required field", map[string]any{"input": map[string]any{}}, "", "", []string{"input.city"}},
		{"no input", map[string]any{}, "", "", []string{"input.city"}},
		{"no body", nil, "", "", []string{"input.city"}},
		{"wrong type", map[string]any{"input": map[string]any{"city": 5}}, "", "", []string{"input.city"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			for _, card := range []string{byID, byName} {
				r := ada.Do("POST", invoke(card), tc.body)
				if tc.fields != nil {
					r.Problem(http.StatusUnprocessableEntity, tc.fields...)
					require.Contains(t, r.String("detail"), "get_weather")
					continue
				}
				r.Status(http.StatusOK)
				require.JSONEq(t, tc.output, jsonAt(t, r, "output"))
				require.Equal(t, tc.scenario, r.Get("matched_scenario"))
				require.Equal(t, server, r.Get("server_id"))
				require.Equal(t, "get_weather", r.Get("tool"))
			}
		})
	}

	t.Run("a skill without a link cannot be invoked", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, linked("unlinked", nil, nil))
		ada.Do("POST", invoke(id), map[string]any{"input": map[string]any{"city": "Paris"}}).
			Problem(http.StatusUnprocessableEntity, "skills[0].mcp_tool")
		half := mkCard(t, ada, linked("half-linked", server, nil))
		ada.Do("POST", invoke(half), nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_tool")
		v := ada.Do("POST", cardsPath+"/"+half+"/validate", nil).Status(http.StatusOK)
		require.Equal(t, []string{"skills[0].mcp_tool"}, errorFields(t, v, "errors"))
	})

	t.Run("a skill linked to an unknown tool", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, linked("unknown-tool", server, "get_tides"))
		v := ada.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
		require.Equal(t, []string{"skills[0].mcp_tool"}, errorFields(t, v, "errors"))
		ada.Do("POST", invoke(id), map[string]any{"input": map[string]any{"city": "Paris"}}).
			Problem(http.StatusUnprocessableEntity, "skills[0].mcp_tool")
		ada.Do("POST", cardsPath+"/"+id+"/publish", nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_tool")
	})

	t.Run("a skill linked to an unknown server", func(t *testing.T) {
		ada := ada.For(t)
		id := mkCard(t, ada, linked("unknown-server", "No Such Server", "get_weather"))
		v := ada.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
		require.Equal(t, []string{"skills[0].mcp_server"}, errorFields(t, v, "errors"))
		ada.Do("POST", invoke(id), nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_server")
	})

	t.Run("a name several servers share links none of them", func(t *testing.T) {
		ada := ada.For(t)
		var twins []string
		for range 2 {
			id := mkServer(t, ada, "Twin")
			mkChild(t, ada, id, "tools", map[string]any{"name": "get_weather",
				"mock_scenarios": []any{scenario("twin", nil, map[string]any{"twin": true})}})
			twins = append(twins, id)
		}
		id := mkCard(t, ada, linked("twin-by-name", "Twin", "get_weather"))
		v := ada.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
		require.Equal(t, []string{"skills[0].mcp_server"}, errorFields(t, v, "errors"))
		require.Contains(t, v.String("errors.0.message"), "use the server id")
		ada.Do("POST", invoke(id), nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_server")

		byTwinID := mkCard(t, ada, linked("twin-by-id", twins[1], "get_weather"))
		r := ada.Do("POST", invoke(byTwinID), nil).Status(http.StatusOK)
		require.Equal(t, twins[1], r.Get("server_id"))
		require.JSONEq(t, `{"twin":true}`, jsonAt(t, r, "output"))
	})

	t.Run("another organization's server is not linked", func(t *testing.T) {
		bob := bob.For(t)
		for i, ref := range []string{server, serverName} {
			r := bob.Do("POST", cardsPath, linked(fmt.Sprintf("foreign-link-%d", i), ref, "get_weather")).Status(http.StatusCreated)
			require.Equal(t, []string{"skills[0].mcp_server"}, errorFields(t, r, "validation.errors"))
			id := r.String("id")
			v := bob.Do("POST", cardsPath+"/"+id+"/validate", nil).Status(http.StatusOK)
			require.Equal(t, []string{"skills[0].mcp_server"}, errorFields(t, v, "errors"))
			inv := bob.Do("POST", invoke(id), map[string]any{"input": map[string]any{"city": "Paris"}}).
				Problem(http.StatusUnprocessableEntity, "skills[0].mcp_server")
			pub := bob.Do("POST", cardsPath+"/"+id+"/publish", nil).Problem(http.StatusUnprocessableEntity, "skills[0].mcp_server")
			for what, raw := range map[string][]byte{"create": r.Raw, "validate": v.Raw, "invoke": inv.Raw, "publish": pub.Raw} {
				if ref == server {
					require.NotContains(t, string(raw), serverName, "%s leaks the server's name", what)
				}
				require.NotContains(t, string(raw), "get_weather'", "%s describes the tool", what)
				require.NotContains(t, string(raw), "temp", "%s leaks the tool's answer", what)
			}
		}
	})

	t.Run("the same answer as the server's MCP endpoint", func(t *testing.T) {
		ada := ada.For(t)
		// A second tool without a fallback, for the no-match answer.
		mkChild(t, ada, server, "tools", map[string]any{"name": "get_wind",
			"mock_scenarios": []any{scenario("calm paris", map[string]any{"city": "Paris"}, map[string]any{"wind": 3})}})
		wind := mkCard(t, ada, with(validCard("wind-agent"), "skills", []any{
			with(validSkill("weather"), "mcp_server", server, "mcp_tool", "get_wind")}))
		ada.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
		mcp := env.Anonymous(t)
		mcp.Header.Set("Accept", "application/json")
		for i, tc := range []struct {
			tool, card, city string
			scenario         any
		}{
			{"get_weather", byID, "Paris", "paris"},
			{"get_weather", byID, "Oslo", "fallback"},
			{"get_wind", wind, "Paris", "calm paris"},
			{"get_wind", wind, "Oslo", nil},
		} {
			r := mcp.Do("POST", "/api/platform/"+server+"/mcp", map[string]any{
				"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
				"params": map[string]any{"name": tc.tool, "arguments": map[string]any{"city": tc.city}},
			}).Status(http.StatusOK)
			require.Nil(t, r.Get("error"), "body: %s", r.Raw)
			require.Equal(t, "text", r.Get("result.content.0.type"), "body: %s", r.Raw)
			text := r.String("result.content.0.text")
			inv := ada.Do("POST", invoke(tc.card), map[string]any{"input": map[string]any{"city": tc.city}}).Status(http.StatusOK)
			require.JSONEq(t, text, jsonAt(t, inv, "output"), "%s %s", tc.tool, tc.city)
			require.Equal(t, tc.scenario, inv.Get("matched_scenario"))
			require.Contains(t, inv.JSON, "matched_scenario")
		}
	})
}

// exchangeNames lists the card names of one exchange page.
func exchangeNames(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	return names(t, r, "items")
}

func TestExchangeShowsOnlyPublishedCards(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Exchange Alpha", "Exchange Beta")
	anon := env.Anonymous(t)
	aSlug, bSlug := orgSlug(t, a), orgSlug(t, b)

	aCard := mkCard(t, a, validCard("alpha-agent"))
	mkCard(t, b, validCard("beta-draft"))
	aPage := exchangePath + "/" + aSlug + "/alpha-agent"
	bPage := exchangePath + "/" + bSlug + "/beta-draft"

	hidden := func(t *testing.T, stage string) {
		t.Helper()
		anon := anon.For(t)
		list := anon.Do("GET", exchangePath+"?limit=100", nil).Status(http.StatusOK)
		require.NotContains(t, exchangeNames(t, list), "alpha-agent", stage)
		require.NotContains(t, exchangeNames(t, list), "beta-draft", stage)
		for _, p := range []string{aPage, aPage + a2aSuffix, bPage, bPage + a2aSuffix} {
			r := anon.Do("GET", p, nil).Problem(http.StatusNotFound)
			require.NotContains(t, string(r.Raw), "An agent named", "%s: %s", stage, p)
		}
		// The mock agent of a card that is not published is not there either.
		for _, p := range []string{aPage + "/a2a", bPage + "/a2a"} {
			status, raw := sendAgentMessage(t, env.URL+p, "hello")
			require.Equal(t, http.StatusNotFound, status, "%s: %s: %s", stage, p, raw)
			require.NotContains(t, string(raw), "An agent named", "%s: %s", stage, p)
		}
	}
	shown := func(t *testing.T) {
		t.Helper()
		anon := anon.For(t)
		list := anon.Do("GET", exchangePath+"?limit=100", nil).Status(http.StatusOK)
		require.Equal(t, []string{"alpha-agent"}, exchangeNames(t, list), "B's draft never shows")
		require.Equal(t, aSlug, list.Get("items.0.organization.slug"))
		require.Equal(t, "Exchange Alpha", list.Get("items.0.organization.name"))
		require.Equal(t, env.URL+aPage+a2aSuffix, list.Get("items.0.a2a_url"))
		require.Equal(t, "1.0.0", list.Get("items.0.version"))
		require.NotContains(t, list.JSON.(map[string]any)["items"].([]any)[0], "id", "the exchange does not show internal ids")
		require.NotContains(t, list.JSON.(map[string]any)["items"].([]any)[0], "created_by")

		one := anon.Do("GET", aPage, nil).Status(http.StatusOK)
		require.Equal(t, "alpha-agent", one.Get("name"))
		require.Equal(t, aSlug, one.Get("organization.slug"))
		require.JSONEq(t, jsonAt(t, list, "items.0"), string(one.Raw))

		a2a := anon.Do("GET", aPage+a2aSuffix, nil).Status(http.StatusOK)
		require.Equal(t, "alpha-agent", a2a.Get("name"))
		require.Equal(t, env.URL+aPage+"/a2a", a2a.Get("supportedInterfaces.0.url"))
		require.Equal(t, env.URL+aPage+"/a2a/rest", a2a.Get("supportedInterfaces.1.url"))
		require.Equal(t, testEndpoint, a2a.Get("supportedInterfaces.2.url"))

		// Its mock agent answers anyone, naming the skill.
		status, raw := sendAgentMessage(t, env.URL+aPage+"/a2a", "what is the forecast?")
		require.Equal(t, http.StatusOK, status, "%s", raw)
		var v struct {
			Result struct {
				Message struct {
					Role  string `json:"role"`
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
					Metadata map[string]any `json:"metadata"`
				} `json:"message"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
		require.Equal(t, "ROLE_AGENT", v.Result.Message.Role)
		require.Equal(t, map[string]any{"skill": "get_forecast"}, v.Result.Message.Metadata)
		require.Len(t, v.Result.Message.Parts, 1)
		require.Contains(t, v.Result.Message.Parts[0].Text, `skill "get_forecast"`)

		// Only under its own organization's slug.
		status, _ = sendAgentMessage(t, env.URL+exchangePath+"/"+bSlug+"/alpha-agent/a2a", "hello")
		require.Equal(t, http.StatusNotFound, status)
		anon.Do("GET", exchangePath+"/"+bSlug+"/alpha-agent", nil).Problem(http.StatusNotFound)
		anon.Do("GET", bPage, nil).Problem(http.StatusNotFound)
		anon.Do("GET", bPage+a2aSuffix, nil).Problem(http.StatusNotFound)
	}

	t.Run("draft", func(t *testing.T) { hidden(t, "draft") })

	t.Run("published", func(t *testing.T) {
		a.For(t).Do("POST", cardsPath+"/"+aCard+"/publish", nil).Status(http.StatusOK)
		shown(t)
		// A signed-in caller of another organization sees the same.
		r := b.For(t).Do("GET", exchangePath, nil).Status(http.StatusOK)
		require.Equal(t, []string{"alpha-agent"}, exchangeNames(t, r))
	})

	t.Run("edits show at once", func(t *testing.T) {
		desc := cardDesc("Edited while published.")
		a.For(t).Do("PATCH", cardsPath+"/"+aCard, map[string]any{"description": desc}).Status(http.StatusOK)
		require.Equal(t, desc, anon.For(t).Do("GET", aPage, nil).Status(http.StatusOK).Get("description"))
	})

	t.Run("unpublished", func(t *testing.T) {
		a.For(t).Do("POST", cardsPath+"/"+aCard+"/unpublish", nil).Status(http.StatusOK)
		hidden(t, "unpublished")
	})

	t.Run("deleted while published", func(t *testing.T) {
		a := a.For(t)
		a.Do("POST", cardsPath+"/"+aCard+"/publish", nil).Status(http.StatusOK)
		anon.For(t).Do("GET", aPage, nil).Status(http.StatusOK)
		a.Do("DELETE", cardsPath+"/"+aCard, nil).Status(http.StatusNoContent)
		hidden(t, "deleted")
	})
}

// sendAgentMessage sends text to the mock A2A agent at url with SendMessage
// (A2A 1.0) and returns the status and the body.
func sendAgentMessage(t *testing.T, url, text string) (int, []byte) {
	t.Helper()
	body := apitest.JSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
		"params": map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": text}}}}})
	return apitest.PostJSONRPCWith(t, url, http.Header{"A2a-Version": {"1.0"}}, bytes.NewReader(body))
}

func TestExchangeSearch(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Search Alpha", "Search Beta")
	anon := env.Anonymous(t)

	card := func(name, topic string, tags, categories []any, skill string) map[string]any {
		return with(validCard(name), "description", cardDesc(topic),
			"skills", []any{validSkill(skill)},
			"metadata", map[string]any{"tags": tags, "categories": categories})
	}
	// Created in one order and published in the other, so that the
	// exchange's order (newest publication first: tides, translate,
	// forecast) is not the order of creation.
	tides := mkCard(t, b, card("tides-agent", "Lunar tide tables for sample harbours.", []any{"ocean", "shared"}, []any{"data"}, "get_tides"))
	translate := mkCard(t, a, card("translate-agent", "Translates sample sentences between languages.", []any{"language", "shared"}, []any{"nlp"}, "translate_text"))
	forecast := mkCard(t, a, card("forecast-agent", "Meteorological outlooks for sample cities.", []any{"forecast", "meteo"}, []any{"data"}, "get_forecast"))
	a.Do("POST", cardsPath+"/"+forecast+"/publish", nil).Status(http.StatusOK)
	a.Do("POST", cardsPath+"/"+translate+"/publish", nil).Status(http.StatusOK)
	b.Do("POST", cardsPath+"/"+tides+"/publish", nil).Status(http.StatusOK)
	// Drafts that would match every filter never show.
	mkCard(t, a, card("draft-agent", "Meteorological lunar sample draft.", []any{"forecast", "shared", "ocean"}, []any{"data", "nlp"}, "get_forecast"))
	mkCard(t, b, card("draft-beta", "Meteorological lunar sample draft.", []any{"forecast", "shared"}, []any{"data"}, "translate_text"))

	for _, tc := range []struct {
		name  string
		query string
		want  []string
	}{
		{"everything", "", []string{"tides-agent", "translate-agent", "forecast-agent"}},
		{"text, case-insensitive", "q=METEOROLOGICAL", []string{"forecast-agent"}},
		{"text in lower case", "q=lunar+tide", []string{"tides-agent"}},
		{"text in every description", "q=Sample", []string{"tides-agent", "translate-agent", "forecast-agent"}},
		{"text in a name", "q=TRANSLATE-agent", []string{"translate-agent"}},
		{"text in a skill name", "q=get_tides", []string{"tides-agent"}},
		{"text nowhere", "q=volcano", []string{}},
		{"percent is literal", "q=%25", []string{}},
		{"underscore is literal", "q=_", []string{"tides-agent", "translate-agent", "forecast-agent"}},
		{"underscore and percent are literal", "q=get%25tides", []string{}},
		{"tag", "tag=forecast", []string{"forecast-agent"}},
		{"tag of two cards", "tag=shared", []string{"tides-agent", "translate-agent"}},
		{"tag is exact", "tag=Forecast", []string{}},
		{"tag is not a prefix", "tag=fore", []string{}},
		{"category", "category=nlp", []string{"translate-agent"}},
		{"category of two organizations", "category=data", []string{"tides-agent", "forecast-agent"}},
		{"skill", "skill=translate_text", []string{"translate-agent"}},
		{"skill is exact", "skill=translate", []string{}},
		{"filters combine", "tag=shared&category=data", []string{"tides-agent"}},
		{"text and skill", "q=sample&skill=get_forecast", []string{"forecast-agent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := anon.For(t).Do("GET", exchangePath+"?"+tc.query, nil).Status(http.StatusOK)
			require.Equal(t, tc.want, exchangeNames(t, r))
			require.Nil(t, r.Get("next_cursor"))
		})
	}

	t.Run("pagination walks every result once", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"limit=1", []string{"tides-agent", "translate-agent", "forecast-agent"}},
			{"limit=2", []string{"tides-agent", "translate-agent", "forecast-agent"}},
			{"limit=1&tag=shared", []string{"tides-agent", "translate-agent"}},
			{"limit=1&q=sample&category=data", []string{"tides-agent", "forecast-agent"}},
		} {
			t.Run(tc.query, func(t *testing.T) {
				anon := anon.For(t)
				var got []string
				next := ""
				for pages := 0; ; pages++ {
					require.Less(t, pages, 10, "the walk does not end")
					q := exchangePath + "?" + tc.query
					if next != "" {
						q += "&cursor=" + url.QueryEscape(next)
					}
					r := anon.Do("GET", q, nil).Status(http.StatusOK)
					got = append(got, exchangeNames(t, r)...)
					if r.Get("next_cursor") == nil {
						break
					}
					next = r.String("next_cursor")
				}
				require.Equal(t, tc.want, got)
			})
		}
	})

	t.Run("bad parameters", func(t *testing.T) {
		anon := anon.For(t)
		anon.Do("GET", exchangePath+"?cursor=bogus", nil).Problem(http.StatusBadRequest, "cursor")
		anon.Do("GET", exchangePath+"?limit=0", nil).Problem(http.StatusBadRequest, "limit")
		anon.Do("GET", exchangePath+"?limit=101", nil).Problem(http.StatusBadRequest, "limit")
	})
}

func TestExchangeA2ARendering(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Travel Makers")
	slug := orgSlug(t, ada)

	body := map[string]any{
		"name": "travel-agent", "version": "1.4.0", "description": cardDesc("Plans trips."),
		"author": "Ada", "license": "MIT",
		"skills": []any{
			with(validSkill("search_flights"), "examples", []any{"Flights from Oslo", map[string]any{"from": "OSL"}}),
			validSkill("book_hotel"),
		},
		"capabilities": map[string]any{
			"languages": []any{"en", "fr"}, "domains": []any{"travel"}, "input_modes": []any{"text", "image"},
			"output_modes": []any{"text", "json"}, "streaming": true, "async": false, "rate_limit": "100/min",
		},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": testEndpoint,
			"authentication": map[string]any{"type": "bearer", "required": true}},
		"metadata": map[string]any{"tags": []any{"travel", "booking"}, "categories": []any{"planning"},
			"created_at": "2024-05-01", "updated_at": "2024-05-02T10:00:00Z"},
		"examples": []any{
			map[string]any{"skill": "search_flights", "description": "Find flights to Paris",
				"input": map[string]any{"to": "Paris"}, "output": map[string]any{"flights": []any{}}},
			map[string]any{"skill": "book_hotel", "input": map[string]any{"city": "Rome"}, "output": map[string]any{"booked": true}},
		},
	}
	id := mkCard(t, ada, body)
	pub := ada.Do("POST", cardsPath+"/"+id+"/publish", nil).Status(http.StatusOK)

	r := env.Anonymous(t).Do("GET", exchangePath+"/"+slug+"/travel-agent"+a2aSuffix, nil).Status(http.StatusOK)
	require.Contains(t, r.Hdr.Get("Content-Type"), "application/json")

	raw, err := os.ReadFile("../agentcard/testdata/a2a-agent-card-1.0.schema.json")
	require.NoError(t, err)
	s, err := schema.Compile(raw)
	require.NoError(t, err)
	// Validate takes a value decoded by encoding/json, numbers as float64 or
	// json.Number; both forms must pass.
	dec := json.NewDecoder(bytes.NewReader(r.Raw))
	dec.UseNumber()
	var exact any
	require.NoError(t, dec.Decode(&exact))
	require.Empty(t, s.Validate(exact), "body: %s", r.Raw)
	require.Empty(t, s.Validate(r.JSON), "body: %s", r.Raw)

	// The schema can fail: a rendering without its interfaces does not pass.
	broken := map[string]any{}
	for k, v := range r.JSON.(map[string]any) {
		broken[k] = v
	}
	delete(broken, "supportedInterfaces")
	broken["url"] = testEndpoint
	require.NotEmpty(t, s.Validate(broken))

	require.Equal(t, "travel-agent", r.Get("name"))
	require.Equal(t, "1.4.0", r.Get("version"))
	require.Equal(t, cardDesc("Plans trips."), r.Get("description"))
	// The card's mock agent first, in both bindings; its MCP endpoint, which
	// is not A2A, after.
	require.Equal(t, 3, r.Len("supportedInterfaces"))
	require.Equal(t, env.URL+exchangePath+"/"+slug+"/travel-agent/a2a", r.Get("supportedInterfaces.0.url"))
	require.Equal(t, "JSONRPC", r.Get("supportedInterfaces.0.protocolBinding"))
	require.Equal(t, "1.0", r.Get("supportedInterfaces.0.protocolVersion"))
	require.Equal(t, env.URL+exchangePath+"/"+slug+"/travel-agent/a2a/rest", r.Get("supportedInterfaces.1.url"))
	require.Equal(t, "HTTP+JSON", r.Get("supportedInterfaces.1.protocolBinding"))
	require.Equal(t, "1.0", r.Get("supportedInterfaces.1.protocolVersion"))
	require.Equal(t, testEndpoint, r.Get("supportedInterfaces.2.url"))
	require.Equal(t, "MCP", r.Get("supportedInterfaces.2.protocolBinding"))
	require.Equal(t, "1.0", r.Get("supportedInterfaces.2.protocolVersion"))
	require.Equal(t, "Travel Makers", r.Get("provider.organization"))
	require.Equal(t, pub.String("exchange_url"), r.Get("provider.url"), "without homepage or repository, the exchange page")
	require.NotContains(t, r.JSON, "documentationUrl")
	require.Equal(t, []string{"search_flights", "book_hotel"}, rtStrings(t, r, "skills", "id"))
	require.Equal(t, []string{"search_flights", "book_hotel"}, names(t, r, "skills"))
	require.Equal(t, []string{"travel", "booking", "planning"}, strs(t, r, "skills.0.tags"))
	require.Equal(t, []string{"Find flights to Paris", "Flights from Oslo", `{"from":"OSL"}`}, strs(t, r, "skills.0.examples"))
	require.Equal(t, []string{`{"city":"Rome"}`}, strs(t, r, "skills.1.examples"))
	require.Equal(t, []string{"text/plain", "image/*"}, strs(t, r, "defaultInputModes"))
	require.Equal(t, []string{"text/plain", "application/json"}, strs(t, r, "defaultOutputModes"))
	require.Equal(t, true, r.Get("capabilities.streaming"))
	require.Equal(t, false, r.Get("capabilities.pushNotifications"))
	require.Equal(t, "urn:mockmcp:agent-card:capabilities", r.Get("capabilities.extensions.0.uri"))
	require.JSONEq(t, `{"languages":["en","fr"],"domains":["travel"],"rate_limit":"100/min"}`, jsonAt(t, r, "capabilities.extensions.0.params"))
	require.Equal(t, "Bearer", r.Get("securitySchemes.bearer.httpAuthSecurityScheme.scheme"))
	require.JSONEq(t, `[{"schemes":{"bearer":{"list":[]}}}]`, jsonAt(t, r, "securityRequirements"))
	for _, gone := range []string{"url", "preferredTransport", "protocolVersion", "additionalInterfaces", "security", "signatures"} {
		require.NotContains(t, r.JSON, gone)
	}
}

func TestAgentCardAPIKeys(t *testing.T) {
	t.Parallel()
	env, owner := apitest.SignedUp(t, "Keyed Cards")
	server := mkServer(t, owner, "bound")
	_, fullRaw := mkKey(t, owner, map[string]any{"name": "full"})
	_, policyRaw := mkKey(t, owner, map[string]any{"name": "policy", "bound_server_id": server})
	existing := mkCard(t, owner, validCard("owned-by-session"))

	for _, header := range keyHeaders {
		t.Run("a full-scope key in "+header+" designs and publishes", func(t *testing.T) {
			key := withKey(t, env, header, fullRaw)
			name := "by-key-" + strings.ToLower(strings.ReplaceAll(header, "-", ""))
			r := key.Do("POST", cardsPath, validCard(name)).Status(http.StatusCreated)
			id := r.String("id")
			require.NotEmpty(t, r.String("created_by"))
			pub := key.Do("POST", cardsPath+"/"+id+"/publish", nil).Status(http.StatusOK)
			require.Equal(t, "published", pub.Get("status"))
			require.True(t, strings.HasSuffix(pub.String("exchange_url"), "/"+name))
			key.Do("GET", cardsPath+"/"+existing, nil).Status(http.StatusOK)
			key.Do("PATCH", cardsPath+"/"+id+"/skills/get_forecast", map[string]any{"returns": "text"}).Status(http.StatusOK)
			env.Anonymous(t).Do("GET", exchangePath+"/"+orgSlug(t, owner.For(t))+"/"+name, nil).Status(http.StatusOK)
		})

		t.Run("a policy-scoped key in "+header+" is refused", func(t *testing.T) {
			key := withKey(t, env, header, policyRaw)
			for _, rt := range []struct {
				method, path string
				body         any
			}{
				{"GET", cardsPath, nil},
				{"POST", cardsPath, validCard("by-policy-key")},
				{"GET", cardsPath + "/" + existing, nil},
				{"PATCH", cardsPath + "/" + existing, map[string]any{"version": "9.9.9"}},
				{"DELETE", cardsPath + "/" + existing, nil},
				{"POST", cardsPath + "/" + existing + "/validate", nil},
				{"POST", cardsPath + "/" + existing + "/publish", nil},
				{"POST", cardsPath + "/" + existing + "/unpublish", nil},
				{"POST", cardsPath + "/" + existing + "/duplicate", nil},
				{"GET", cardsPath + "/" + existing + "/skills", nil},
				{"POST", cardsPath + "/" + existing + "/skills", validSkill("x_skill")},
				{"POST", cardsPath + "/" + existing + "/skills/get_forecast/invoke", nil},
			} {
				requireDetail(t, key.For(t).Do(rt.method, rt.path, rt.body), http.StatusForbidden, msgDataPlane)
			}
			// The exchange is public: keys are ignored there.
			key.Do("GET", exchangePath, nil).Status(http.StatusOK)
			withKey(t, env, header, "mmcp_not-a-real-key").Do("GET", exchangePath, nil).Status(http.StatusOK)
		})
	}

	got := owner.For(t).Do("GET", cardsPath+"/"+existing, nil).Status(http.StatusOK)
	require.Equal(t, "draft", got.Get("status"), "the policy key changed nothing")
	require.Equal(t, "1.0.0", got.Get("version"))
	list := owner.For(t).Do("GET", cardsPath, nil).Status(http.StatusOK)
	require.NotContains(t, names(t, list, "items"), "by-policy-key")
}

func TestExchangeURLsUseBaseURL(t *testing.T) {
	t.Parallel()
	const base = "https://mock.example.com"
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.BaseURL = base }})
	ada := env.Signup(t, "Based Org")
	slug := orgSlug(t, ada)
	id := mkCard(t, ada, validCard("based-agent"))
	page := base + exchangePath + "/" + slug + "/based-agent"
	pub := ada.Do("POST", cardsPath+"/"+id+"/publish", nil).Status(http.StatusOK)
	require.Equal(t, page, pub.Get("exchange_url"))
	anon := env.Anonymous(t)
	require.Equal(t, page+a2aSuffix, anon.Do("GET", exchangePath, nil).Status(http.StatusOK).Get("items.0.a2a_url"))
	require.Equal(t, page, anon.Do("GET", exchangePath+"/"+slug+"/based-agent"+a2aSuffix, nil).Status(http.StatusOK).Get("provider.url"))

	// A homepage, then a repository, takes the exchange page's place as the provider's URL.
	ada.Do("PATCH", cardsPath+"/"+id, map[string]any{"repository": "https://git.example.com/based"}).Status(http.StatusOK)
	r := anon.Do("GET", exchangePath+"/"+slug+"/based-agent"+a2aSuffix, nil).Status(http.StatusOK)
	require.Equal(t, "https://git.example.com/based", r.Get("provider.url"))
	require.NotContains(t, r.JSON, "documentationUrl")
	ada.Do("PATCH", cardsPath+"/"+id, map[string]any{"homepage": "https://based.example.com"}).Status(http.StatusOK)
	r = anon.Do("GET", exchangePath+"/"+slug+"/based-agent"+a2aSuffix, nil).Status(http.StatusOK)
	require.Equal(t, "https://based.example.com", r.Get("provider.url"))
	require.Equal(t, "https://based.example.com", r.Get("documentationUrl"))
}

func TestExchangeRateLimit(t *testing.T) {
	t.Parallel()

	t.Run("production", func(t *testing.T) {
		t.Parallel()
		env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
			c.Env = "production"
			c.MaxPublicRateLimit = 3
		}})
		anon := env.Anonymous(t)
		for i := 1; i <= 3; i++ {
			r := anon.Do("GET", exchangePath, nil).Status(http.StatusOK)
			require.Equal(t, "3", r.Hdr.Get("X-RateLimit-Limit"), "request %d", i)
			require.Equal(t, strconv.Itoa(3-i), r.Hdr.Get("X-RateLimit-Remaining"), "request %d", i)
			require.NotEmpty(t, r.Hdr.Get("X-RateLimit-Reset"))
		}
		r := anon.Do("GET", exchangePath, nil).Problem(http.StatusTooManyRequests)
		require.Equal(t, "3", r.Hdr.Get("X-RateLimit-Limit"))
		require.Equal(t, "0", r.Hdr.Get("X-RateLimit-Remaining"))
		retry, err := strconv.Atoi(r.Hdr.Get("Retry-After"))
		require.NoError(t, err, "Retry-After %q", r.Hdr.Get("Retry-After"))
		require.GreaterOrEqual(t, retry, 1)
		require.LessOrEqual(t, retry, 60)
		// Every exchange route counts against the same limit.
		anon.Do("GET", exchangePath+"/some-org/some-card", nil).Problem(http.StatusTooManyRequests)
		anon.Do("GET", exchangePath+"/some-org/some-card"+a2aSuffix, nil).Problem(http.StatusTooManyRequests)
		// The cards' mock A2A agents too, though the REST API does not serve them.
		status, raw := sendAgentMessage(t, env.URL+exchangePath+"/some-org/some-card/a2a", "hello")
		require.Equal(t, http.StatusTooManyRequests, status, "%s", raw)
	})

	t.Run("development", func(t *testing.T) {
		t.Parallel()
		env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.MaxPublicRateLimit = 3 }})
		anon := env.Anonymous(t)
		for i := 1; i <= 5; i++ {
			r := anon.Do("GET", exchangePath, nil).Status(http.StatusOK)
			require.Empty(t, r.Hdr.Get("X-RateLimit-Limit"), "request %d", i)
			require.Empty(t, r.Hdr.Get("X-RateLimit-Remaining"), "request %d", i)
		}
	})
}

// TestAgentCardReplies: replies are saved with the card, refused on any
// save when they do not compile, and answer through the card's mock agent.
func TestAgentCardReplies(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Reply Makers")
	slug := orgSlug(t, ada)
	replies := []any{map[string]any{"name": "paris", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Paris"},
		"text": "Sunny in Paris ({{args.contextId}})."}}
	id := mkCard(t, ada, with(validCard("reply-agent"), "replies", replies))
	path := cardsPath + "/" + id
	got := ada.Do("GET", path, nil).Status(http.StatusOK)
	require.JSONEq(t, string(apitest.JSON(t, replies)), jsonAt(t, got, "replies"))

	// A draft without replies shows [], and a broken reply is refused even in a draft.
	require.Equal(t, []any{}, ada.Do("POST", cardsPath, validCard("plain-agent")).Status(http.StatusCreated).Get("replies"))
	ada.Do("PATCH", path, map[string]any{"replies": []any{map[string]any{"name": "x", "text": "{{nope}}"}}}).
		Problem(http.StatusUnprocessableEntity, "replies[0].text")
	ada.Do("POST", cardsPath, with(validCard("broken-agent"), "replies", []any{map[string]any{"name": "x", "text": "t",
		"condition": map[string]any{"field": "text", "operator": "nope", "value": 1}}})).
		Problem(http.StatusUnprocessableEntity, "replies[0].condition.operator")

	ada.Do("POST", path+"/publish", nil).Status(http.StatusOK)
	agent := env.URL + exchangePath + "/" + slug + "/reply-agent/a2a"
	body := apitest.JSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
		"params": map[string]any{"message": map[string]any{"messageId": "m1", "contextId": "trip-1", "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": "Weather in Paris?"}}}}})
	status, raw := apitest.PostJSONRPCWith(t, agent, http.Header{"A2a-Version": {"1.0"}}, bytes.NewReader(body))
	require.Equal(t, http.StatusOK, status, "%s", raw)
	var v struct {
		Result struct {
			Message struct {
				Parts    []map[string]any `json:"parts"`
				Metadata map[string]any   `json:"metadata"`
			} `json:"message"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	require.Equal(t, []map[string]any{{"text": "Sunny in Paris (trip-1)."}}, v.Result.Message.Parts)
	require.Equal(t, map[string]any{"skill": "get_forecast", "reply": "paris"}, v.Result.Message.Metadata)

	status, raw = sendAgentMessage(t, agent, "Weather in Oslo?")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(raw), `received your message.`, "no match: the default reply")
}
