package schema

import (
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/kaptinlin/jsonschema"
)

// explainCompileError words a library compile error for the schema's
// author. Its decoding errors name Go types ("cannot unmarshal JSON number
// into Go jsonschema.SchemaType") and its regexp errors span several lines.
// A decoding error's location is relative to whichever subschema the library
// was decoding, not always to the document, hence "near".
func explainCompileError(err error) string {
	var re *jsonschema.RegexPatternError
	if errors.As(err, &re) {
		return fmt.Sprintf("%s: invalid regular expression %q (RE2 syntax: no lookaround or backreferences): %v",
			where(strings.TrimPrefix(re.Location, "#")), re.Pattern, re.Err)
	}
	var se *jsonv2.SemanticError
	if errors.As(err, &se) {
		near := where(string(se.JSONPointer))
		if kind := kindName(se.JSONKind); kind != "" {
			return fmt.Sprintf("%s is not allowed here (near %s)", kind, near)
		}
		if se.Err != nil {
			return fmt.Sprintf("%v (near %s)", se.Err, near)
		}
	}
	return err.Error()
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return ""
}
