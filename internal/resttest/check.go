package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/pgtext"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// Limits of a test case; past one, CheckCase reports the field.
const (
	MaxNameLength  = 200                  // characters of a case's name
	MaxScopes      = 50                   // endpoints of one case
	MaxConditions  = 100                  // conditions of one expectation
	MaxRegexLength = regexlimit.MaxLength // characters of a matchesRegex expression
	MaxURLLength   = 2000                 // characters of base_url, and of each scope's path
)

// Methods are the HTTP methods a scope may use. CheckCase accepts them in
// any case; Normalize upper-cases them.
var Methods = []string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodHead, http.MethodOptions,
}

var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckCase checks a test case before it is saved and reports every problem
// at once, each with the field at fault as a JSON path into the case:
//
//	name, base_url, scopes, scopes[1], scopes[0].method, scopes[0].path,
//	input.body, input.path_params["id"], input.query_params[""],
//	input.headers["X-Trace"], input.expectations["GET /users/{id}"],
//	input.expectations["GET /users/{id}"].expected_status,
//	input.expectations["GET /users/{id}"].conditions,
//	input.expectations["GET /users/{id}"].conditions[0].path (.operation, .value)
//
// A map key is written in brackets as a JSON string, since keys hold spaces,
// dots, slashes and braces. The map entries are checked in key order, so
// the report is the same from one call to the next. It returns nil for a
// valid case.
//
// Decisions:
//
//   - A method may be in any case ("get"); so may the method part of an
//     expectation key ("get /users"). Normalize upper-cases both, before or
//     after the check.
//   - base_url may not carry a query or a fragment (query parameters go in
//     input.query_params) nor user information (credentials go in
//     input.headers).
//   - A scope's path starts with '/', holds no white space, '?' or '#', and
//     its `{param}` placeholders (anywhere in a segment, as in OpenAPI:
//     `/files/{name}.json`) are names of letters, digits and '_' not
//     starting with a digit. A placeholder without a value in
//     input.path_params is reported at the scope's path; an empty value of
//     a placeholder in use is reported at input.path_params["name"]. Path
//     parameters no scope uses are ignored.
//   - Two scopes with the same label (method and path) are refused, the
//     later one reported.
//   - Header names are HTTP tokens, unique regardless of case; values hold
//     no control characters but tab. Content-Length and Transfer-Encoding
//     are refused: the HTTP client sets them. A Host header sets the
//     request's host.
//   - Every expectation key names a scope.
//   - A condition's value is required for eq, neq, contains and
//     matchesRegex (eq and neq may compare with null; contains takes a
//     string for a string field or any JSON for an array field, so any JSON
//     is accepted). The other operations take no value: an absent value or
//     null is accepted, any other value refused, since a value there
//     ("exists": false) suggests the author expects it to mean something.
//   - JSON the database cannot store (the escape \u0000, an unpaired UTF-16
//     surrogate escape) and the NUL character in text are refused.
func CheckCase(c Case) []failure.FieldError {
	var f failure.Fields

	switch n := utf8.RuneCountInString(c.Name); {
	case strings.TrimSpace(c.Name) == "":
		f.Add("name", "is required")
	case n > MaxNameLength:
		f.Add("name", "must be at most %d characters long, got %d", MaxNameLength, n)
	}
	noNUL(&f, "name", c.Name)
	noNUL(&f, "description", c.Description)

	if msg := baseURLProblem(c.BaseURL); msg != "" {
		f.Add("base_url", "%s", msg)
	}

	checkScopes(&f, c)
	checkInput(&f, c)
	checkExpectations(&f, c)

	if len(f) == 0 {
		return nil
	}
	return f
}

// Normalize rewrites a case into its stored form: methods upper-cased, and
// expectation keys with their method upper-cased so that each equals its
// scope's Label. It may run before CheckCase: when two keys name the same
// endpoint ("GET /x" and "get /x"), the first in stored form (or, failing
// that, in key order) takes the normalized key and the others keep theirs,
// so that CheckCase still reports them.
func Normalize(c *Case) {
	for i := range c.Scopes {
		c.Scopes[i].Method = strings.ToUpper(c.Scopes[i].Method)
	}
	if len(c.Input.Expectations) == 0 {
		return
	}
	out := make(map[string]Expectation, len(c.Input.Expectations))
	for _, k := range slices.Sorted(maps.Keys(c.Input.Expectations)) {
		n := normalizeLabel(k)
		if _, taken := out[n]; taken {
			n = k
		}
		out[n] = c.Input.Expectations[k]
	}
	c.Input.Expectations = out
}

// CheckRequest checks an ad-hoc request of an exploratory session, given as
// a case of one scope whose path has no `{param}` placeholders, and reports
// every problem at once with the field names of the session's request:
// base_url (the session's), method, path, query_params["name"],
// headers["name"] and body. The path may be empty (the base URL itself).
// The rules are those of CheckCase; the name, description and expectations
// are not checked.
func CheckRequest(c Case) []failure.FieldError {
	var f failure.Fields
	if msg := baseURLProblem(c.BaseURL); msg != "" {
		f.Add("base_url", "%s", msg)
	}
	if len(c.Scopes) != 1 {
		f.Add("scopes", "an ad-hoc request has exactly one scope, got %d", len(c.Scopes))
	}
	for _, s := range c.Scopes {
		switch {
		case s.Method == "":
			f.Add("method", "is required: one of %s", strings.Join(Methods, ", "))
		case !knownMethod(s.Method):
			f.Add("method", "must be one of %s, got %q", strings.Join(Methods, ", "), s.Method)
		}
		switch {
		case s.Path == "":
		case strings.ContainsAny(s.Path, "{}"):
			f.Add("path", "must not contain '{' or '}': an ad-hoc request has no path parameters")
		default:
			if _, msg := scopePathProblem(s.Path); msg != "" {
				f.Add("path", "%s", msg)
			}
		}
	}
	checkQuery(&f, "query_params", c.Input.QueryParams)
	checkHeaders(&f, "headers", c.Input.Headers)
	checkBody(&f, "body", c.Input.Body)
	if len(f) == 0 {
		return nil
	}
	return f
}

func checkScopes(f *failure.Fields, c Case) {
	switch {
	case len(c.Scopes) == 0:
		f.Add("scopes", "at least one scope is required")
	case len(c.Scopes) > MaxScopes:
		f.Add("scopes", "at most %d scopes are allowed, got %d", MaxScopes, len(c.Scopes))
	}
	seen := map[string]int{}
	for i, s := range c.Scopes {
		at := fmt.Sprintf("scopes[%d]", i)
		switch {
		case s.Method == "":
			f.Add(at+".method", "is required: one of %s", strings.Join(Methods, ", "))
		case !knownMethod(s.Method):
			f.Add(at+".method", "must be one of %s, got %q", strings.Join(Methods, ", "), s.Method)
		}
		params, msg := scopePathProblem(s.Path)
		if msg != "" {
			f.Add(at+".path", "%s", msg)
		}
		for _, p := range params {
			if _, ok := c.Input.PathParams[p]; !ok {
				f.Add(at+".path", "path parameter '%s' has no value in input.path_params", p)
			}
		}
		label := s.Label()
		if j, dup := seen[label]; dup {
			f.Add(at, "duplicate of scopes[%d] (%s)", j, label)
		} else {
			seen[label] = i
		}
	}
}

func knownMethod(m string) bool {
	for _, k := range Methods {
		if strings.EqualFold(k, m) {
			return true
		}
	}
	return false
}

func checkInput(f *failure.Fields, c Case) {
	in := c.Input
	used := map[string]bool{}
	for _, s := range c.Scopes {
		params, _ := scopePathProblem(s.Path)
		for _, p := range params {
			used[p] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.PathParams)) {
		at := "input.path_params[" + quoteKey(k) + "]"
		if used[k] && in.PathParams[k] == "" {
			f.Add(at, "must not be empty: it fills {%s} in a scope's path", k)
		}
		noNUL(f, at, in.PathParams[k])
	}

	checkQuery(f, "input.query_params", in.QueryParams)
	checkHeaders(f, "input.headers", in.Headers)
	checkBody(f, "input.body", in.Body)
}

func checkQuery(f *failure.Fields, field string, q map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(q)) {
		at := field + "[" + quoteKey(k) + "]"
		if k == "" {
			f.Add(at, "a query parameter needs a name")
		}
		noNUL(f, at, k+q[k])
	}
}

func checkHeaders(f *failure.Fields, field string, h map[string]string) {
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		at := field + "[" + quoteKey(k) + "]"
		canon := http.CanonicalHeaderKey(k)
		switch {
		case !isToken(k):
			f.Add(at, "is not a valid header name: want letters, digits and !#$%%&'*+-.^_`|~")
		case canon == "Content-Length" || canon == "Transfer-Encoding":
			f.Add(at, "is set by the HTTP client and cannot be given")
		}
		if first, dup := seen[strings.ToLower(k)]; dup {
			f.Add(at, "names the same header as %s[%s]: header names ignore case", field, quoteKey(first))
		} else {
			seen[strings.ToLower(k)] = k
		}
		if !validHeaderValue(h[k]) {
			f.Add(at, "the value must not contain control characters (line breaks, NUL)")
		}
	}
}

func checkBody(f *failure.Fields, field string, body json.RawMessage) {
	if !hasValue(body) {
		return
	}
	if !json.Valid(body) {
		f.Add(field, "must be JSON")
	} else if msg := pgtext.JSONBProblem(body); msg != "" {
		f.Add(field, "%s", msg)
	}
}

func checkExpectations(f *failure.Fields, c Case) {
	labels := map[string]bool{}
	for _, s := range c.Scopes {
		labels[s.Label()] = true
	}
	owner := map[string]string{} // normalized label → first key naming it
	for _, k := range slices.Sorted(maps.Keys(c.Input.Expectations)) {
		e := c.Input.Expectations[k]
		at := "input.expectations[" + quoteKey(k) + "]"
		n := normalizeLabel(k)
		if !labels[n] {
			f.Add(at, "no scope %s: a key is a scope's method and path, such as \"GET /users/{id}\"", k)
		}
		if first, dup := owner[n]; dup {
			f.Add(at, "names the same endpoint as input.expectations[%s]", quoteKey(first))
		} else {
			owner[n] = k
		}
		if e.ExpectedStatus != nil && (*e.ExpectedStatus < 100 || *e.ExpectedStatus > 599) {
			f.Add(at+".expected_status", "must be an HTTP status from 100 to 599, got %d", *e.ExpectedStatus)
		}
		if len(e.Conditions) > MaxConditions {
			f.Add(at+".conditions", "at most %d conditions are allowed, got %d", MaxConditions, len(e.Conditions))
		}
		for j, cond := range e.Conditions {
			checkCondition(f, fmt.Sprintf("%s.conditions[%d]", at, j), cond)
		}
	}
}

func checkCondition(f *failure.Fields, at string, c Condition) {
	if c.Path == "" {
		f.Add(at+".path", "is required: a field of the response such as data.items[0].id, or $ for the whole body")
	} else if _, err := ParsePath(c.Path); err != nil {
		f.Add(at+".path", "%s", err.Error())
	} else {
		noNUL(f, at+".path", c.Path)
	}

	ops := strings.Join(Operations, ", ")
	switch {
	case c.Operation == "":
		f.Add(at+".operation", "is required: one of %s", ops)
		return
	case !knownOperation(c.Operation):
		f.Add(at+".operation", "unknown operation %q: want one of %s", c.Operation, ops)
		return
	}

	given := hasValue(c.Value)
	if !needsValue(c.Operation) {
		if given && !isNull(c.Value) {
			f.Add(at+".value", "%s takes no value", c.Operation)
		}
		return
	}
	if !given {
		f.Add(at+".value", "is required for %s", c.Operation)
		return
	}
	if !json.Valid(c.Value) {
		f.Add(at+".value", "must be JSON")
		return
	}
	if msg := pgtext.JSONBProblem(c.Value); msg != "" {
		f.Add(at+".value", "%s", msg)
		return
	}
	if c.Operation == OpMatchesRegex {
		var expr string
		if err := json.Unmarshal(c.Value, &expr); err != nil {
			f.Add(at+".value", "must be a string: a regular expression (RE2 syntax)")
			return
		}
		if n := utf8.RuneCountInString(expr); n > MaxRegexLength {
			f.Add(at+".value", "must be at most %d characters long, got %d", MaxRegexLength, n)
			return
		}
		if _, err := regexp.Compile(expr); err != nil {
			f.Add(at+".value", "is not a valid regular expression (RE2 syntax): %v", err)
			return
		}
		if _, err := regexlimit.Check(expr); err != nil {
			f.Add(at+".value", "%s", err.Error())
		}
	}
}

// baseURLProblem explains why s is not a usable base URL, or returns "".
func baseURLProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return "is required: an http or https URL such as https://api.example.com/v1"
	}
	if len(s) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters long", MaxURLLength)
	}
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "must not contain spaces or control characters"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "is not a URL: " + strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(s)+": ")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an absolute http or https URL"
	case u.User != nil:
		return "must not contain user information: give credentials in input.headers"
	case u.Host == "" || u.Hostname() == "":
		return "must have a host"
	case u.RawQuery != "" || u.ForceQuery:
		return "must not have a query: give query parameters in input.query_params"
	case u.Fragment != "" || strings.Contains(s, "#"):
		return "must not have a fragment"
	}
	return ""
}

// scopePathProblem returns the `{param}` names of a scope's path, and why
// the path is invalid ("" when it is valid).
func scopePathProblem(p string) ([]string, string) {
	switch {
	case p == "":
		return nil, "is required: a path starting with '/', such as /users/{id}"
	case p[0] != '/':
		return nil, "must start with '/'"
	case len(p) > MaxURLLength:
		return nil, fmt.Sprintf("must be at most %d characters long", MaxURLLength)
	case strings.IndexFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return nil, "must not contain spaces or control characters"
	case strings.ContainsAny(p, "?#"):
		return nil, "must not contain '?' or '#': give query parameters in input.query_params"
	}
	var params []string
	seen := map[string]bool{}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '}':
			return nil, fmt.Sprintf("has a '}' without '{' at offset %d", i)
		case '{':
			end := strings.IndexAny(p[i+1:], "{}")
			if end < 0 || p[i+1+end] == '{' {
				return nil, fmt.Sprintf("has a '{' without '}' at offset %d", i)
			}
			name := p[i+1 : i+1+end]
			if !paramName.MatchString(name) {
				return nil, fmt.Sprintf("has an invalid path parameter {%s}: want a name of letters, digits and '_' not starting with a digit", name)
			}
			if !seen[name] {
				seen[name] = true
				params = append(params, name)
			}
			i += end + 1
		}
	}
	return params, ""
}

// validHeaderValue reports whether v holds no control characters but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// quoteKey writes a map key as a JSON string for a field path.
func quoteKey(k string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(k) // a string always encodes
	return strings.TrimRight(buf.String(), "\n")
}

// PostgreSQL stores neither the NUL character in text nor, in jsonb, the
// escape \u0000 or an unpaired UTF-16 surrogate escape.
// nulMessage is pgtext.NULMessage, named here for brevity.
const nulMessage = pgtext.NULMessage

func noNUL(f *failure.Fields, field, s string) {
	if strings.IndexByte(s, 0) >= 0 {
		f.Add(field, nulMessage)
	}
}
