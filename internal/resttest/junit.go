package resttest

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"
)

// SuiteReport is a suite run as JUnit renders it: the suite's name, when it
// started and how long it took, and each of its tests in order.
type SuiteReport struct {
	Name       string
	StartedAt  time.Time
	DurationMS float64
	Tests      []TestReport
}

// TestReport is one test of a suite run.
type TestReport struct {
	Name  string // the test case's name
	Run   *Run   // nil: not run (stop_on_failure) → <skipped/>
	Error string // the run could not start (test deleted, invalid) → <error>
}

// JUnit renders a suite run as JUnit XML, the form CI systems (Jenkins,
// GitLab, GitHub test reporters) read: one <testsuites> holding one
// <testsuite> with one <testcase> per endpoint result, named
// "<test name> — <endpoint label>" with the suite's name as its classname,
// so that a CI lists each endpoint. In a testcase:
//
//   - a failed status check or condition gives <failure type="AssertionError">
//     whose text lists the status check and each failed condition (path,
//     operation, expected and actual values, reason), and whose message is
//     its first line;
//   - a request that got no answer gives <error type="RequestError">;
//   - a test that was not run gives one testcase named after the test with
//     <skipped/>, and one that could not start one with
//     <error type="RunError">.
//
// Every testcase carries a <system-out> with the request line and the
// response status. Times are in seconds with three decimals; the suite's
// timestamp is its start in UTC, without a zone (as the JUnit schema has
// it). encoding/xml escapes the text, and replaces characters XML cannot
// hold with U+FFFD.
func JUnit(s SuiteReport) ([]byte, error) {
	suite := junitSuite{junitCounts: junitCounts{
		Name: s.Name,
		Time: seconds(s.DurationMS),
	}}
	if !s.StartedAt.IsZero() {
		suite.Timestamp = s.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	for _, t := range s.Tests {
		for _, tc := range testCases(s.Name, t) {
			suite.Tests++
			switch {
			case tc.Skipped != nil:
				suite.Skipped++
			case tc.Error != nil:
				suite.Errors++
			case tc.Failure != nil:
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, tc)
		}
	}
	doc := junitSuites{junitCounts: suite.junitCounts, Suites: []junitSuite{suite}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	junitCounts
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

// junitCounts are the attributes <testsuites> and <testsuite> share.
type junitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// testCases renders one test of the suite as testcases.
func testCases(suite string, t TestReport) []junitCase {
	if t.Error != "" {
		return []junitCase{{
			Classname: suite, Name: t.Name, Time: seconds(0),
			Error: &junitProblem{Message: t.Error, Type: "RunError", Text: t.Error},
		}}
	}
	if t.Run == nil {
		return []junitCase{{
			Classname: suite, Name: t.Name, Time: seconds(0),
			Skipped: &junitSkipped{Message: "not run"},
		}}
	}
	if len(t.Run.Results) == 0 {
		tc := junitCase{Classname: suite, Name: t.Name, Time: seconds(t.Run.DurationMS)}
		if !t.Run.Passed {
			tc.Failure = &junitProblem{Message: "the test has no endpoints", Type: "AssertionError", Text: "the test has no endpoints"}
		}
		return []junitCase{tc}
	}
	out := make([]junitCase, 0, len(t.Run.Results))
	for _, r := range t.Run.Results {
		tc := junitCase{
			Classname: suite,
			Name:      t.Name + " — " + r.Endpoint,
			SystemOut: systemOut(r),
		}
		if r.Response != nil {
			tc.Time = seconds(r.Response.DurationMS)
		} else {
			tc.Time = seconds(0)
		}
		switch {
		case r.Response == nil:
			tc.Error = &junitProblem{Message: r.Error, Type: "RequestError", Text: r.Error}
		case !r.Passed:
			lines := failureLines(r)
			tc.Failure = &junitProblem{Message: lines[0], Type: "AssertionError", Text: strings.Join(lines, "\n")}
		}
		out = append(out, tc)
	}
	return out
}

// failureLines explains why a result with a response failed, one line per
// failed check; there is at least one line.
func failureLines(r Result) []string {
	var lines []string
	if r.Error != "" {
		lines = append(lines, "error: "+r.Error)
	}
	if !r.StatusPassed {
		want := "2xx"
		if r.ExpectedStatus != nil {
			want = fmt.Sprint(*r.ExpectedStatus)
		}
		lines = append(lines, fmt.Sprintf("status: expected %s, got %d", want, r.Response.Status))
	}
	for i, c := range r.Conditions {
		if c.Passed {
			continue
		}
		line := fmt.Sprintf("condition %d: %s %s: expected %s, actual %s", i, c.Path, c.Operation, clip(string(c.Expected)), clip(string(c.Actual)))
		if c.Message != "" {
			line += " (" + c.Message + ")"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = append(lines, "failed")
	}
	return lines
}

func systemOut(r Result) string {
	out := r.Request.Method + " " + r.Request.URL
	if r.Response != nil {
		out += fmt.Sprintf("\n→ %d (%.1f ms)", r.Response.Status, r.Response.DurationMS)
	} else {
		out += "\n→ no response: " + r.Error
	}
	return out
}

func seconds(ms float64) string {
	return fmt.Sprintf("%.3f", ms/1000)
}

// maxValueText bounds a value quoted in a failure's text.
const maxValueText = 500

// clip shortens a long value for a failure's text.
func clip(s string) string {
	if len(s) <= maxValueText {
		return s
	}
	return strings.ToValidUTF8(s[:maxValueText], "") + "…"
}
