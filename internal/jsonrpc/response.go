package jsonrpc

import "bytes"

// Response is a JSON-RPC response a client sends: its answer to a request
// the server sent it. Exactly one of Result and Error is set.
type Response struct {
	ID     []byte // the id as sent: a JSON string or number
	Result []byte
	Error  []byte
}

// ParseResponse reads msg as a response: an object with "jsonrpc": "2.0",
// an id, no method, and exactly one of result and error (an object). It
// reports false for anything else. The members are read in place: they
// point into msg.
func ParseResponse(msg []byte) (Response, bool) {
	var r Response
	version, method, bad := false, false, false
	Members(msg, func(key, value []byte) bool {
		switch {
		case KeyIs(key, "jsonrpc"):
			s, ok := StringValue(value)
			version = ok && string(s) == Version
		case KeyIs(key, "id"):
			r.ID = value
		case KeyIs(key, "result"):
			r.Result = value
		case KeyIs(key, "error"):
			r.Error = value
			bad = bad || len(value) == 0 || value[0] != '{'
		case KeyIs(key, "method"):
			method = true
		}
		return true
	})
	ok := version && !method && !bad && validID(r.ID) && (r.Result == nil) != (r.Error == nil) &&
		(r.Result == nil || len(bytes.TrimSpace(r.Result)) > 0)
	return r, ok
}
