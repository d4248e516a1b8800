package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// TestProblemTellsForeignErrorsInJSONWords: a handler that quotes a
// decoder's or the network's error in a failure shows the caller the field
// in JSON's words, and no address the service dialed: the problem document
// is the one place every REST answer (and every tool result of the service
// endpoint) passes.
func TestProblemTellsForeignErrorsInJSONWords(t *testing.T) {
	var reg struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	decodeErr := json.Unmarshal([]byte(`{"redirect_uris": 1}`), &reg)
	require.Error(t, decodeErr)
	p, known := problemFor(failure.Invalid(failure.Field("body", "%v", decodeErr), failure.Field("name", "must not be blank")))
	require.True(t, known)
	require.Equal(t, []failure.FieldError{
		{Field: "body", Message: "redirect_uris must be an array, not a number"},
		{Field: "name", Message: "must not be blank"},
	}, p.Errors)

	p, _ = problemFor(failure.BadRequest(`the document could not be fetched: Get "https://x.example/d": dial tcp 10.0.0.7:443: i/o timeout`))
	require.NotContains(t, p.Detail, "10.0.0.7")
	require.NotContains(t, p.Detail, "dial tcp")

	p, _ = problemFor(echo.NewHTTPError(http.StatusBadRequest, "json: cannot unmarshal string into Go value of type int"))
	require.Equal(t, "must be a number, not a string", p.Detail)

	p, _ = problemFor(errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"))
	require.Equal(t, http.StatusInternalServerError, p.Status)
	require.NotContains(t, p.Detail, "5432")
}
