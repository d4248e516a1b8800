package resttest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

func validCase() Case {
	return Case{
		Name:        "users",
		Description: "reads a user",
		BaseURL:     "https://api.example.com/v1/",
		Scopes: []Scope{
			{Method: "GET", Path: "/users/{id}"},
			{Method: "post", Path: "/users"},
		},
		Input: Input{
			PathParams:  map[string]string{"id": "42", "unused": ""},
			QueryParams: map[string]string{"expand": "all"},
			Headers:     map[string]string{"Authorization": "Bearer x", "X-Trace": "1\t2"},
			Body:        json.RawMessage(`{"name": "Ada"}`),
			Expectations: map[string]Expectation{
				"GET /users/{id}": {
					ExpectedStatus: status(200),
					Conditions: []Condition{
						{Path: "id", Operation: "eq", Value: json.RawMessage(`42`)},
						{Path: "nickname", Operation: "eq", Value: json.RawMessage(`null`)},
						{Path: "name", Operation: "neq", Value: json.RawMessage(`""`)},
						{Path: "name", Operation: "exists"},
						{Path: "tags", Operation: "contains", Value: json.RawMessage(`{"a": 1}`)},
						{Path: "age", Operation: "isNumeric", Value: json.RawMessage(`null`)},
						{Path: "name", Operation: "isText"},
						{Path: "tags", Operation: "isArray"},
						{Path: `["a.b"]`, Operation: "isObject"},
						{Path: "email", Operation: "matchesRegex", Value: json.RawMessage(`"^[^@]+@[^@]+$"`)},
						{Path: "$", Operation: "isObject"},
					},
				},
				"post /users": {ExpectedStatus: status(201)},
			},
		},
	}
}

func TestCheckCaseValid(t *testing.T) {
	require.Nil(t, CheckCase(validCase()))
	c := validCase()
	c.Input = Input{}
	c.Scopes = []Scope{{Method: "options", Path: "/"}}
	require.Nil(t, CheckCase(c))
}

func TestCheckCase(t *testing.T) {
	const exp = `input.expectations["GET /users/{id}"]`
	cond := func(c *Case, cs ...Condition) {
		e := c.Input.Expectations["GET /users/{id}"]
		e.Conditions = cs
		c.Input.Expectations["GET /users/{id}"] = e
	}
	tests := []struct {
		name   string
		edit   func(c *Case)
		fields []failure.FieldError
	}{
		{"name required", func(c *Case) { c.Name = "  " },
			[]failure.FieldError{{Field: "name", Message: "is required"}}},
		{"name too long", func(c *Case) { c.Name = strings.Repeat("é", 201) },
			[]failure.FieldError{{Field: "name", Message: "must be at most 200 characters long, got 201"}}},
		{"name of 200 characters", func(c *Case) { c.Name = strings.Repeat("é", 200) }, nil},
		{"NUL in the description", func(c *Case) { c.Description = "a\x00b" },
			[]failure.FieldError{{Field: "description", Message: nulMessage}}},

		{"base_url required", func(c *Case) { c.BaseURL = "" },
			[]failure.FieldError{{Field: "base_url", Message: "is required: an http or https URL such as https://api.example.com/v1"}}},
		{"base_url relative", func(c *Case) { c.BaseURL = "/api" },
			[]failure.FieldError{{Field: "base_url", Message: "must be an absolute http or https URL"}}},
		{"base_url ftp", func(c *Case) { c.BaseURL = "ftp://example.com" },
			[]failure.FieldError{{Field: "base_url", Message: "must be an absolute http or https URL"}}},
		{"base_url without host", func(c *Case) { c.BaseURL = "http://:8080/" },
			[]failure.FieldError{{Field: "base_url", Message: "must have a host"}}},
		{"base_url with spaces", func(c *Case) { c.BaseURL = "https://example.com/a b" },
			[]failure.FieldError{{Field: "base_url", Message: "must not contain spaces or control characters"}}},
		{"base_url with userinfo", func(c *Case) { c.BaseURL = "https://user:pw@example.com" },
			[]failure.FieldError{{Field: "base_url", Message: "must not contain user information: give credentials in input.headers"}}},
		{"base_url with a query", func(c *Case) { c.BaseURL = "https://example.com/?a=1" },
			[]failure.FieldError{{Field: "base_url", Message: "must not have a query: give query parameters in input.query_params"}}},
		{"base_url with a fragment", func(c *Case) { c.BaseURL = "https://example.com/#top" },
			[]failure.FieldError{{Field: "base_url", Message: "must not have a fragment"}}},
		{"base_url not a URL", func(c *Case) { c.BaseURL = "http://[::1" },
			[]failure.FieldError{{Field: "base_url", Message: "is not a URL: missing ']' in host"}}},

		{"no scopes", func(c *Case) {
			c.Scopes = nil
			c.Input.Expectations = nil
		}, []failure.FieldError{{Field: "scopes", Message: "at least one scope is required"}}},
		{"too many scopes", func(c *Case) {
			c.Scopes = nil
			for i := 0; i < 51; i++ {
				c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/s" + strings.Repeat("x", i)})
			}
			c.Input.Expectations = nil
		}, []failure.FieldError{{Field: "scopes", Message: "at most 50 scopes are allowed, got 51"}}},
		{"method required", func(c *Case) { c.Scopes[1].Method = "" },
			[]failure.FieldError{
				{Field: "scopes[1].method", Message: "is required: one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"},
				{Field: `input.expectations["post /users"]`, Message: `no scope post /users: a key is a scope's method and path, such as "GET /users/{id}"`},
			}},
		{"method unknown", func(c *Case) { c.Scopes[0].Method = "TRACE" },
			[]failure.FieldError{
				{Field: "scopes[0].method", Message: `must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, got "TRACE"`},
				{Field: exp, Message: `no scope GET /users/{id}: a key is a scope's method and path, such as "GET /users/{id}"`},
			}},
		{"path required", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "is required: a path starting with '/', such as /users/{id}"}}},
		{"path without a leading slash", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "users"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "must start with '/'"}}},
		{"path with a query", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users?a=1"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "must not contain '?' or '#': give query parameters in input.query_params"}}},
		{"path with a space", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/a b"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "must not contain spaces or control characters"}}},
		{"path with an unclosed brace", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users/{id"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "has a '{' without '}' at offset 7"}}},
		{"path with nested braces", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users/{a{b}}"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "has a '{' without '}' at offset 7"}}},
		{"path with a stray closing brace", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users/id}"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "has a '}' without '{' at offset 9"}}},
		{"path with a bad parameter name", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users/{1id}"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "has an invalid path parameter {1id}: want a name of letters, digits and '_' not starting with a digit"}}},
		{"path with an empty parameter", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/users/{}"}) },
			[]failure.FieldError{{Field: "scopes[2].path", Message: "has an invalid path parameter {}: want a name of letters, digits and '_' not starting with a digit"}}},
		{"path parameter inside a segment", func(c *Case) {
			c.Scopes = append(c.Scopes, Scope{Method: "GET", Path: "/files/{id}.json"})
		}, nil},
		{"path parameter without a value", func(c *Case) {
			c.Scopes = append(c.Scopes, Scope{Method: "DELETE", Path: "/users/{id}/posts/{post_id}/{other}"})
		}, []failure.FieldError{
			{Field: "scopes[2].path", Message: "path parameter 'post_id' has no value in input.path_params"},
			{Field: "scopes[2].path", Message: "path parameter 'other' has no value in input.path_params"},
		}},
		{"path parameter used with an empty value", func(c *Case) { c.Input.PathParams["id"] = "" },
			[]failure.FieldError{{Field: `input.path_params["id"]`, Message: "must not be empty: it fills {id} in a scope's path"}}},
		{"duplicate scope", func(c *Case) { c.Scopes = append(c.Scopes, Scope{Method: "get", Path: "/users/{id}"}) },
			[]failure.FieldError{{Field: "scopes[2]", Message: "duplicate of scopes[0] (GET /users/{id})"}}},

		{"empty query parameter name", func(c *Case) { c.Input.QueryParams[""] = "x" },
			[]failure.FieldError{{Field: `input.query_params[""]`, Message: "a query parameter needs a name"}}},
		{"invalid header name", func(c *Case) { c.Input.Headers["X Bad"] = "v" },
			[]failure.FieldError{{Field: `input.headers["X Bad"]`, Message: "is not a valid header name: want letters, digits and !#$%&'*+-.^_`|~"}}},
		{"header value with a line break", func(c *Case) { c.Input.Headers["X-Inject"] = "a\r\nX-Evil: 1" },
			[]failure.FieldError{{Field: `input.headers["X-Inject"]`, Message: "the value must not contain control characters (line breaks, NUL)"}}},
		{"header the client sets", func(c *Case) { c.Input.Headers["content-length"] = "5" },
			[]failure.FieldError{{Field: `input.headers["content-length"]`, Message: "is set by the HTTP client and cannot be given"}}},
		{"header given twice", func(c *Case) { c.Input.Headers["authorization"] = "Basic y" },
			[]failure.FieldError{{Field: `input.headers["authorization"]`, Message: `names the same header as input.headers["Authorization"]: header names ignore case`}}},
		{"body not JSON", func(c *Case) { c.Input.Body = json.RawMessage(`{"a":`) },
			[]failure.FieldError{{Field: "input.body", Message: "must be JSON"}}},
		{"body with \\u0000", func(c *Case) { c.Input.Body = json.RawMessage(`{"a": "x\u0000"}`) },
			[]failure.FieldError{{Field: "input.body", Message: nulMessage}}},
		{"body with an escaped backslash before u0000", func(c *Case) { c.Input.Body = json.RawMessage(`{"a": "x\\u0000"}`) }, nil},
		{"body of any JSON", func(c *Case) { c.Input.Body = json.RawMessage(`[1, "two", null]`) }, nil},

		{"expectation for no scope", func(c *Case) { c.Input.Expectations["GET /nope"] = Expectation{} },
			[]failure.FieldError{{Field: `input.expectations["GET /nope"]`, Message: `no scope GET /nope: a key is a scope's method and path, such as "GET /users/{id}"`}}},
		{"two expectations for one scope", func(c *Case) { c.Input.Expectations["POST /users"] = Expectation{} },
			[]failure.FieldError{{Field: `input.expectations["post /users"]`, Message: `names the same endpoint as input.expectations["POST /users"]`}}},
		{"expected status too low", func(c *Case) { c.Input.Expectations["post /users"] = Expectation{ExpectedStatus: status(99)} },
			[]failure.FieldError{{Field: `input.expectations["post /users"].expected_status`, Message: "must be an HTTP status from 100 to 599, got 99"}}},
		{"expected status too high", func(c *Case) { c.Input.Expectations["post /users"] = Expectation{ExpectedStatus: status(600)} },
			[]failure.FieldError{{Field: `input.expectations["post /users"].expected_status`, Message: "must be an HTTP status from 100 to 599, got 600"}}},
		{"too many conditions", func(c *Case) {
			var cs []Condition
			for i := 0; i < 101; i++ {
				cs = append(cs, Condition{Path: "a", Operation: "exists"})
			}
			cond(c, cs...)
		}, []failure.FieldError{{Field: exp + ".conditions", Message: "at most 100 conditions are allowed, got 101"}}},

		{"condition path required", func(c *Case) { cond(c, Condition{Operation: "exists"}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].path", Message: "is required: a field of the response such as data.items[0].id, or $ for the whole body"}}},
		{"condition path invalid", func(c *Case) {
			cond(c, Condition{Path: "a", Operation: "exists"}, Condition{Path: "items[x]", Operation: "exists"})
		},
			[]failure.FieldError{{Field: exp + ".conditions[1].path", Message: `has an invalid array index "x" at offset 5: want a non-negative integer without leading zeros, or a quoted key`}}},
		{"operation required", func(c *Case) { cond(c, Condition{Path: "a"}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].operation", Message: "is required: one of eq, neq, exists, contains, isNumeric, isText, isArray, isObject, matchesRegex"}}},
		{"operation unknown", func(c *Case) { cond(c, Condition{Path: "a", Operation: "equals", Value: json.RawMessage(`1`)}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].operation", Message: `unknown operation "equals": want one of eq, neq, exists, contains, isNumeric, isText, isArray, isObject, matchesRegex`}}},
		{"operation case matters", func(c *Case) { cond(c, Condition{Path: "a", Operation: "isnumeric"}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].operation", Message: `unknown operation "isnumeric": want one of eq, neq, exists, contains, isNumeric, isText, isArray, isObject, matchesRegex`}}},
		{"value required for eq, neq, contains and matchesRegex", func(c *Case) {
			cond(c,
				Condition{Path: "a", Operation: "eq"},
				Condition{Path: "a", Operation: "neq"},
				Condition{Path: "a", Operation: "contains"},
				Condition{Path: "a", Operation: "matchesRegex"})
		}, []failure.FieldError{
			{Field: exp + ".conditions[0].value", Message: "is required for eq"},
			{Field: exp + ".conditions[1].value", Message: "is required for neq"},
			{Field: exp + ".conditions[2].value", Message: "is required for contains"},
			{Field: exp + ".conditions[3].value", Message: "is required for matchesRegex"},
		}},
		{"value refused for operations without one", func(c *Case) {
			cond(c,
				Condition{Path: "a", Operation: "exists", Value: json.RawMessage(`false`)},
				Condition{Path: "a", Operation: "isNumeric", Value: json.RawMessage(`1`)},
				Condition{Path: "a", Operation: "isText", Value: json.RawMessage(`"x"`)},
				Condition{Path: "a", Operation: "isArray", Value: json.RawMessage(`[]`)},
				Condition{Path: "a", Operation: "isObject", Value: json.RawMessage(`{}`)},
				Condition{Path: "a", Operation: "exists", Value: json.RawMessage(`null`)})
		}, []failure.FieldError{
			{Field: exp + ".conditions[0].value", Message: "exists takes no value"},
			{Field: exp + ".conditions[1].value", Message: "isNumeric takes no value"},
			{Field: exp + ".conditions[2].value", Message: "isText takes no value"},
			{Field: exp + ".conditions[3].value", Message: "isArray takes no value"},
			{Field: exp + ".conditions[4].value", Message: "isObject takes no value"},
		}},
		{"value not JSON", func(c *Case) { cond(c, Condition{Path: "a", Operation: "eq", Value: json.RawMessage(`{`)}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].value", Message: "must be JSON"}}},
		{"value with \\u0000", func(c *Case) { cond(c, Condition{Path: "a", Operation: "eq", Value: json.RawMessage(`"\u0000"`)}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].value", Message: nulMessage}}},
		{"contains takes any JSON", func(c *Case) {
			cond(c,
				Condition{Path: "a", Operation: "contains", Value: json.RawMessage(`"sub"`)},
				Condition{Path: "a", Operation: "contains", Value: json.RawMessage(`3`)},
				Condition{Path: "a", Operation: "contains", Value: json.RawMessage(`null`)})
		}, nil},
		{"regex not a string", func(c *Case) { cond(c, Condition{Path: "a", Operation: "matchesRegex", Value: json.RawMessage(`5`)}) },
			[]failure.FieldError{{Field: exp + ".conditions[0].value", Message: "must be a string: a regular expression (RE2 syntax)"}}},
		{"regex that does not compile", func(c *Case) {
			cond(c, Condition{Path: "a", Operation: "matchesRegex", Value: json.RawMessage(`"(a"`)})
		},
			[]failure.FieldError{{Field: exp + ".conditions[0].value", Message: "is not a valid regular expression (RE2 syntax): error parsing regexp: missing closing ): `(a`"}}},
		{"regex with a Perl-only construct", func(c *Case) {
			cond(c, Condition{Path: "a", Operation: "matchesRegex", Value: json.RawMessage(`"(?=a)"`)})
		},
			[]failure.FieldError{{Field: exp + ".conditions[0].value", Message: "is not a valid regular expression (RE2 syntax): error parsing regexp: invalid or unsupported Perl syntax: `(?=`"}}},
		{"regex too long", func(c *Case) {
			v, _ := json.Marshal(strings.Repeat("a", 1001))
			cond(c, Condition{Path: "a", Operation: "matchesRegex", Value: v})
		}, []failure.FieldError{{Field: exp + ".conditions[0].value", Message: "must be at most 1000 characters long, got 1001"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCase()
			tt.edit(&c)
			require.Equal(t, tt.fields, CheckCase(c))
		})
	}
}

func TestCheckCaseReportsEverything(t *testing.T) {
	c := Case{
		Scopes: []Scope{{Method: "FETCH", Path: "x"}},
		Input: Input{Expectations: map[string]Expectation{
			"GET /x": {ExpectedStatus: status(0), Conditions: []Condition{{Path: "", Operation: "nope"}}},
		}},
	}
	fields := CheckCase(c)
	var names []string
	for _, f := range fields {
		names = append(names, f.Field)
	}
	require.Equal(t, []string{
		"name",
		"base_url",
		"scopes[0].method",
		"scopes[0].path",
		`input.expectations["GET /x"]`,
		`input.expectations["GET /x"].expected_status`,
		`input.expectations["GET /x"].conditions[0].path`,
		`input.expectations["GET /x"].conditions[0].operation`,
	}, names)
}

func TestNormalize(t *testing.T) {
	c := validCase()
	c.Scopes = append(c.Scopes, Scope{Method: "Delete", Path: "/users/{id}"})
	c.Input.Expectations["delete /users/{id}"] = Expectation{ExpectedStatus: status(204)}
	require.Nil(t, CheckCase(c))
	Normalize(&c)
	require.Equal(t, []Scope{{"GET", "/users/{id}"}, {"POST", "/users"}, {"DELETE", "/users/{id}"}}, c.Scopes)
	keys := []string{}
	for k := range c.Input.Expectations {
		keys = append(keys, k)
	}
	require.ElementsMatch(t, []string{"GET /users/{id}", "POST /users", "DELETE /users/{id}"}, keys)
	require.Equal(t, 201, *c.Input.Expectations["POST /users"].ExpectedStatus)
	require.Nil(t, CheckCase(c))

	// When two keys name one endpoint, the one in stored form keeps the
	// label and the other its key, so that CheckCase reports it.
	c.Input.Expectations["post /users"] = Expectation{ExpectedStatus: status(500)}
	Normalize(&c)
	require.Equal(t, 201, *c.Input.Expectations["POST /users"].ExpectedStatus)
	require.Equal(t, 500, *c.Input.Expectations["post /users"].ExpectedStatus)
	require.Equal(t, []failure.FieldError{{Field: `input.expectations["post /users"]`,
		Message: `names the same endpoint as input.expectations["POST /users"]`}}, CheckCase(c))

	// Normalized first, a case with only lower-case keys passes.
	c = validCase()
	c.Input.Expectations = map[string]Expectation{"get /users/{id}": {}, "Post /users": {}}
	Normalize(&c)
	require.Nil(t, CheckCase(c))
	require.Contains(t, c.Input.Expectations, "GET /users/{id}")
	require.Contains(t, c.Input.Expectations, "POST /users")
}

func TestCheckRequest(t *testing.T) {
	valid := func() Case {
		return Case{
			Name:    "session request",
			BaseURL: "http://localhost:8080/api",
			Scopes:  []Scope{{Method: "post", Path: "/users"}},
			Input: Input{
				QueryParams: map[string]string{"a": "1"},
				Headers:     map[string]string{"X-A": "1"},
				Body:        json.RawMessage(`{"a": 1}`),
			},
		}
	}
	require.Nil(t, CheckRequest(valid()))
	c := valid()
	c.Scopes[0].Path = ""
	require.Nil(t, CheckRequest(c), "an empty path is the base URL itself")

	tests := []struct {
		name   string
		edit   func(c *Case)
		fields []failure.FieldError
	}{
		{"base_url", func(c *Case) { c.BaseURL = "localhost" },
			[]failure.FieldError{{Field: "base_url", Message: "must be an absolute http or https URL"}}},
		{"method", func(c *Case) { c.Scopes[0].Method = "BREW" },
			[]failure.FieldError{{Field: "method", Message: `must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, got "BREW"`}}},
		{"path without a slash", func(c *Case) { c.Scopes[0].Path = "users" },
			[]failure.FieldError{{Field: "path", Message: "must start with '/'"}}},
		{"path with a placeholder", func(c *Case) { c.Scopes[0].Path = "/users/{id}" },
			[]failure.FieldError{{Field: "path", Message: "must not contain '{' or '}': an ad-hoc request has no path parameters"}}},
		{"query", func(c *Case) { c.Input.QueryParams[""] = "x" },
			[]failure.FieldError{{Field: `query_params[""]`, Message: "a query parameter needs a name"}}},
		{"headers", func(c *Case) { c.Input.Headers["x-a"] = "2" },
			[]failure.FieldError{{Field: `headers["x-a"]`, Message: `names the same header as headers["X-A"]: header names ignore case`}}},
		{"body", func(c *Case) { c.Input.Body = json.RawMessage(`{`) },
			[]failure.FieldError{{Field: "body", Message: "must be JSON"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.edit(&c)
			require.Equal(t, tt.fields, CheckRequest(c))
		})
	}
}
