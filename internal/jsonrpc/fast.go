package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// parseCommon is Parse's common case, read in place: a valid request
// whose members are named exactly (no escapes, no other case, none
// repeated), with a plain string jsonrpc and method, an id that is a
// string or a number (or none), and object params (or none). ok is false
// for anything else, which Parse decodes with encoding/json; for the
// messages it takes, it returns what that decoding returns. The id and the
// params are copied, in one allocation, as encoding/json copies them.
func parseCommon(msg []byte) (r Request, ok bool) {
	if !Valid(msg) {
		return r, false
	}
	var version, id, method, params []byte
	ok = true
	set := func(dst *[]byte, v []byte) {
		if *dst != nil {
			ok = false // a repeated member, which encoding/json merges
		}
		*dst = v
	}
	Members(msg, func(k, v []byte) bool {
		switch {
		case bytes.IndexByte(k, '\\') >= 0:
			ok = false
		case string(k) == "jsonrpc":
			set(&version, v)
		case string(k) == "id":
			set(&id, v)
		case string(k) == "method":
			set(&method, v)
		case string(k) == "params":
			set(&params, v)
		case bytes.EqualFold(k, []byte("jsonrpc")) || bytes.EqualFold(k, []byte("id")) ||
			bytes.EqualFold(k, []byte("method")) || bytes.EqualFold(k, []byte("params")):
			ok = false // encoding/json matches member names in any case
		}
		return ok
	})
	if !ok || !bytes.Equal(version, []byte(`"2.0"`)) || !plainString(method) || len(method) == 2 ||
		(id != nil && !validID(id)) || (params != nil && params[0] != '{') {
		return Request{}, false
	}
	r.JSONRPC = Version
	r.Method = methodName(method[1 : len(method)-1])
	if n := len(id) + len(params); n > 0 {
		buf := make([]byte, 0, n)
		buf = append(append(buf, id...), params...)
		if id != nil {
			r.ID = json.RawMessage(buf[:len(id):len(id)])
		}
		if params != nil {
			r.Params = json.RawMessage(buf[len(id):])
		}
	}
	return r, true
}

// plainString reports whether raw is a JSON string without escapes whose
// content is valid UTF-8: one encoding/json decodes to its bytes as they
// are.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	return bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body)
}

// methodName returns the method as a string, without allocating for the
// methods of MCP.
func methodName(b []byte) string {
	switch string(b) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "initialize":
		return "initialize"
	case "notifications/initialized":
		return "notifications/initialized"
	case "ping":
		return "ping"
	case "server/discover":
		return "server/discover"
	case "resources/list":
		return "resources/list"
	case "resources/read":
		return "resources/read"
	case "resources/templates/list":
		return "resources/templates/list"
	case "prompts/list":
		return "prompts/list"
	case "prompts/get":
		return "prompts/get"
	case "completion/complete":
		return "completion/complete"
	case "logging/setLevel":
		return "logging/setLevel"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "tasks/get":
		return "tasks/get"
	case "tasks/result":
		return "tasks/result"
	}
	return string(b)
}
