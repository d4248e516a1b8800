package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/pgtext"
)

// Input the OpenAPI document allows but the service cannot take is refused
// here, in the words of the API, before a handler runs: text PostgreSQL
// would refuse (textGuard), and values a request type cannot hold
// (bodySerializer). Neither ever shows a caller a Go type or a database
// error.

// textGuard refuses path parameters, query parameters and strings of a
// JSON body that PostgreSQL cannot store or compare as text (a NUL, bytes
// that are not UTF-8, an unpaired surrogate escape), naming each one. It
// runs after the request validator, on a body limitBody has buffered.
func textGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var params []failure.FieldError
		for i, name := range c.ParamNames() {
			v := c.ParamValues()[i]
			if u, err := url.PathUnescape(v); err == nil {
				v = u // as the handler gets it
			}
			if msg := pgtext.TextProblem(v); msg != "" {
				params = append(params, failure.Field(name, "%s", msg))
			}
		}
		for name, values := range c.QueryParams() {
			for _, v := range values {
				if msg := pgtext.TextProblem(name + v); msg != "" {
					params = append(params, failure.Field(name, "%s", msg))
					break
				}
			}
		}
		if len(params) > 0 {
			sort.SliceStable(params, func(i, j int) bool { return params[i].Field < params[j].Field })
			return failure.BadRequest("a parameter is invalid", params...)
		}
		req := c.Request()
		if req.Body == nil || !isJSON(req.Header.Get("Content-Type")) {
			return next(c)
		}
		raw, err := io.ReadAll(req.Body)
		if err != nil {
			return failure.BadRequest("the request body could not be read")
		}
		req.Body = io.NopCloser(bytes.NewReader(raw))
		var fields []failure.FieldError
		for _, p := range pgtext.JSONProblems(raw) {
			fields = append(fields, failure.Field(renderPath(p.Path), "%s", p.Message))
		}
		if len(fields) > 0 {
			return failure.Invalid(fields...)
		}
		return next(c)
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// bodySerializer is the Echo instance's JSON serializer. It encodes as
// Echo's default does; it decodes request bodies into the generated request
// types with the errors translated: a value the type cannot hold (a number
// out of range, mostly, which the document's integer type allows) is a 422
// naming the field and what it must be.
type bodySerializer struct {
	echo.DefaultJSONSerializer
	spec *openapi3.T
	log  *slog.Logger
}

// Deserialize decodes the request body into i.
func (s bodySerializer) Deserialize(c echo.Context, i any) error {
	err := json.NewDecoder(c.Request().Body).Decode(i)
	if err == nil {
		return nil
	}
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
	)
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return failure.Invalid(failure.Field(field, "%s", s.mustBe(c, te)))
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return failure.BadRequest("the request body cannot be read", failure.Field("body", "not valid JSON"))
	}
	// A value's own decoder refused it (an id, a time, an e-mail address):
	// the validator checked those formats, so this is rare, and the
	// decoder's words are Go's, so they are logged, not shown.
	s.log.WarnContext(c.Request().Context(), "request body refused by its decoder", "request_id",
		requestID(c.Request().Context()), "route", c.Path(), "error", err.Error())
	return failure.Invalid(failure.Field("body", "holds a value of the wrong form (an id, a date-time or an e-mail address)"))
}

// mustBe says what the field of a type error must be, in the document's
// terms: its JSON type and, for integers, the range both the document and
// the request type allow.
func (s bodySerializer) mustBe(c echo.Context, te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "has the wrong type"
	}
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		lo, hi := integerRange(t)
		if sc := s.fieldSchema(c, te.Field); sc != nil {
			if sc.Min != nil && *sc.Min > lo {
				lo = math.Ceil(*sc.Min)
			}
			if sc.Max != nil && *sc.Max < hi {
				hi = math.Floor(*sc.Max)
			}
		}
		return fmt.Sprintf("must be an integer between %s and %s", formatInt(lo), formatInt(hi))
	case reflect.Float32, reflect.Float64:
		return "must be a number between -1.7976931348623157e308 and 1.7976931348623157e308"
	case reflect.Bool:
		return "must be true or false"
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return "must be " + errtext.JSONKind(t)
	}
	return "has the wrong type"
}

// integerRange is the range of an integer kind, as float64: exact for
// every bound up to 2^53, and printed exactly by formatInt for the 64-bit
// bounds.
func integerRange(t reflect.Type) (lo, hi float64) {
	switch t.Kind() {
	case reflect.Int8:
		return math.MinInt8, math.MaxInt8
	case reflect.Int16:
		return math.MinInt16, math.MaxInt16
	case reflect.Int32:
		return math.MinInt32, math.MaxInt32
	case reflect.Int, reflect.Int64:
		return math.MinInt64, math.MaxInt64
	case reflect.Uint8:
		return 0, math.MaxUint8
	case reflect.Uint16:
		return 0, math.MaxUint16
	case reflect.Uint32:
		return 0, math.MaxUint32
	}
	return 0, math.MaxUint64
}

func formatInt(f float64) string {
	switch {
	case f >= math.MaxInt64:
		return strconv.FormatUint(math.MaxInt64, 10)
	case f <= math.MinInt64:
		return strconv.FormatInt(math.MinInt64, 10)
	}
	return strconv.FormatFloat(f, 'f', 0, 64)
}

// fieldSchema finds the schema of a body field (a dotted path, as
// encoding/json reports it, array indexes left out) in the request body
// schema of the route's operation, or returns nil.
func (s bodySerializer) fieldSchema(c echo.Context, field string) *openapi3.Schema {
	op := operationAt(s.spec, c.Request().Method, c.Path())
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	sc := mt.Schema.Value
	for _, name := range strings.Split(field, ".") {
		sc = property(sc, name)
		if sc == nil {
			return nil
		}
	}
	for sc != nil && sc.Items != nil && sc.Type.Is("array") {
		sc = sc.Items.Value
	}
	return sc
}

// property is the schema of member name of objects of sc, looking through
// arrays and allOf.
func property(sc *openapi3.Schema, name string) *openapi3.Schema {
	for sc != nil && sc.Items != nil && sc.Type.Is("array") {
		sc = sc.Items.Value
	}
	if sc == nil {
		return nil
	}
	if p := sc.Properties[name]; p != nil {
		return p.Value
	}
	for _, sub := range sc.AllOf {
		if p := property(sub.Value, name); p != nil {
			return p
		}
	}
	return nil
}
