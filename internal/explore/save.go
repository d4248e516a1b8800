package explore

import (
	"net/url"
	"strings"

	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Save is how a logged request becomes a test case: its name and
// description, and what it expects (the status answered when
// ExpectedStatus is nil).
type Save struct {
	Name, Description string
	ExpectedStatus    *int
	Conditions        []resttest.Condition
}

// TestCase is the test case of the entry e of session v, as s says.
func TestCase(v store.ExploreSession, e store.ExploreEntry, s Save) (resttest.Case, error) {
	c, err := caseFromEntry(v, e)
	if err != nil {
		return resttest.Case{}, err
	}
	c.Name, c.Description = s.Name, s.Description
	exp := resttest.Expectation{ExpectedStatus: s.ExpectedStatus, Conditions: s.Conditions}
	if exp.ExpectedStatus == nil && e.Response != nil {
		status := e.Response.Status
		exp.ExpectedStatus = &status
	}
	c.Input.Expectations = map[string]resttest.Expectation{c.Scopes[0].Label(): exp}
	return c, nil
}

// caseFromEntry rebuilds the request of an entry as a case: the session's
// base URL, the path below it and the query, headers and body as sent.
// Masked header values are left out: the log never held them.
func caseFromEntry(v store.ExploreSession, e store.ExploreEntry) (resttest.Case, error) {
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return resttest.Case{}, err
	}
	base, path := v.BaseURL, strings.TrimPrefix(u.EscapedPath(), escapedPath(v.BaseURL))
	if path == "" {
		// The request went to the base URL itself. A scope path of "/"
		// would call the base with a trailing slash, another URL (a server
		// session's MCP endpoint answers 404 there), so the base's last
		// segment becomes the path.
		base, path = splitLastSegment(base)
	}
	// The path is kept unescaped where that reads better and calls the
	// same URL: not where unescaping would change the URL (%2F becomes a
	// segment break) or give a path a case cannot hold (a space, '?',
	// '#', or braces, which would read as path parameters).
	if unescaped, err := url.PathUnescape(path); err == nil &&
		!strings.ContainsAny(unescaped, "{}?#") &&
		strings.IndexFunc(unescaped, func(r rune) bool { return r <= ' ' || r == 0x7f }) < 0 &&
		(&url.URL{Path: unescaped}).EscapedPath() == path {
		path = unescaped
	}
	c := resttest.Case{BaseURL: base, Scopes: []resttest.Scope{{Method: e.Request.Method, Path: path}},
		Input: resttest.Input{Body: e.Request.Body}}
	if q := u.Query(); len(q) > 0 {
		c.Input.QueryParams = map[string]string{}
		for k, vals := range q {
			if resttest.MaskQuery(k, vals[0]) != vals[0] || vals[0] == "****" {
				continue // masked in the log: the secret was never kept
			}
			c.Input.QueryParams[k] = vals[0]
		}
	}
	for k, val := range e.Request.Headers {
		if resttest.MaskHeader(k, val) != val || strings.Contains(val, "****") {
			continue
		}
		if c.Input.Headers == nil {
			c.Input.Headers = map[string]string{}
		}
		c.Input.Headers[k] = val
	}
	return c, nil
}

// splitLastSegment splits a base URL without a trailing slash into the
// base above its last path segment and that segment ("/mcp"); a base
// without a path gives "/".
func splitLastSegment(base string) (string, string) {
	p := escapedPath(base)
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 && strings.HasSuffix(base, p[i:]) {
		return strings.TrimSuffix(base, p[i:]), p[i:]
	}
	return base, "/"
}

// escapedPath is the escaped path of a URL, "" when it does not parse.
func escapedPath(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}
