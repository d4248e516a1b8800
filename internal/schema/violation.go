package schema

import (
	"strconv"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// Violation is one way a value fails a schema.
//
// A tools/call handler reports a Keyword "required" violation as
// "Invalid params: missing required field '<Field>'" and the rest as details.
// Validate sorts required violations first, so when there is one it is v[0].
type Violation struct {
	// Path is the JSON Pointer (RFC 6901) to the value that failed, "" for
	// the validated value itself. For "required" it is the object lacking
	// the property, as JSON Schema's own output format has it.
	Path string `json:"path"`
	// Field names the same place for people: object members joined with
	// dots, array indexes in brackets ("address.city", "items[0].id"), ""
	// for the validated value itself. For "required" it names the missing
	// property, so it is never empty there. Member names holding "." or "["
	// make it ambiguous; Path is exact.
	Field string `json:"field"`
	// Keyword is the JSON Schema keyword that failed, such as "required",
	// "type", "minimum" or "additionalProperties". It is empty when the
	// value was refused without being checked (nested too deeply, or the
	// validator failed internally).
	Keyword string `json:"keyword"`
	// Message is an English sentence describing the failure.
	Message string `json:"message"`
}

// step is one level of an instance location: an object member or an
// array element.
type step = jsonvalue.Segment

func keyStep(key string) step { return step{Key: key, Index: -1} }

func indexStep(i int) step { return step{Index: i, ArrayOnly: true} }

func pointer(path []step) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.ArrayOnly {
			b.WriteString(strconv.Itoa(s.Index))
		} else {
			b.WriteString(jsonptr.Escape(s.Key))
		}
	}
	return b.String()
}

func dotted(path []step) string { return jsonvalue.Dotted(path) }
