package problem_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/problem"
)

func TestWrite(t *testing.T) {
	withFields := problem.New(http.StatusUnprocessableEntity, "the arguments are invalid")
	withFields.Errors = []failure.FieldError{failure.Field("name", "is required")}
	withID := problem.New(http.StatusInternalServerError, "failed")
	withID.RequestID = "r-1"
	for _, tc := range []struct {
		name   string
		p      problem.Problem
		body   string
		header map[string]string
	}{
		{"declared order, with a newline", problem.New(http.StatusNotFound, "server not found"),
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"server not found"}` + "\n", nil},
		{"sorted, without a newline", problem.New(http.StatusNotFound, "server not found").Sorted(),
			`{"detail":"server not found","status":404,"title":"Not Found","type":"about:blank"}`, nil},
		{"field errors, declared", withFields,
			`{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"the arguments are invalid","errors":[{"field":"name","message":"is required"}]}` + "\n", nil},
		{"field errors, sorted", withFields.Sorted(),
			`{"detail":"the arguments are invalid","errors":[{"field":"name","message":"is required"}],"status":422,"title":"Unprocessable Entity","type":"about:blank"}`, nil},
		{"request id, sorted", withID.Sorted(),
			`{"detail":"failed","request_id":"r-1","status":500,"title":"Internal Server Error","type":"about:blank"}`, nil},
		{"an empty detail is left out when declared", problem.New(http.StatusForbidden, ""),
			`{"type":"about:blank","title":"Forbidden","status":403}` + "\n", nil},
		{"401 challenges", problem.New(http.StatusUnauthorized, "a key is needed"),
			`{"type":"about:blank","title":"Unauthorized","status":401,"detail":"a key is needed"}` + "\n",
			map[string]string{"WWW-Authenticate": `Bearer realm="mockmcp"`}},
		{"503 says when to retry", problem.New(http.StatusServiceUnavailable, "later").Sorted(),
			`{"detail":"later","status":503,"title":"Service Unavailable","type":"about:blank"}`,
			map[string]string{"Retry-After": strconv.Itoa(failure.RetryAfterUnavailable)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			problem.Write(w, tc.p)
			require.Equal(t, tc.p.Status, w.Code)
			require.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
			require.Equal(t, tc.body, w.Body.String())
			require.Equal(t, tc.body, string(tc.p.JSON()))
			for k, v := range tc.header {
				require.Equal(t, v, w.Header().Get(k), k)
			}
			if tc.p.Status != http.StatusUnauthorized {
				require.Empty(t, w.Header().Get("WWW-Authenticate"))
			}
		})
	}
}
