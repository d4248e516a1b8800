package resttest

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The shape a CI reads back. The attributes <testsuites> and <testsuite>
// share are read as junitCounts; TestJUnit checks their names in the
// raw XML.
type xSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []struct {
		junitCounts
		Timestamp string  `xml:"timestamp,attr"`
		Cases     []xCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type xCase struct {
	Classname string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Time      string    `xml:"time,attr"`
	Failure   *xProblem `xml:"failure"`
	Error     *xProblem `xml:"error"`
	Skipped   *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	SystemOut string `xml:"system-out"`
}

type xProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func parseJUnit(t *testing.T, b []byte) xSuites {
	t.Helper()
	require.True(t, strings.HasPrefix(string(b), `<?xml version="1.0" encoding="UTF-8"?>`+"\n<testsuites "), string(b))
	var s xSuites
	require.NoError(t, xml.Unmarshal(b, &s), string(b))
	return s
}

func TestJUnit(t *testing.T) {
	passed := Result{
		Endpoint:       "GET /users/{id}",
		Request:        Request{Method: "GET", URL: "https://api.example.com/users/1"},
		Response:       &Response{Status: 200, DurationMS: 12.3456},
		ExpectedStatus: status(200), StatusPassed: true, Passed: true,
		Conditions: []ConditionResult{{Path: "id", Operation: "eq", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`1`), Passed: true}},
	}
	failed := Result{
		Endpoint:       "POST /users",
		Request:        Request{Method: "POST", URL: "https://api.example.com/users"},
		Response:       &Response{Status: 500, DurationMS: 1500},
		ExpectedStatus: status(201),
		Conditions: []ConditionResult{
			{Path: "name", Operation: "eq", Expected: json.RawMessage(`"Ada"`), Actual: json.RawMessage(`"Bob"`), Message: "not equal to the expected value"},
			{Path: "id", Operation: "exists", Expected: json.RawMessage(`null`), Actual: json.RawMessage(`7`), Passed: true},
			{Path: "tags", Operation: "isArray", Expected: json.RawMessage(`null`), Actual: json.RawMessage(`null`), Message: "path not found"},
		},
	}
	statusOnly := Result{
		Endpoint: "DELETE /users/{id}",
		Request:  Request{Method: "DELETE", URL: "https://api.example.com/users/1"},
		Response: &Response{Status: 404, DurationMS: 2},
	}
	noAnswer := Result{
		Endpoint: "GET /health",
		Request:  Request{Method: "GET", URL: "https://api.example.com/health"},
		Error:    "dial tcp 10.0.0.1:443: connect: connection refused",
		Conditions: []ConditionResult{
			{Path: "ok", Operation: "exists", Expected: json.RawMessage(`null`), Actual: json.RawMessage(`null`), Message: "no response"},
		},
	}
	report := SuiteReport{
		Name:       `smoke <&"> suite`,
		StartedAt:  time.Date(2025, 3, 1, 13, 4, 5, 0, time.FixedZone("CET", 3600)),
		DurationMS: 2345.6789,
		Tests: []TestReport{
			{Name: "users", Run: &Run{Results: []Result{passed, failed, statusOnly}}},
			{Name: "health", Run: &Run{Results: []Result{noAnswer}}},
			{Name: "later"},
			{Name: `gone <"x"> & co`, Error: "the test was deleted"},
		},
	}
	b, err := JUnit(report)
	require.NoError(t, err)
	s := parseJUnit(t, b)

	counts := junitCounts{Name: `smoke <&"> suite`, Tests: 6, Failures: 2, Errors: 2, Skipped: 1, Time: "2.346"}
	require.Equal(t, counts, s.junitCounts)
	require.Len(t, s.Suites, 1)
	suite := s.Suites[0]
	require.Equal(t, counts, suite.junitCounts)
	require.Equal(t, "2025-03-01T12:04:05", suite.Timestamp)
	require.Len(t, suite.Cases, 6)

	for _, c := range suite.Cases {
		require.Equal(t, `smoke <&"> suite`, c.Classname)
	}

	c := suite.Cases[0]
	require.Equal(t, "users — GET /users/{id}", c.Name)
	require.Equal(t, "0.012", c.Time)
	require.Nil(t, c.Failure)
	require.Nil(t, c.Error)
	require.Nil(t, c.Skipped)
	require.Equal(t, "GET https://api.example.com/users/1\n→ 200 (12.3 ms)", c.SystemOut)

	c = suite.Cases[1]
	require.Equal(t, "users — POST /users", c.Name)
	require.Equal(t, "1.500", c.Time)
	require.NotNil(t, c.Failure)
	require.Equal(t, "AssertionError", c.Failure.Type)
	require.Equal(t, "status: expected 201, got 500", c.Failure.Message)
	require.Equal(t, strings.Join([]string{
		"status: expected 201, got 500",
		`condition 0: name eq: expected "Ada", actual "Bob" (not equal to the expected value)`,
		"condition 2: tags isArray: expected null, actual null (path not found)",
	}, "\n"), c.Failure.Text)
	require.NotContains(t, c.Failure.Text, "condition 1")

	c = suite.Cases[2]
	require.Equal(t, "users — DELETE /users/{id}", c.Name)
	require.Equal(t, "status: expected 2xx, got 404", c.Failure.Text)

	c = suite.Cases[3]
	require.Equal(t, "health — GET /health", c.Name)
	require.Nil(t, c.Failure)
	require.NotNil(t, c.Error)
	require.Equal(t, "dial tcp 10.0.0.1:443: connect: connection refused", c.Error.Message)
	require.Equal(t, "0.000", c.Time)
	require.Contains(t, c.SystemOut, "no response: dial tcp")

	c = suite.Cases[4]
	require.Equal(t, "later", c.Name)
	require.NotNil(t, c.Skipped)
	require.Nil(t, c.Failure)
	require.Nil(t, c.Error)

	c = suite.Cases[5]
	require.Equal(t, `gone <"x"> & co`, c.Name)
	require.NotNil(t, c.Error)
	require.Equal(t, "the test was deleted", c.Error.Message)
	require.Equal(t, "RunError", c.Error.Type)

	require.Contains(t, string(b), `<testsuites name="smoke &lt;&amp;&#34;&gt; suite" tests="6" failures="2" errors="2" skipped="1" time="2.346">`)
	require.Contains(t, string(b), `<testsuite name="smoke &lt;&amp;&#34;&gt; suite" tests="6" failures="2" errors="2" skipped="1" time="2.346" timestamp="2025-03-01T12:04:05">`)

	// The raw XML escapes what it must.
	require.Contains(t, string(b), `name="smoke &lt;&amp;&#34;&gt; suite"`)
	require.NotContains(t, string(b), `<&"`)
}

func TestJUnitFromARun(t *testing.T) {
	srv, r := testRunner(t)
	run := r.Run(t.Context(), nameCase("json", srv.URL, "<Bob & Eve>", Scope{"GET", "/text"}))
	b, err := JUnit(SuiteReport{Name: "s", StartedAt: run.StartedAt, DurationMS: run.DurationMS, Tests: []TestReport{{Name: "json", Run: &run}}})
	require.NoError(t, err)
	s := parseJUnit(t, b)
	require.Equal(t, 2, s.Tests)
	require.Equal(t, 1, s.Failures)
	cs := s.Suites[0].Cases
	require.Equal(t, "json — GET /json", cs[0].Name)
	require.Contains(t, cs[0].Failure.Text, `condition 0: name eq: expected "<Bob & Eve>", actual "Ada"`)
	require.Nil(t, cs[1].Failure)
}

func TestJUnitEmptyAndInvalidCharacters(t *testing.T) {
	b, err := JUnit(SuiteReport{Name: "empty"})
	require.NoError(t, err)
	s := parseJUnit(t, b)
	require.Equal(t, 0, s.Tests)
	require.Empty(t, s.Suites[0].Timestamp)
	require.Empty(t, s.Suites[0].Cases)

	// Characters XML 1.0 cannot hold (a NUL from a response) still give a
	// document a parser accepts.
	b, err = JUnit(SuiteReport{Name: "x", Tests: []TestReport{{Name: "bad\x00name\x1b", Error: "boom\x07"}}})
	require.NoError(t, err)
	s = parseJUnit(t, b)
	require.Equal(t, "bad\uFFFDname\uFFFD", s.Suites[0].Cases[0].Name)
}
