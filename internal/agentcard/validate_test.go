package agentcard

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

func textPtr(s string) *string { return &s }

// validCard is a card that passes Validate, for each case to break in one
// place.
func validCard() Card {
	return Card{
		Name:        "weather-agent",
		Version:     "1.0.0",
		Description: strings.Repeat("Forecasts the weather for any city on Earth. ", 5), // 225 characters
		Skills: []Skill{{
			Name:        "get_forecast",
			Description: "Returns the forecast for a city over the next seven days.",
		}},
		Invocation: &Invocation{Protocol: "mcp", Endpoint: "https://agents.example/weather/mcp"},
	}
}

// fieldsOf returns the fields of problems, in order, checking that each has
// a message.
func fieldsOf(t *testing.T, problems []failure.FieldError) []string {
	t.Helper()
	var out []string
	for _, p := range problems {
		require.NotEmpty(t, p.Message, "field %s has no message", p.Field)
		out = append(out, p.Field)
	}
	return out
}

// weatherLinks resolves "weather" to a server with one tool, "shared" to a
// name two servers carry; "missing" resolves to nothing.
var weatherLinks = Links{
	"weather": {ID: uuid.New(), Name: "weather", Tools: map[string]bool{"forecast": true}},
	"shared":  {Name: "shared", Ambiguous: true},
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(c *Card)
		fields []string
		// message, when set, is part of the first problem's message.
		message string
	}{
		{"valid card", func(c *Card) {}, nil, ""},

		{"name with capitals and underscore", func(c *Card) { c.Name = "Weather_Agent" }, []string{"name"},
			"must match ^[a-z0-9-]+$ (lowercase letters, digits and hyphens)"},
		{"name with a space", func(c *Card) { c.Name = "weather agent" }, []string{"name"}, ""},
		{"name of 51 characters", func(c *Card) { c.Name = strings.Repeat("a", 51) }, []string{"name"},
			"must be at most 50 characters; it has 51"},
		{"name too long and badly formed", func(c *Card) { c.Name = strings.Repeat("A", 51) }, []string{"name", "name"}, ""},
		{"no name", func(c *Card) { c.Name = "" }, []string{"name"}, "is required"},

		{"no version", func(c *Card) { c.Version = "" }, []string{"version"}, "is required"},
		{"version 1.0", func(c *Card) { c.Version = "1.0" }, []string{"version"},
			"must be a semantic version X.Y.Z (a pre-release suffix such as -beta.1 is accepted)"},
		{"version v1.0.0", func(c *Card) { c.Version = "v1.0.0" }, []string{"version"}, "write 1.0.0 without the leading v"},
		{"version with a leading zero", func(c *Card) { c.Version = "01.0.0" }, []string{"version"}, ""},
		{"version with an empty pre-release", func(c *Card) { c.Version = "1.0.0-" }, []string{"version"}, ""},

		{"description of 199 characters", func(c *Card) { c.Description = strings.Repeat("d", 199) }, []string{"description"},
			"must be 200 to 2000 characters; it has 199"},
		{"description of 2001 characters", func(c *Card) { c.Description = strings.Repeat("d", 2001) }, []string{"description"},
			"it has 2001"},
		{"description of 199 code points in 398 bytes", func(c *Card) { c.Description = strings.Repeat("é", 199) }, []string{"description"},
			"it has 199"},
		{"no description", func(c *Card) { c.Description = "" }, []string{"description"}, "is required"},
		{"blank description", func(c *Card) { c.Description = strings.Repeat(" ", 300) }, []string{"description"}, "is required"},
		{"NUL in the description", func(c *Card) { c.Description = strings.Repeat("d", 250) + "\x00" }, []string{"description"}, "NUL"},

		{"no skills", func(c *Card) { c.Skills = nil }, []string{"skills"}, "at least one skill is required"},
		{"skill name in camel case", func(c *Card) { c.Skills[0].Name = "GetForecast" }, []string{"skills[0].name"}, "snake_case"},
		{"skill name with a hyphen", func(c *Card) { c.Skills[0].Name = "get-forecast" }, []string{"skills[0].name"}, ""},
		{"skill without a name", func(c *Card) { c.Skills[0].Name = "" }, []string{"skills[0].name"}, "is required"},
		{"skill description of 49 characters", func(c *Card) { c.Skills[0].Description = strings.Repeat("s", 49) },
			[]string{"skills[0].description"}, "must be at least 50 characters; it has 49"},
		{"skill without a description", func(c *Card) { c.Skills[0].Description = "" }, []string{"skills[0].description"}, "is required"},
		{"duplicate skill names", func(c *Card) {
			c.Skills = append(c.Skills, c.Skills[0], Skill{Name: "other", Description: c.Skills[0].Description}, c.Skills[0])
		}, []string{"skills[1].name", "skills[3].name"}, "duplicate skill name 'get_forecast' (also skills[0])"},
		{"parameters an array", func(c *Card) { c.Skills[0].Parameters = json.RawMessage(`[1]`) }, []string{"skills[0].parameters"},
			"must be a JSON object"},
		{"parameters not JSON", func(c *Card) { c.Skills[0].Parameters = json.RawMessage(`{`) }, []string{"skills[0].parameters"}, ""},
		{"skill example not JSON", func(c *Card) { c.Skills[0].Examples = []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`{x`)} },
			[]string{"skills[0].examples[1]"}, ""},

		{"mcp_server without mcp_tool", func(c *Card) { c.Skills[0].MCPServer = textPtr("weather") }, []string{"skills[0].mcp_tool"},
			"is required when mcp_server is set"},
		{"mcp_tool without mcp_server", func(c *Card) { c.Skills[0].MCPTool = textPtr("forecast") }, []string{"skills[0].mcp_server"},
			"is required when mcp_tool is set"},
		{"empty mcp_server", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr(""), textPtr("forecast") },
			[]string{"skills[0].mcp_server"}, "must not be empty"},
		{"empty mcp_tool", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("weather"), textPtr("") },
			[]string{"skills[0].mcp_tool"}, "must not be empty"},
		{"unknown server", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("missing"), textPtr("forecast") },
			[]string{"skills[0].mcp_server"}, "no MCP server with this id or name in the organization"},
		{"ambiguous server", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("shared"), textPtr("forecast") },
			[]string{"skills[0].mcp_server"}, "several MCP servers of the organization are named 'shared'; use the server id"},
		{"unknown tool on a known server", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("weather"), textPtr("alerts") },
			[]string{"skills[0].mcp_tool"}, "server 'weather' has no tool named 'alerts'"},
		{"linked skill", func(c *Card) { c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("weather"), textPtr("forecast") }, nil, ""},

		{"no invocation", func(c *Card) { c.Invocation = nil }, []string{"invocation"}, "invocation is required"},
		{"protocol soap", func(c *Card) { c.Invocation.Protocol = "soap" }, []string{"invocation.protocol"},
			"must be one of mcp, rest, grpc, graphql, websocket"},
		{"protocol in capitals", func(c *Card) { c.Invocation.Protocol = "MCP" }, []string{"invocation.protocol"}, "write it as mcp"},
		{"no protocol", func(c *Card) { c.Invocation.Protocol = "" }, []string{"invocation.protocol"}, "is required"},
		{"no endpoint", func(c *Card) { c.Invocation.Endpoint = "" }, []string{"invocation.endpoint"}, "is required"},
		{"endpoint ftp://x", func(c *Card) { c.Invocation.Endpoint = "ftp://x" }, []string{"invocation.endpoint"},
			"must be an absolute http or https URL; the scheme ftp is not allowed"},
		{"endpoint not a url", func(c *Card) { c.Invocation.Endpoint = "not a url" }, []string{"invocation.endpoint"}, ""},
		{"endpoint without a host", func(c *Card) { c.Invocation.Endpoint = "https:///mcp" }, []string{"invocation.endpoint"}, "no host"},
		{"endpoint with only a port", func(c *Card) { c.Invocation.Endpoint = "https://:8443/mcp" }, []string{"invocation.endpoint"}, "no host"},
		{"relative endpoint", func(c *Card) { c.Invocation.Endpoint = "/mcp" }, []string{"invocation.endpoint"}, "no scheme"},
		{"endpoint with a space in the path", func(c *Card) { c.Invocation.Endpoint = "https://agents.example/a b" }, []string{"invocation.endpoint"}, "white space"},
		{"endpoint that does not parse", func(c *Card) { c.Invocation.Endpoint = "http://[::1" }, []string{"invocation.endpoint"}, ""},
		{"auth type kerberos", func(c *Card) { c.Invocation.Authentication = &Authentication{Type: textPtr("kerberos")} },
			[]string{"invocation.authentication.type"}, "must be one of none, bearer, api_key, oauth2, basic, mtls"},
		{"empty auth type", func(c *Card) { c.Invocation.Authentication = &Authentication{Type: textPtr("")} },
			[]string{"invocation.authentication.type"}, ""},
		{"authentication without a type", func(c *Card) { c.Invocation.Authentication = &Authentication{Required: true} }, nil, ""},
		{"method FETCH", func(c *Card) { c.Invocation.Method = "FETCH" }, []string{"invocation.method"},
			"must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"},
		{"method in lowercase", func(c *Card) { c.Invocation.Method = "post" }, []string{"invocation.method"}, "write it as POST"},
		{"format soap", func(c *Card) { c.Invocation.Format = textPtr("soap") }, []string{"invocation.format"},
			"must be one of json-rpc, rest, graphql"},

		{"homepage javascript:alert(1)", func(c *Card) { c.Homepage = textPtr("javascript:alert(1)") }, []string{"homepage"},
			"the scheme javascript is not allowed"},
		{"empty homepage", func(c *Card) { c.Homepage = textPtr("") }, []string{"homepage"}, ""},
		{"repository without a scheme", func(c *Card) { c.Repository = textPtr("github.com/acme/weather") }, []string{"repository"}, ""},

		{"created_at yesterday", func(c *Card) { c.Metadata = &Metadata{CreatedAt: textPtr("yesterday")} }, []string{"metadata.created_at"},
			"must be an ISO 8601 date"},
		{"updated_at 2024-02-30", func(c *Card) { c.Metadata = &Metadata{UpdatedAt: textPtr("2024-02-30")} }, []string{"metadata.updated_at"},
			"2024-02-30 is not a day of the calendar"},
		{"created_at without a zone", func(c *Card) { c.Metadata = &Metadata{CreatedAt: textPtr("2024-05-01T10:00:00")} },
			[]string{"metadata.created_at"}, ""},
		{"empty tag and blank category", func(c *Card) { c.Metadata = &Metadata{Tags: []string{"weather", ""}, Categories: []string{" "}} },
			[]string{"metadata.tags[1]", "metadata.categories[0]"}, "must not be empty"},

		{"language xx", func(c *Card) { c.Capabilities = &Capabilities{Languages: []string{"en", "xx"}} },
			[]string{"capabilities.languages[1]"}, "must be an ISO 639-1 language code such as en or fr"},
		{"language eng", func(c *Card) { c.Capabilities = &Capabilities{Languages: []string{"eng"}} },
			[]string{"capabilities.languages[0]"}, "three-letter"},
		{"language EN", func(c *Card) { c.Capabilities = &Capabilities{Languages: []string{"EN"}} },
			[]string{"capabilities.languages[0]"}, "in lowercase: en"},
		{"input mode telepathy", func(c *Card) { c.Capabilities = &Capabilities{InputModes: []string{"text", "telepathy"}} },
			[]string{"capabilities.input_modes[1]"}, "must be one of text, voice, image, video, file"},
		{"output mode text/plain", func(c *Card) { c.Capabilities = &Capabilities{OutputModes: []string{"text/plain"}} },
			[]string{"capabilities.output_modes[0]"}, "must be one of text, json, speech, image, video, file"},
		{"voice is no output mode", func(c *Card) { c.Capabilities = &Capabilities{OutputModes: []string{"voice"}} },
			[]string{"capabilities.output_modes[0]"}, ""},

		{"example without skill, input and output", func(c *Card) { c.Examples = []Example{{}} },
			[]string{"examples[0].skill", "examples[0].input", "examples[0].output"}, "is required"},
		{"example naming an unknown skill", func(c *Card) {
			c.Examples = []Example{{Skill: "get_alerts", Input: json.RawMessage(`{}`), Output: json.RawMessage(`{}`)}}
		}, []string{"examples[0].skill"}, "no skill named 'get_alerts' in this card"},
		{"example with null input and array output", func(c *Card) {
			c.Examples = []Example{{Skill: "get_forecast", Input: json.RawMessage(`null`), Output: json.RawMessage(`[]`)}}
		}, []string{"examples[0].input", "examples[0].output"}, "is required"},
		{"valid example", func(c *Card) {
			c.Examples = []Example{{Skill: "get_forecast", Input: json.RawMessage(` {"city":"Oslo"}`), Output: json.RawMessage(`{"days":[]}`)}}
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCard()
			tc.mutate(&c)
			problems := Validate(c, weatherLinks)
			require.ElementsMatch(t, tc.fields, fieldsOf(t, problems), "%+v", problems)
			if tc.message != "" {
				require.Contains(t, problems[0].Message, tc.message)
			}
			// What a draft may not have, a published card may not have either.
			require.Subset(t, problems, Structural(c))
		})
	}
}

func TestValidateAcceptsBoundaryValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(c *Card)
	}{
		{"name of 50 characters", func(c *Card) { c.Name = strings.Repeat("a", 49) + "1" }},
		{"name of digits and hyphens", func(c *Card) { c.Name = "-0-" }},
		{"description of 200 characters", func(c *Card) { c.Description = strings.Repeat("d", 200) }},
		{"description of 2000 characters", func(c *Card) { c.Description = strings.Repeat("d", 2000) }},
		{"description of 2000 code points in 6000 bytes", func(c *Card) { c.Description = strings.Repeat("天", 2000) }},
		{"pre-release version", func(c *Card) { c.Version = "2.0.0-rc.1" }},
		{"build metadata", func(c *Card) { c.Version = "1.0.0-beta.1+exp.sha.5114f85" }},
		{"version 0.0.0", func(c *Card) { c.Version = "0.0.0" }},
		{"skill description of 50 characters", func(c *Card) { c.Skills[0].Description = strings.Repeat("s", 50) }},
		{"skill name of digits and underscores", func(c *Card) { c.Skills[0].Name = "_0_" }},
		{"null parameters", func(c *Card) { c.Skills[0].Parameters = json.RawMessage(`null`) }},
		{"object parameters", func(c *Card) { c.Skills[0].Parameters = json.RawMessage(`{"type":"object"}`) }},
		{"skill examples of any JSON", func(c *Card) {
			c.Skills[0].Examples = []json.RawMessage{json.RawMessage(`"Oslo"`), json.RawMessage(`[1]`), json.RawMessage(`null`)}
		}},
		{"languages", func(c *Card) { c.Capabilities = &Capabilities{Languages: []string{"en", "fr", "zh", "yo", "he"}} }},
		{"every input and output mode", func(c *Card) { c.Capabilities = &Capabilities{InputModes: InputModes, OutputModes: OutputModes} }},
		{"empty capabilities", func(c *Card) { c.Capabilities = &Capabilities{} }},
		{"empty metadata", func(c *Card) { c.Metadata = &Metadata{} }},
		{"empty invocation authentication", func(c *Card) { c.Invocation.Authentication = &Authentication{} }},
		{"http endpoint with port, path and query", func(c *Card) { c.Invocation.Endpoint = "http://localhost:8080/mcp?x=1" }},
		{"homepage and repository", func(c *Card) {
			c.Homepage, c.Repository = textPtr("https://weather.example"), textPtr("HTTPS://github.com/acme/weather")
		}},
		{"timestamps", func(c *Card) {
			c.Metadata = &Metadata{CreatedAt: textPtr("2024-02-29"), UpdatedAt: textPtr("2024-05-01t10:00:00.123456+02:00")}
		}},
		{"tags and categories", func(c *Card) { c.Metadata = &Metadata{Tags: []string{"weather"}, Categories: []string{"data"}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCard()
			tc.mutate(&c)
			require.Empty(t, Validate(c, nil))
		})
	}
	for _, p := range Protocols {
		for _, a := range AuthTypes {
			for _, m := range append([]string{""}, Methods...) {
				for _, f := range Formats {
					c := validCard()
					c.Invocation = &Invocation{Protocol: p, Endpoint: "https://agents.example", Method: m, Format: textPtr(f),
						Authentication: &Authentication{Type: textPtr(a), Required: true}}
					require.Empty(t, Validate(c, nil), "protocol %s, auth %s, method %q, format %s", p, a, m, f)
				}
			}
		}
	}
}

// TestValidateIncompleteCard checks that a draft of only a name is told
// everything it lacks at once, while it can still be stored.
func TestValidateIncompleteCard(t *testing.T) {
	c := Card{Name: "weather-agent"}
	require.Equal(t, []string{"version", "description", "skills", "invocation"}, fieldsOf(t, Validate(c, nil)))
	require.Empty(t, Structural(c))
}

// TestValidateOrder checks the documented order of problems on a card
// broken everywhere, so that a client sees them in the order of the form.
func TestValidateOrder(t *testing.T) {
	c := Card{
		Name:         "Weather",
		Version:      "1",
		Description:  "short",
		Homepage:     textPtr("x"),
		Repository:   textPtr("y"),
		Skills:       []Skill{{Name: "A", Description: "short", MCPTool: textPtr("t")}, {Name: "A"}},
		Capabilities: &Capabilities{Languages: []string{"xx"}, InputModes: []string{"x"}, OutputModes: []string{"x"}},
		Invocation:   &Invocation{Method: "x", Format: textPtr("x"), Authentication: &Authentication{Type: textPtr("x")}},
		Examples:     []Example{{Skill: "b"}},
		Metadata:     &Metadata{CreatedAt: textPtr("x"), UpdatedAt: textPtr("x"), Tags: []string{""}, Categories: []string{""}},
	}
	require.Equal(t, []string{
		"name", "version", "description", "homepage", "repository",
		"skills[0].name", "skills[0].description", "skills[0].mcp_server",
		"skills[1].name", "skills[1].name", "skills[1].description",
		"capabilities.languages[0]", "capabilities.input_modes[0]", "capabilities.output_modes[0]",
		"invocation.protocol", "invocation.endpoint", "invocation.authentication.type", "invocation.method", "invocation.format",
		"examples[0].skill", "examples[0].input", "examples[0].output",
		"metadata.created_at", "metadata.updated_at", "metadata.tags[0]", "metadata.categories[0]",
	}, fieldsOf(t, Validate(c, nil)))
	require.Equal(t, []string{"name", "skills[0].name", "skills[1].name", "skills[1].name"}, fieldsOf(t, Structural(c)))
}

func TestStructural(t *testing.T) {
	for _, tc := range []struct {
		name   string
		card   Card
		fields []string
	}{
		{"name only", Card{Name: "weather-agent"}, nil},
		{"publishing problems are not structural", Card{
			Name: "weather-agent", Version: "one", Description: "short",
			Homepage: textPtr("ftp://x"), Skills: []Skill{{Name: "get_forecast"}},
			Invocation: &Invocation{Protocol: "soap"}, Examples: []Example{{}},
			Capabilities: &Capabilities{Languages: []string{"xx"}},
			Metadata:     &Metadata{CreatedAt: textPtr("yesterday"), Tags: []string{""}},
		}, nil},
		{"no name", Card{}, []string{"name"}},
		{"bad name", Card{Name: "Weather Agent"}, []string{"name"}},
		{"long name", Card{Name: strings.Repeat("a", 51)}, []string{"name"}},
		{"bad skill names", Card{Name: "w", Skills: []Skill{{Name: "ok"}, {Name: ""}, {Name: "Get"}}},
			[]string{"skills[1].name", "skills[2].name"}},
		{"duplicate skill names", Card{Name: "w", Skills: []Skill{{Name: "a"}, {Name: "b"}, {Name: "a"}}}, []string{"skills[2].name"}},
		{"NUL in text the store copies", Card{Name: "w", Version: "1\x00", Description: "\x00",
			Metadata: &Metadata{Tags: []string{"ok", "\x00"}, Categories: []string{"\x00"}}},
			[]string{"version", "description", "metadata.tags[1]", "metadata.categories[0]"}},
		{"nil capabilities, invocation and metadata", Card{Name: "w", Skills: []Skill{{Name: "a"}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := Structural(tc.card)
			require.Equal(t, tc.fields, fieldsOf(t, problems), "%+v", problems)
			require.Subset(t, Validate(tc.card, nil), problems)
		})
	}
}

func TestValidateTimestamps(t *testing.T) {
	for _, tc := range []struct {
		ts string
		ok bool
	}{
		{"2024-05-01", true},
		{"2024-05-01T10:00:00Z", true},
		{"2024-05-01T10:00Z", true},
		{"2024-05-01t10:00:00z", true},
		{"2024-05-01T10:00:00+02:00", true},
		{"2024-05-01T23:59:59.999999999-11:30", true},
		{"2024-02-29", true},
		{"2000-02-29", true},
		{"2024-12-31T00:00:00Z", true},

		{"", false},
		{"yesterday", false},
		{"2024-02-30", false},
		{"2023-02-29", false},
		{"1900-02-29", false},
		{"2024-04-31", false},
		{"2024-13-01", false},
		{"2024-00-10", false},
		{"2024-05-00", false},
		{"2024-05-01T24:00:00Z", false},
		{"2024-05-01T10:60:00Z", false},
		{"2024-05-01T10:00:60Z", false},
		{"2024-05-01T10:00:00+24:00", false},
		{"2024-05-01T10:00:00", false},
		{"2024-05-01T10Z", false},
		{"2024-05-01 10:00:00Z", false},
		{"2024-05-01T10:00:00.Z", false},
		{"2024-05-01T10:00:00+0200", false},
		{"20240501", false},
		{"2024-W18-3", false},
		{"2024-122", false},
		{"24-05-01", false},
		{"2024-5-1", false},
		{"２０２４-05-01", false},
	} {
		t.Run(tc.ts, func(t *testing.T) {
			msg := timestampProblem(tc.ts)
			if tc.ok {
				require.Empty(t, msg)
			} else {
				require.Contains(t, msg, "must be an ISO 8601 date")
			}
		})
	}
}

func TestLanguageList(t *testing.T) {
	// 183: the registration authority's count of current ISO 639-1 codes
	// since bh was deprecated; the Library of Congress's ISO 639-2 table
	// still lists bh, for 184.
	require.Len(t, iso6391, 183)
	require.True(t, slices.IsSorted(iso6391), "the list is kept sorted, to be checked by eye")
	require.Len(t, isLanguage, len(iso6391), "no code is listed twice")
	for _, code := range iso6391 {
		require.Regexp(t, `^[a-z]{2}$`, code)
	}
	for _, code := range []string{"en", "fr", "de", "zh", "ja", "he", "id", "yi", "jv", "ro", "sr", "hr", "bs", "yo", "zu", "aa", "nb", "nn", "no", "cu", "ht", "io", "ii", "an"} {
		require.True(t, isLanguage[code], code)
	}
	for _, code := range []string{"iw", "in", "ji", "jw", "mo", "sh", "bh", "xx", "qa", "zz", "EN", "eng", "e", ""} {
		require.False(t, isLanguage[code], code)
	}
}

func TestLanguageProblem(t *testing.T) {
	for _, tc := range []struct {
		code, message string
	}{
		{"en", ""},
		{"he", ""},
		{"xx", "must be an ISO 639-1 language code such as en or fr"},
		{"", "must be an ISO 639-1 language code such as en or fr"},
		{"EN", "in lowercase: en"},
		{"Fr", "in lowercase: fr"},
		{"iw", "iw was withdrawn, use he"},
		{"sh", "use sr, hr or bs"},
		{"bh", "bh was withdrawn, it has no two-letter successor"},
		{"en-US", "write the language alone (en), without a region or script"},
		{"zh_Hant", "write the language alone (zh)"},
		{"xx-YY", "must be an ISO 639-1 language code such as en or fr"},
		{"eng", "three-letter codes (ISO 639-2 and 639-3) are not accepted"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			msg := languageProblem(tc.code)
			if tc.message == "" {
				require.Empty(t, msg)
				return
			}
			require.Contains(t, msg, tc.message)
		})
	}
}

func TestRepliesAreChecked(t *testing.T) {
	c := Card{Name: "agent", Replies: []Reply{
		{Name: "ok", Condition: json.RawMessage(`{"text":"hi"}`), Text: "Hello {{args.text}}"},
		{Name: "ok", Text: "a second reply of that name"},
		{Name: "", Text: "x"},
		{Name: "bad-condition", Condition: json.RawMessage(`{"field":"text","operator":"nope","value":1}`), Text: "x"},
		{Name: "bad-text", Text: "{{nope}}"},
		{Name: "no-text"},
	}}
	var fields []string
	for _, e := range Structural(c) {
		fields = append(fields, e.Field)
	}
	require.Equal(t, []string{"replies[1].name", "replies[2].name", "replies[3].condition.operator",
		"replies[4].text", "replies[5].text"}, fields)

	c.Replies = c.Replies[:1]
	require.Empty(t, Structural(c))
}

func TestReplyTasksAndFaultsAreChecked(t *testing.T) {
	rate := 1.5
	half := 0.5
	task := func(steps []TaskStep, outcome TaskOutcome) *ReplyTask {
		return &ReplyTask{Steps: steps, Outcome: outcome}
	}
	done := TaskOutcome{State: TaskCompleted}
	for _, tc := range []struct {
		name   string
		reply  Reply
		fields []string
	}{
		{"a task with a timeline", Reply{Name: "r", Task: task([]TaskStep{{Message: "Searching {{args.text}}", DurationMS: 500},
			{State: TaskInputRequired, Message: "Which day?"}}, TaskOutcome{State: TaskCompleted, Message: "Done",
			Artifacts: []Artifact{{Name: "plan", Text: "{{args.text}}"}, {Name: "data", Data: json.RawMessage(`{"n":1}`)}}})}, nil},
		{"text and task", Reply{Name: "r", Text: "x", Task: task(nil, done)}, []string{"replies[0].task"}},
		{"an unknown step state", Reply{Name: "r", Task: task([]TaskStep{{}, {State: "completed"}}, done)},
			[]string{"replies[0].task.steps[1].state"}},
		{"a step too long", Reply{Name: "r", Task: task([]TaskStep{{DurationMS: -1}, {DurationMS: MaxTaskStepMS + 1}}, done)},
			[]string{"replies[0].task.steps[0].duration_ms", "replies[0].task.steps[1].duration_ms"}},
		{"an input-required step with a duration", Reply{Name: "r", Task: task([]TaskStep{{State: TaskInputRequired, DurationMS: 5}}, done)},
			[]string{"replies[0].task.steps[0].duration_ms"}},
		{"a step message that does not compile", Reply{Name: "r", Task: task([]TaskStep{{Message: "{{nope}}"}}, done)},
			[]string{"replies[0].task.steps[0].message"}},
		{"no outcome state", Reply{Name: "r", Task: task(nil, TaskOutcome{})}, []string{"replies[0].task.outcome.state"}},
		{"a working outcome", Reply{Name: "r", Task: task(nil, TaskOutcome{State: TaskWorking})}, []string{"replies[0].task.outcome.state"}},
		{"artifacts without name or content", Reply{Name: "r", Task: task(nil, TaskOutcome{State: TaskFailed,
			Artifacts: []Artifact{{Text: "x"}, {Name: "empty"}, {Name: "bad", Text: "{{nope}}"}}})},
			[]string{"replies[0].task.outcome.artifacts[0].name", "replies[0].task.outcome.artifacts[1].text",
				"replies[0].task.outcome.artifacts[2].text"}},
		{"a fault with an error needs no text", Reply{Name: "r", Fault: &ReplyFault{Error: &mockspec.RPCError{Code: -32603, Message: "boom"}}}, nil},
		{"a dropping fault needs no text", Reply{Name: "r", Fault: &ReplyFault{Drop: true, DelayMS: 100}}, nil},
		{"a fault for half the messages needs a text", Reply{Name: "r", Fault: &ReplyFault{Rate: &half, Drop: true}},
			[]string{"replies[0].text"}},
		{"a delay only needs a text", Reply{Name: "r", Fault: &ReplyFault{DelayMS: 100}}, []string{"replies[0].text"}},
		{"a fault out of bounds", Reply{Name: "r", Text: "x", Fault: &ReplyFault{Rate: &rate, DelayMS: mockspec.MaxDelayMS + 1,
			Error: &mockspec.RPCError{}}},
			[]string{"replies[0].fault.rate", "replies[0].fault.error.code", "replies[0].fault.error.message", "replies[0].fault.delay_ms"}},
		{"drop and error", Reply{Name: "r", Fault: &ReplyFault{Drop: true, Error: &mockspec.RPCError{Code: 1, Message: "x"}}},
			[]string{"replies[0].fault.drop"}},
		{"state read and changed", Reply{Name: "r", Text: "{{state.items}}", WhenState: json.RawMessage(`{"field":"items","operator":"exists"}`),
			SetState: json.RawMessage(`{"items":"{{args.text}}","old":null}`)}, nil},
		{"a when_state that does not compile", Reply{Name: "r", Text: "x", WhenState: json.RawMessage(`{"field":"items","operator":"nope"}`)},
			[]string{"replies[0].when_state.operator"}},
		{"a set_state not an object", Reply{Name: "r", Text: "x", SetState: json.RawMessage(`[1]`)}, []string{"replies[0].set_state"}},
		{"a set_state template that does not compile", Reply{Name: "r", Text: "x", SetState: json.RawMessage(`{"a":"{{args.text"}`)},
			[]string{"replies[0].set_state.a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fields []string
			for _, e := range Structural(Card{Name: "agent", Replies: []Reply{tc.reply}}) {
				fields = append(fields, e.Field)
			}
			require.Equal(t, tc.fields, fields)
		})
	}
}
