package mcptransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// The params of the MCP methods every endpoint of the service answers
// (initialize, tools/call, prompts/get), read the one way, with the one
// form of -32602.

// Missing is -32602 for an absent required field, with data.field and
// data.reason.
func Missing(field, reason string) error {
	return jsonrpc.WithData(InvalidParams("missing required field '%s'", field),
		map[string]string{"field": field, "reason": reason})
}

// InvalidParams is -32602 with the message format gives.
func InvalidParams(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{jsonrpc.ErrInvalidParams}, args...)...)
}

// DecodeParams reads params into v; absent params read as {}. A value of
// the wrong type is -32602 naming the field. The members v names are read
// exactly, as the official SDK servers read them: a member given twice is
// -32602 naming it, and one whose name differs only in case ("Name" for
// "name"), which encoding/json would take, is ignored as any unknown
// member is.
func DecodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	params, err := exactParams(params, v)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(params, v); err != nil {
		return InvalidParams("%s", describeDecodeError(err, params))
	}
	return nil
}

// exactParams is params as encoding/json is to read them into v, a
// pointer to a struct: the same bytes when each member the struct names
// appears at most once and no other member's name folds to one of them;
// otherwise a copy without the members whose names only fold to one, or
// Duplicate. Params of the common shape cost one pass and no allocation.
func exactParams(params json.RawMessage, v any) (json.RawMessage, error) {
	names := fieldNames(reflect.TypeOf(v))
	if len(names) == 0 || len(names) > 64 {
		return params, nil
	}
	var seen uint64
	var dup string
	folded := false
	jsonrpc.Members(params, func(k, _ []byte) bool {
		for i, name := range names {
			switch {
			case jsonrpc.KeyIs(k, name):
				if seen&(1<<i) != 0 {
					dup = name
					return false
				}
				seen |= 1 << i
				return true
			case foldsToName(k, name):
				folded = true
			}
		}
		return true
	})
	switch {
	case dup != "":
		return nil, Duplicate(dup)
	case folded:
		return withoutFolded(params, names), nil
	}
	return params, nil
}

// foldsToName reports whether raw key k, escapes decoded, is name in
// another case: a member encoding/json would take for the field name.
func foldsToName(k []byte, name string) bool {
	if bytes.IndexByte(k, '\\') < 0 {
		return foldsTo(k, name)
	}
	d, ok := jsonrpc.StringValue(append(append([]byte{'"'}, k...), '"'))
	return ok && foldsTo(d, name)
}

// withoutFolded copies the object params without the members whose names
// only fold to one of names.
func withoutFolded(params []byte, names []string) json.RawMessage {
	out := []byte{'{'}
	jsonrpc.Members(params, func(k, v []byte) bool {
		for _, name := range names {
			if foldsToName(k, name) {
				return true
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(append(out, k...), `":`...)
		out = append(out, v...)
		return true
	})
	return append(out, '}')
}

// fieldNames is the JSON names of the fields of the struct t points to;
// nil for anything else.
func fieldNames(t reflect.Type) []string {
	if names, ok := fieldNamesCache.Load(t); ok {
		return names.([]string)
	}
	var names []string
	if t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		for f := range t.Elem().Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" || !f.IsExported() || f.Anonymous: // an embedded struct's members are not checked
			case name == "":
				names = append(names, f.Name)
			default:
				names = append(names, name)
			}
		}
	}
	fieldNamesCache.Store(t, names)
	return names
}

// fieldNamesCache holds fieldNames by type: params are decoded into a few
// types, many times.
var fieldNamesCache sync.Map

func describeDecodeError(err error, params []byte) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		if number, ok := strings.CutPrefix(te.Value, "number "); ok && te.Type.Kind() == reflect.Float64 {
			// JSON allows any number (RFC 8259 §6); a value is held as a
			// float64, which this one is beyond.
			return fmt.Sprintf("field '%s' is the number %s, out of the range a value can hold (about ±1.8e308)",
				numberPath(params, te.Field, number), truncateNumber(number))
		}
		return fmt.Sprintf("field '%s' must be %s", te.Field, jsonKind(te.Type.Kind().String()))
	}
	return "params do not have the expected shape"
}

// numberPath is the dotted path, below field of params, of the member
// whose value is the number text: field itself when no member of its
// objects holds it (it is in an array, say).
func numberPath(params []byte, field, number string) string {
	var at []byte
	jsonrpc.Members(params, func(k, v []byte) bool {
		if jsonrpc.KeyIs(k, field) {
			at = v
			return false
		}
		return true
	})
	if path, ok := findNumber(at, number, 0); ok {
		return field + "." + path
	}
	return field
}

// findNumber looks through the members of obj, and of the objects they
// hold, for the value number; depth bounds the search.
func findNumber(obj []byte, number string, depth int) (path string, found bool) {
	if depth > 32 {
		return "", false
	}
	jsonrpc.Members(obj, func(k, v []byte) bool {
		name := string(k)
		if unq, err := strconv.Unquote(`"` + name + `"`); err == nil {
			name = unq
		}
		if string(bytes.TrimSpace(v)) == number {
			path, found = name, true
			return false
		}
		if sub, ok := findNumber(v, number, depth+1); ok {
			path, found = name+"."+sub, true
			return false
		}
		return true
	})
	return path, found
}

// truncateNumber is a number's text cut to 40 bytes, for a message.
func truncateNumber(n string) string {
	if len(n) > 40 {
		return n[:40] + "..."
	}
	return n
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	case "bool":
		return "a boolean"
	}
	return "a " + goKind
}

// ParseInitialize checks the params of initialize and returns the
// protocol version the client asked for.
func ParseInitialize(params json.RawMessage) (string, error) {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
		ClientInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"clientInfo"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := DecodeParams(params, &p); err != nil {
		return "", err
	}
	switch {
	case p.ProtocolVersion == nil:
		return "", Missing("protocolVersion", "initialize needs the protocol version the client speaks")
	case p.ClientInfo == nil:
		return "", Missing("clientInfo", "initialize needs the client's name and version")
	case p.ClientInfo.Name == nil:
		return "", Missing("clientInfo.name", "initialize needs the client's name")
	case p.ClientInfo.Version == nil:
		return "", Missing("clientInfo.version", "initialize needs the client's version")
	}
	return *p.ProtocolVersion, nil
}

// CallParams is what tools/call and prompts/get read from their params;
// A is the arguments' map type.
type CallParams[A any] struct {
	Name      string
	Arguments A
	// ProgressToken is _meta.progressToken as sent; nil when absent.
	ProgressToken json.RawMessage
}

// DecodeCall reads the params of tools/call and prompts/get, {name,
// arguments, _meta}, in one pass. Absent arguments read as {}, so a
// tool's required fields still count; noName is the reason given when the
// name is missing.
//
// This runs on every call: the members are found in place and only the
// arguments are decoded. Anything out of the ordinary (a member named in
// another case, a value of the wrong type, an argument encoding/json
// refuses) takes the full decoding, whose answer, error included, is the
// one given.
func DecodeCall[A ~map[string]V, V any](params json.RawMessage, noName string) (CallParams[A], error) {
	if p, ok := decodeCallInPlace(params, unmarshalArguments[A]); ok {
		return p, nil
	}
	return decodeCall[A](params, noName)
}

// DecodeCallValues is DecodeCall for arguments decoded to values by
// jsonvalue's decoding rule: numbers are float64, except integers beyond
// ±2^53, kept exactly as json.Number. params must be valid JSON, as
// jsonrpc.Parse returns them; in the common case the arguments are read in
// the same pass as the other members, without encoding/json.
func DecodeCallValues(params json.RawMessage, noName string) (CallParams[map[string]any], error) {
	if p, ok := decodeCallInPlace(params, decodeValues); ok {
		return p, nil
	}
	p, err := decodeCall[map[string]any](params, noName)
	if err == nil {
		p.Arguments = exactArguments(params, p.Arguments)
	}
	return p, err
}

// unmarshalArguments decodes arguments with encoding/json.
func unmarshalArguments[A ~map[string]V, V any](raw []byte) (A, bool) {
	var a A
	err := json.Unmarshal(raw, &a)
	return a, err == nil && jsonvalue.FirstDuplicate(raw) == "" // a repeated name: the full decoding refuses it
}

// decodeValues decodes arguments by jsonvalue's decoding rule.
func decodeValues(raw []byte) (map[string]any, bool) {
	v, ok := jsonvalue.DecodeValid(raw)
	m, _ := v.(map[string]any)
	return m, ok && m != nil
}

// exactArguments applies jsonvalue's decoding rule to arguments decoded
// with float64 numbers: when the params hold an integer beyond 2^53 (which
// float64 rounds), the arguments are decoded again, keeping it as a
// json.Number. Params without a run of 16 digits cost one scan.
func exactArguments(params json.RawMessage, args map[string]any) map[string]any {
	if !jsonvalue.HasLongDigitRun(params) {
		return args
	}
	var arguments [1][]byte
	if jsonrpc.Fields(params, argumentsMember, arguments[:]) != "" || len(arguments[0]) == 0 {
		return args
	}
	v, err := jsonvalue.Decode(arguments[0])
	if m, ok := v.(map[string]any); ok && err == nil {
		return m
	}
	return args
}

var argumentsMember = []string{"arguments"}

// callMembers are the members of a call's params that hold more members.
var callMembers = []string{"arguments", "_meta"}

var progressTokenMember = []string{"progressToken"}

// duplicateInCall is Duplicate for a member name repeated inside a
// call's arguments (at any depth) or its _meta's progressToken: the
// scenario that answers must not depend on which of two values a reader
// keeps. params' own members are checked as they are decoded.
func duplicateInCall(params []byte) error {
	var members [2][]byte
	jsonrpc.Fields(params, callMembers, members[:])
	if path := jsonvalue.FirstDuplicate(members[0]); path != "" {
		return Duplicate("arguments." + path)
	}
	var token [1][]byte
	if dup := jsonrpc.Fields(members[1], progressTokenMember, token[:]); dup != "" {
		return Duplicate("_meta." + dup)
	}
	if path := jsonvalue.FirstDuplicate(token[0]); path != "" {
		return Duplicate("_meta.progressToken." + path)
	}
	return nil
}

// decodeCallInPlace is DecodeCall's common case, decoding the arguments
// with decode; ok is false when the params need the full decoding.
func decodeCallInPlace[A ~map[string]V, V any](params json.RawMessage, decode func([]byte) (A, bool)) (p CallParams[A], ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return p, false
	}
	var name, args, meta []byte
	ok = true
	// once records a member, and sends a repeated one (whose decoding
	// encoding/json merges) to the full decoding.
	once := func(dst *[]byte, v []byte) {
		if *dst != nil {
			ok = false
		}
		*dst = v
	}
	jsonrpc.Members(params, func(k, v []byte) bool {
		switch {
		case bytes.IndexByte(k, '\\') >= 0:
			ok = false // an escaped name: left to encoding/json
		case string(k) == "name":
			once(&name, v)
		case string(k) == "arguments":
			once(&args, v)
		case string(k) == "_meta":
			once(&meta, v)
		case foldsTo(k, "name") || foldsTo(k, "arguments") || foldsTo(k, "_meta"):
			ok = false // encoding/json matches member names in any case
		}
		return ok
	})
	n, isString := jsonrpc.StringValue(name)
	if !ok || !isString || (args != nil && args[0] != '{') || (meta != nil && meta[0] != '{') {
		return p, false
	}
	if args != nil {
		if p.Arguments, ok = decode(args); !ok {
			return p, false
		}
	}
	if p.Arguments == nil {
		p.Arguments = make(A)
	}
	var token []byte
	jsonrpc.Members(meta, func(k, v []byte) bool {
		switch {
		case bytes.IndexByte(k, '\\') >= 0 || foldsTo(k, "progressToken"):
			ok = false
		case string(k) == "progressToken":
			once(&token, v)
		}
		return ok
	})
	if len(token) > 0 && (token[0] == '{' || token[0] == '[') && jsonvalue.FirstDuplicate(token) != "" {
		ok = false // a token holding a repeated name (no token should be an object): refused by the full decoding
	}
	p.ProgressToken = token
	p.Name = string(n)
	return p, ok
}

// foldsTo reports whether raw key k is name in another case.
func foldsTo(k []byte, name string) bool {
	return bytes.EqualFold(k, []byte(name)) && string(k) != name // not by length: ſ folds to s
}

// decodeCall is DecodeCall by encoding/json.
func decodeCall[A ~map[string]V, V any](params json.RawMessage, noName string) (CallParams[A], error) {
	var p struct {
		Name      *string `json:"name"`
		Arguments A       `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := DecodeParams(params, &p); err != nil {
		return CallParams[A]{}, err
	}
	if p.Name == nil {
		return CallParams[A]{}, Missing("name", noName)
	}
	if err := duplicateInCall(params); err != nil {
		return CallParams[A]{}, err
	}
	if p.Arguments == nil {
		p.Arguments = make(A)
	}
	return CallParams[A]{Name: *p.Name, Arguments: p.Arguments, ProgressToken: p.Meta.ProgressToken}, nil
}
