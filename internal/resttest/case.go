// Package resttest holds REST API test cases and runs them: it builds each
// endpoint's request from the case's input, sends it, parses the answer
// (JSON, or the data lines of an event stream) and checks the expected
// status and field conditions, recording what it sent, what came back and
// why each check passed or failed.
//
// The types here are also the wire form of the REST API's test objects
// (the OpenAPI document points at them with x-go-type), so field names and
// JSON tags are the contract.
package resttest

import (
	"encoding/json"
	"strings"
	"time"
)

// Case is a REST API test case: the endpoints it tests (scopes) and the
// input every request is built from.
type Case struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	BaseURL     string  `json:"base_url"`
	Scopes      []Scope `json:"scopes"`
	Input       Input   `json:"input"`
}

// Scope is one endpoint a case tests: a method and a path whose `{param}`
// segments are filled from Input.PathParams.
type Scope struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// Label names the endpoint in expectations and results: "GET /users/{id}".
func (s Scope) Label() string { return strings.ToUpper(s.Method) + " " + s.Path }

// Input is what every request of a case is built from, and what each
// endpoint is expected to answer, keyed by endpoint label.
type Input struct {
	PathParams   map[string]string      `json:"path_params,omitempty"`
	QueryParams  map[string]string      `json:"query_params,omitempty"`
	Headers      map[string]string      `json:"headers,omitempty"`
	Body         json.RawMessage        `json:"body,omitempty"`
	Expectations map[string]Expectation `json:"expectations,omitempty"`
}

// Expectation is what one endpoint must answer. Without an expected status
// any 2xx status passes.
type Expectation struct {
	ExpectedStatus *int        `json:"expected_status,omitempty"`
	Conditions     []Condition `json:"conditions,omitempty"`
}

// Condition checks one field of the parsed response: Path addresses it
// (dots, `[n]` or `.n` for array indexes), Operation is one of Operations,
// and Value is the expected value where the operation needs one.
type Condition struct {
	Path      string          `json:"path"`
	Operation string          `json:"operation"`
	Value     json.RawMessage `json:"value,omitempty"`
}

// Run is the record of one run of a case.
type Run struct {
	Passed     bool      `json:"passed"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS float64   `json:"duration_ms"`
	Results    []Result  `json:"results"`
}

// Result is what happened at one endpoint.
type Result struct {
	Endpoint string  `json:"endpoint"`
	Request  Request `json:"request"`
	// Response is nil when none came back; Error then says why (a refused
	// target, a timeout, a connection failure).
	Response       *Response         `json:"response"`
	Error          string            `json:"error,omitempty"`
	ExpectedStatus *int              `json:"expected_status"`
	StatusPassed   bool              `json:"status_passed"`
	Conditions     []ConditionResult `json:"conditions"`
	Passed         bool              `json:"passed"`
}

// Request is a request as sent, with secret header values masked.
type Request struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

// Response is a response as received. Body is the parsed JSON when the
// body is JSON (or an event stream whose data lines are), else the text as
// a JSON string; at most the runner's size cap of it is kept.
type Response struct {
	Status        int               `json:"status"`
	Headers       map[string]string `json:"headers"`
	Body          json.RawMessage   `json:"body"`
	BodyTruncated bool              `json:"body_truncated"`
	DurationMS    float64           `json:"duration_ms"`
}

// ConditionResult is one condition checked: Expected is the condition's
// value (null for operations without one), Actual the value found at the
// path (null when the path does not exist).
type ConditionResult struct {
	Path      string          `json:"path"`
	Operation string          `json:"operation"`
	Expected  json.RawMessage `json:"expected"`
	Actual    json.RawMessage `json:"actual"`
	Passed    bool            `json:"passed"`
	Message   string          `json:"message,omitempty"`
}
