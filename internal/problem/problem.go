// Package problem writes RFC 9457 problem documents
// (application/problem+json): the one form of every HTTP error the service
// answers, on the REST routes and the MCP endpoints alike.
package problem

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// Problem is an RFC 9457 problem document.
type Problem struct {
	Type      string               `json:"type"`
	Title     string               `json:"title"`
	Status    int                  `json:"status"`
	Detail    string               `json:"detail,omitempty"`
	RequestID string               `json:"request_id,omitempty"`
	Errors    []failure.FieldError `json:"errors,omitempty"`

	// sorted: the members go out in alphabetical order, detail always,
	// without a final newline, as the MCP endpoints have always sent them.
	sorted bool
}

// New is the problem of status, with no type of its own (about:blank).
func New(status int, detail string) Problem {
	return Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail}
}

// Sorted is p with its members in alphabetical order, the form of the MCP
// endpoints' documents.
func (p Problem) Sorted() Problem {
	p.sorted = true
	return p
}

var (
	hdrProblem    = []string{"application/problem+json"}
	hdrBearer     = []string{`Bearer realm="mockmcp"`}
	hdrRetryAfter = []string{strconv.Itoa(failure.RetryAfterUnavailable)}
)

// Write answers p: its status, with the headers that status calls for (the
// Bearer challenge with 401, Retry-After with 503), and the document.
func Write(w http.ResponseWriter, p Problem) {
	h := w.Header()
	h["Content-Type"] = hdrProblem
	switch p.Status {
	case http.StatusUnauthorized:
		h["Www-Authenticate"] = hdrBearer
	case http.StatusServiceUnavailable:
		h["Retry-After"] = hdrRetryAfter
	}
	w.WriteHeader(p.Status)
	_, _ = w.Write(p.JSON())
}

// JSON is the document as Write sends it.
func (p Problem) JSON() []byte {
	if p.sorted {
		m := map[string]any{"type": p.Type, "title": p.Title, "status": p.Status, "detail": p.Detail}
		if p.RequestID != "" {
			m["request_id"] = p.RequestID
		}
		if p.Errors != nil {
			m["errors"] = p.Errors
		}
		b, _ := json.Marshal(m) // strings, numbers and field errors always encode
		return b
	}
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(p)
	return b.Bytes()
}
