package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	nethttpmw "github.com/oapi-codegen/nethttp-middleware"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// requestValidator checks every request against the OpenAPI document before
// its handler runs, and answers failures as problem+json naming each field.
// The document's servers are cleared so that any host matches. With
// paramsOnly the body is left to the handler.
func requestValidator(spec *openapi3.T, paramsOnly bool) echo.MiddlewareFunc {
	defineFormats.Do(func() {
		// kin-openapi checks no formats unless told; ids in paths and bodies
		// must be UUIDs of any version.
		openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(
			`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`))
		// Only the shape the generated Email type needs, so that it never
		// refuses what the validator let through; handlers check the rest
		// together with the body's other fields.
		openapi3.DefineStringFormatValidator("email", openapi3.NewRegexpFormatValidator(
			`^[^\s@<>]+@[^\s@<>]+$`))
	})
	spec.Servers = nil
	mw := nethttpmw.OapiRequestValidatorWithOptions(spec, &nethttpmw.Options{
		Options: openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
			// Bodies reach handlers byte for byte as sent: stored JSON Schemas
			// keep their numbers and keys. Handlers apply defaults themselves.
			SkipSettingDefaults: true,
			ExcludeResponseBody: true,
			ExcludeRequestBody:  paramsOnly,
		},
		DoNotValidateServers:  true,
		SilenceServersWarning: true,
		DiscardValidatedValue: true,
		ErrorHandlerWithOpts: func(_ context.Context, err error, w http.ResponseWriter, r *http.Request, opts nethttpmw.ErrorHandlerOpts) {
			p, _ := problemFor(validationFailure(err, opts.StatusCode))
			p.RequestID = requestID(r.Context())
			writeProblem(w, p)
		},
	})
	return echo.WrapMiddleware(mw)
}

// validationFailure translates the validator's errors into one failure.
func validationFailure(err error, status int) error {
	switch status {
	case http.StatusNotFound:
		return failure.NotFound("route")
	case http.StatusMethodNotAllowed:
		return echo.ErrMethodNotAllowed
	}
	// A bad parameter or an unreadable body is a 400; a readable body that
	// breaks the schema is a 422. Every problem is listed either way.
	var fields []failure.FieldError
	detail := ""
	for _, e := range flatten(err) {
		var re *openapi3filter.RequestError
		switch {
		case !errors.As(e, &re):
			fields = append(fields, failure.Field("request", "%s", firstLine(e.Error())))
		case re.Parameter != nil:
			detail = "a parameter is invalid"
			fields = append(fields, failure.Field(re.Parameter.Name, "%s", parameterMessage(re)))
		case isUnreadable(re):
			detail = "the request body cannot be read"
			fields = append(fields, failure.Field("body", "%s", bodyReadMessage(re)))
		default:
			schemaErrs := schemaErrors(re.Err)
			if len(schemaErrs) == 0 {
				fields = append(fields, failure.Field("body", "%s", reasonOf(re)))
			}
			for _, se := range schemaErrs {
				fields = append(fields, failure.Field(fieldPath(se), "%s", schemaMessage(se)))
			}
		}
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Field < fields[j].Field })
	if detail != "" {
		return failure.BadRequest(detail, fields...)
	}
	return failure.Invalid(fields...)
}

func isUnreadable(re *openapi3filter.RequestError) bool {
	var pe *openapi3filter.ParseError
	return errors.As(re.Err, &pe) || strings.Contains(re.Reason, "header Content-Type")
}

var defineFormats sync.Once

// flatten lists the errors of a MultiError, recursively, keeping every other
// error (a RequestError that wraps a MultiError included) whole.
func flatten(err error) []error {
	if me, ok := err.(openapi3.MultiError); ok {
		var out []error
		for _, e := range me {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func schemaErrors(err error) []*openapi3.SchemaError {
	var out []*openapi3.SchemaError
	if err == nil {
		return nil
	}
	for _, e := range flatten(err) {
		var se *openapi3.SchemaError
		if !errors.As(e, &se) {
			continue
		}
		if inner := allOfErrors(se); len(inner) > 0 {
			out = append(out, inner...)
			continue
		}
		out = append(out, se)
	}
	return out
}

// allOfErrors are the errors behind a value that broke an allOf (the form
// of a nullable reference, such as a fault), located within the whole
// body; none for any other error. The validator's own words for it
// (`doesn't match all schemas from "allOf"`) name neither the member at
// fault nor why.
func allOfErrors(se *openapi3.SchemaError) []*openapi3.SchemaError {
	if se.SchemaField != "allOf" || se.Origin == nil {
		return nil
	}
	var me openapi3.MultiError
	if !errors.As(se.Origin, &me) {
		return nil
	}
	return schemaErrors(me)
}

// fieldPath renders a schema error's location as `a.b[0].c`. For a missing
// required property the location is the property itself.
func fieldPath(se *openapi3.SchemaError) string {
	ptr := se.JSONPointer()
	if m := unsupported.FindStringSubmatch(se.Reason); m != nil {
		// kin-openapi locates an unknown property at its parent object.
		ptr = append(ptr, m[1])
	}
	return renderPath(ptr)
}

// renderPath renders a location given as keys and array indexes as
// `a.b[0].c`; the empty location is the body.
func renderPath(ptr []string) string {
	var b strings.Builder
	for _, seg := range ptr {
		if _, err := strconv.Atoi(seg); err == nil {
			fmt.Fprintf(&b, "[%s]", seg)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

var unsupported = regexp.MustCompile(`^property "(.+)" is unsupported$`)

// schemaMessage is the reason a value broke the schema, in a short form.
func schemaMessage(se *openapi3.SchemaError) string {
	switch {
	case se.SchemaField == "format" && se.Schema != nil && se.Schema.Format == "int64":
		return "must be an integer from -9223372036854775808 to 9223372036854775807"
	case se.SchemaField == "format" && se.Schema != nil && se.Schema.Format == "int32":
		return "must be an integer from -2147483648 to 2147483647"
	case se.SchemaField == "format" && se.Schema != nil:
		return "must be a valid " + se.Schema.Format
	case unsupported.MatchString(se.Reason):
		return "is not a known field"
	case strings.HasPrefix(se.Reason, "cannot convert json.Number"):
		// A number beyond float64 (1e400): the validator's words are Go's.
		return "is a number out of range: numbers must lie between -1.7976931348623157e308 and 1.7976931348623157e308"
	case (se.SchemaField == "minimum" || se.SchemaField == "maximum") && se.Schema != nil:
		return errtext.Range(se.Schema.Min, se.Schema.Max, se.Value)
	}
	return se.Reason
}

func parameterMessage(re *openapi3filter.RequestError) string {
	if ses := schemaErrors(re.Err); len(ses) > 0 {
		return schemaMessage(ses[0])
	}
	return reasonOf(re)
}

func reasonOf(re *openapi3filter.RequestError) string {
	if re.Reason != "" {
		return re.Reason
	}
	if re.Err != nil {
		return firstLine(re.Err.Error())
	}
	return "invalid"
}

func bodyReadMessage(re *openapi3filter.RequestError) string {
	if strings.Contains(re.Reason, "header Content-Type") {
		return "the body must be sent as application/json"
	}
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) && pe.Cause != nil {
		return "not valid JSON: " + firstLine(pe.Cause.Error())
	}
	return "not valid JSON"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
