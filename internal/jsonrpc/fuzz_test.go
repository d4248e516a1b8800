package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonrpc/jsonrpctest"
)

// FuzzParse reads arbitrary bytes as one JSON-RPC message and checks what
// Parse promises: not JSON is -32700, JSON of the wrong shape -32600, a
// valid request has version 2.0, a method and object (or null) params, and
// the id comes back (even with an error) exactly when it is a string or a
// number. Whatever the message, the response written for it is one valid
// JSON-RPC response object whose size is bounded by the message's.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.0e-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":2,"id":"x","method":"ping"}`,
		`{"JSONRPC":"2.0","ID":3,"METHOD":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"id":"dup","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u0000","method":"p\u0000ng"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}",
		`{"jsonrpc":"2.0","id":"\ud800","method":"<script>"}`,
		"\x00",
		``,
		` `,
		`null`,
		`[]`,
		`[1,1,1]`,
		`"hello"`,
		`{"jsonrpc":`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200) + `}`,
		strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		req, err := jsonrpc.Parse(msg)
		if err != nil {
			wire := jsonrpc.Wire(err)
			switch {
			case !wellFormed(msg) && wire.Code != jsonrpc.ErrParse.Code:
				t.Fatalf("invalid JSON or UTF-8 %q: code %d, want -32700", msg, wire.Code)
			case wellFormed(msg) && wire.Code != jsonrpc.ErrInvalidRequest.Code:
				t.Fatalf("valid JSON %q: code %d, want -32600", msg, wire.Code)
			}
		} else {
			if req.JSONRPC != jsonrpc.Version || req.Method == "" || !wellFormed(msg) || hasDuplicate(msg) {
				t.Fatalf("accepted %q as %+v", msg, req)
			}
			if p := bytes.TrimSpace(req.Params); len(p) > 0 && p[0] != '{' && string(p) != "null" {
				t.Fatalf("accepted params %q", p)
			}
		}
		if req.ID != nil && !jsonrpctest.IsID(req.ID) && string(req.ID) != "null" {
			t.Fatalf("Parse(%q) returned the id %q", msg, req.ID)
		}
		if want := sentID(msg); want != nil && !bytes.Equal(bytes.TrimSpace(req.ID), want) {
			t.Fatalf("Parse(%q) returned the id %q, want %q", msg, req.ID, want)
		}

		var resp []byte
		if err != nil {
			resp = jsonrpc.AppendError(nil, req.ID, err)
		} else {
			resp = jsonrpc.AppendResult(nil, req.ID, json.RawMessage(`{}`))
		}
		checkResponse(t, msg, resp, err != nil)
	})
}

// checkResponse checks that resp is one JSON-RPC response to msg, carrying
// its id when msg has a valid one and null otherwise.
func checkResponse(t *testing.T, msg, resp []byte, isError bool) {
	t.Helper()
	if !json.Valid(resp) {
		t.Fatalf("response to %q is not JSON: %q", msg, resp)
	}
	if utf8.Valid(msg) && !utf8.Valid(resp) {
		t.Fatalf("response to UTF-8 %q is not UTF-8: %q", msg, resp)
	}
	if max := 256 + 2*len(msg); len(resp) > max {
		t.Fatalf("response to %d bytes is %d bytes (more than %d)", len(msg), len(resp), max)
	}
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"` // "null" when null, nil when absent
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if err := strictDecode(resp, &r); err != nil {
		t.Fatalf("response %q: %v", resp, err)
	}
	if r.JSONRPC != "2.0" || r.ID == nil || (r.Result != nil) == isError || (r.Error != nil) != isError {
		t.Fatalf("response %q is not a JSON-RPC response", resp)
	}
	if isError && (r.Error.Code == nil || r.Error.Message == nil || *r.Error.Message == "") {
		t.Fatalf("error response %q lacks a code or a message", resp)
	}
	id := []byte(r.ID)
	if want := sentID(msg); want != nil {
		if !bytes.Equal(id, want) {
			t.Fatalf("response %q to %q does not carry the id %s", resp, msg, want)
		}
	} else if string(id) != "null" {
		t.Fatalf("response %q to %q carries an id the message did not have", resp, msg)
	}
}

// wellFormed reports whether msg is JSON of valid UTF-8, which is all
// Parse may refuse with -32700.
func wellFormed(msg []byte) bool { return json.Valid(msg) && utf8.Valid(msg) }

// topMembers is the members of msg's top-level object, names decoded and
// in order, duplicates kept; nil when msg is not a well-formed object.
func topMembers(msg []byte) (names []string, values []json.RawMessage) {
	if !wellFormed(msg) {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return nil, nil
		}
		names, values = append(names, tok.(string)), append(values, v)
	}
	return names, values
}

// hasDuplicate reports whether a member of the request envelope appears
// twice in msg.
func hasDuplicate(msg []byte) bool {
	names, _ := topMembers(msg)
	seen := map[string]bool{}
	for _, n := range names {
		switch n {
		case "jsonrpc", "id", "method", "params":
			if seen[n] {
				return true
			}
			seen[n] = true
		}
	}
	return false
}

// sentID is the id msg carries when msg is a well-formed JSON object
// with one member named exactly "id" whose value is a string or a number;
// nil otherwise.
func sentID(msg []byte) []byte {
	names, values := topMembers(msg)
	var id []byte
	for i, n := range names {
		if n == "id" {
			if id != nil {
				return nil
			}
			id = values[i]
		}
	}
	if !jsonrpctest.IsID(id) {
		return nil
	}
	return bytes.TrimSpace(id)
}

// strictDecode decodes one JSON value, refusing unknown members.
func strictDecode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}
