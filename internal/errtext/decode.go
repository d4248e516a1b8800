package errtext

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Decode says what a decoder (encoding/json, a YAML decoder) found wrong
// with a document, in the document's terms: the field at fault when the
// error names one ("" otherwise), and a message such as "must be an array,
// not a number". It never repeats a Go type or struct name. It is "", ""
// for a nil err.
func Decode(err error) (field, msg string) {
	if err == nil {
		return "", ""
	}
	var (
		typeErr   *json.UnmarshalTypeError
		syntaxErr *json.SyntaxError
	)
	switch {
	case errors.As(err, &typeErr):
		return typeErr.Field, "must be " + JSONKind(typeErr.Type) + ", not " + jsonValue(typeErr.Value)
	case errors.As(err, &syntaxErr):
		return "", "is not valid JSON (at byte " + strconv.FormatInt(syntaxErr.Offset, 10) + ")"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "", "is not valid JSON (it ends early)"
	case errors.Is(err, io.EOF):
		return "", "is empty"
	}
	text := err.Error()
	if m := unknownField.FindStringSubmatch(text); m != nil {
		return m[1], "is not allowed"
	}
	if m := yamlType.FindStringSubmatch(text); m != nil {
		line := ""
		if l := yamlLine.FindStringSubmatch(text); l != nil {
			line = "line " + l[1] + ": "
		}
		return "", line + yamlKind(m[1]) + " is not allowed here, " + goKind(m[2]) + " is expected"
	}
	if m := yamlSyntax.FindStringSubmatch(text); m != nil {
		return "", "is not valid YAML (line " + m[1] + ")"
	}
	if strings.Contains(text, "yaml") {
		return "", "is not valid YAML"
	}
	return "", "is not a valid document"
}

var (
	// `json: unknown field "name"` (Decoder.DisallowUnknownFields).
	unknownField = regexp.MustCompile(`^json: unknown field "([^"]*)"`)
	// "line 3: cannot unmarshal !!str `abc` into int".
	yamlType = regexp.MustCompile("cannot unmarshal !!(\\w+) (?:`[^`]*` )?into (\\S+)")
	yamlLine = regexp.MustCompile(`line (\d+): cannot unmarshal`)
	// "yaml: line 3: did not find expected key".
	yamlSyntax = regexp.MustCompile(`yaml: line (\d+):`)
)

// JSONKind is what a value of Go type t is in JSON: "a string", "an
// array", ...; "another type" for a type JSON has no value of (a nil t
// included). Decoding messages of other packages name kinds through it,
// so that a field is described the same way everywhere.
func JSONKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonValue is the JSON kind encoding/json reports ("number", "string",
// "array", "object", "bool"; "number 300" for a number out of range) as a
// noun phrase, without the value.
func jsonValue(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "number":
		if strings.Contains(v, " ") {
			return "this number (out of range, or not whole)"
		}
		return "a number"
	case "string":
		return "a string"
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "bool":
		return "a boolean"
	case "null":
		return "null"
	}
	return "this value"
}

// yamlKind names a YAML tag's kind ("str", "int", "seq", ...).
func yamlKind(tag string) string {
	switch tag {
	case "str", "binary":
		return "a string"
	case "int", "float":
		return "a number"
	case "bool":
		return "a boolean"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "null"
	case "timestamp":
		return "a timestamp"
	}
	return "this value"
}

// goKind names what a Go type written in a YAML error is ("int",
// "[]string", "map[string]interface {}", "main.T") in the document's
// terms.
func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "interface"):
		return "a mapping"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case strings.Contains(t, "."), strings.HasPrefix(t, "*"):
		return "a mapping"
	}
	return "another type"
}
