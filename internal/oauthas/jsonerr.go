package oauthas

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// metadataTypes are what each client metadata field must be, as a caller
// reads it.
var metadataTypes = map[string]string{
	"redirect_uris":  "an array of strings",
	"grant_types":    "an array of strings",
	"response_types": "an array of strings",
}

// describeJSON says what is wrong with a client metadata document (what,
// "the body" or "the document") that did not decode, naming the field,
// in the caller's terms rather than Go's (no struct or type names).
func describeJSON(err error, what string) string {
	var typ *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &typ) && typ.Field == "":
		return what + " must be a JSON object of client metadata"
	case errors.As(err, &typ):
		want, ok := metadataTypes[typ.Field]
		if !ok {
			want = "a string"
		}
		return fmt.Sprintf("%s must be %s", typ.Field, want)
	case errors.As(err, &syntax):
		return fmt.Sprintf("%s is not valid JSON (at byte %d)", what, syntax.Offset)
	case errors.As(err, &tooLarge):
		return fmt.Sprintf("%s is over %d bytes", what, tooLarge.Limit)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return what + " must be a JSON object of client metadata; it is empty or cut short"
	}
	return what + " must be a JSON object of client metadata"
}

// describeForm says what is wrong with a form that did not parse, without
// Go's wording.
func describeForm(err error) string {
	var tooLarge *http.MaxBytesError
	var escape url.EscapeError
	switch {
	case errors.As(err, &tooLarge):
		return fmt.Sprintf("it is over %d bytes", tooLarge.Limit)
	case errors.As(err, &escape):
		return fmt.Sprintf("it has an invalid percent escape %q", string(escape))
	}
	return "it is not a well-formed form (name=value pairs joined by &)"
}
