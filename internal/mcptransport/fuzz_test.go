package mcptransport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonrpc/jsonrpctest"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// fuzzTarget is a small in-memory endpoint: echo answers its params,
// fail fails as the service would on a fault of its own, refuse answers an
// error with data, and anything else is an unknown method.
type fuzzTarget struct{}

func (fuzzTarget) Call(_ context.Context, _ *mcptransport.Exchange, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "echo":
		if len(params) == 0 {
			return json.RawMessage(`{}`), nil
		}
		var out bytes.Buffer
		if err := json.Compact(&out, params); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	case "fail":
		return nil, errors.New("the database is gone")
	case "refuse":
		return nil, jsonrpc.WithData(fmt.Errorf("%w: no", jsonrpc.ErrInvalidParams), map[string]string{"field": "x"})
	}
	return nil, fmt.Errorf("%w: %s", jsonrpc.ErrMethodNotFound, method)
}

// fuzzMaxBody is the body limit of the fuzzed transport: small, so that
// bodies over it are found too.
const fuzzMaxBody = 64 << 10

// FuzzTransport posts an arbitrary body to a Transport (a single message, a
// batch, or anything else) and checks the reply: the transport never
// panics; it answers 202 with nothing when every message was a
// notification; otherwise every reply is a valid JSON-RPC response, framed
// as SSE events or as plain JSON (one object, or an array of them); each
// request that has a valid id gets exactly one response carrying it, every
// other message that is not a notification one response with a null id
// (or a batch is refused as a whole with one -32600); and the reply's size
// is bounded by the body's.
func FuzzTransport(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2,{"b":null}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"fail"}`,
		`{"jsonrpc":"2.0","id":2,"method":"refuse"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"1","method":"fail"},7]`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","id":1,"method":"echo"}]`,
		`[]`,
		`[ ]`,
		`[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]`,
		"[" + strings.Repeat("1,", 299) + "1]",
		"[" + strings.Repeat(`{"jsonrpc":"2.0","id":0,"method":"echo"},`, 150) + "1]",
		`[[]]`,
		`[null,{},"",true]`,
		`[1] x`,
		`{"jsonrpc":"2.0","id":null,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":-123456789012345678901234567890.5e-7,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":"\u0000","method":"\u0000"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xc3\x28\"}",
		"\x00",
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}",
		` 	
 [{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"<\n>"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":` + strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 500) + `}`,
		strings.Repeat(`[`, 20000),
		``,
		`{"JSONRPC":"2.0","ID":18,"METHOD":"ping"}`,
		`{"JSONRPC":"2.0","METHOD":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":3,"method":"echo","method":"fail"}`,
		`{"jsonrpc":"2.0","\u0069d":4,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":5,"method":"echo","params":{"arguments":{"x":1},"arguments":{"y":2}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"echo","params":{"arguments":{"note":"io.modelcontextprotocol/protocolVersion"}}}`,
		"[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"echo\",\"params\":{\"a\":\"\xff\"}},{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"echo\"}]",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	tr := mcptransport.Transport{MaxBodyBytes: fuzzMaxBody}
	f.Fuzz(func(t *testing.T, body []byte, sse bool) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sse {
			req.Header.Set("Accept", "application/json, text/event-stream")
		} else {
			req.Header.Set("Accept", "application/json")
		}
		w := httptest.NewRecorder()
		answered := 0
		var p mcptransport.Payload
		if tr.Read(w, req, &p) {
			answered = tr.Serve(w, req, fuzzTarget{}, &p)
			p.Release()
		}
		out := w.Body.Bytes()

		if len(body) > fuzzMaxBody {
			if w.Code != http.StatusRequestEntityTooLarge || answered != 0 {
				t.Fatalf("a body of %d bytes: status %d, %d answers", len(body), w.Code, answered)
			}
			return
		}
		if max := 1024 + 128*len(body); len(out) > max {
			t.Fatalf("a body of %d bytes got a reply of %d bytes (more than %d)", len(body), len(out), max)
		}
		want := expectedReplies(body)
		if w.Code == http.StatusAccepted {
			if len(out) != 0 || answered != 0 {
				t.Fatalf("202 with %d answers and body %q", answered, out)
			}
			if want.total() != 0 {
				t.Fatalf("202 for %q, which needs %d responses", body, want.total())
			}
			return
		}
		if w.Code != http.StatusOK && w.Code != http.StatusBadRequest {
			t.Fatalf("status %d for %q: %s", w.Code, body, out)
		}
		var msgs [][]byte
		if sse {
			require.Truef(t, w.Header().Get("Content-Type") == "text/event-stream", "Content-Type %q", w.Header().Get("Content-Type"))
			msgs = sseEvents(t, out)
		} else {
			require.Truef(t, w.Header().Get("Content-Type") == "application/json", "Content-Type %q", w.Header().Get("Content-Type"))
			msgs = jsonReplies(t, out)
		}
		require.Truef(t, answered == len(msgs), "Serve reported %d answers, the reply holds %d", answered, len(msgs))
		got := map[string]int{}
		for _, m := range msgs {
			got[responseID(t, m)]++
		}
		if maps.Equal(got, want.ids) {
			return
		}
		// A batch may also be refused as a whole, with one -32600.
		require.Truef(t, want.messages > 1 && len(msgs) == 1 && got["null"] == 1 && refusedAsWhole(msgs[0]),
			"responses by id %v, want %v (body %q, reply %q)", got, want.ids, body, out)
	})
}

// replies is how many responses a body needs, by response id (the id's
// JSON, "null" for the responses to messages without a valid id).
type replies struct {
	ids map[string]int
	// messages is the length of a batch, 0 for a single message.
	messages int
}

func (r replies) total() int {
	n := 0
	for _, c := range r.ids {
		n += c
	}
	return n
}

// expectedReplies works out, independently of the transport, which
// responses body needs.
func expectedReplies(body []byte) replies {
	r := replies{ids: map[string]int{}}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if id, ok := expectedReply(body); ok {
			r.ids[id]++
		}
		return r
	}
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
		r.ids["null"]++ // a parse error, or an empty batch
		return r
	}
	r.messages = len(batch)
	for _, msg := range batch {
		if id, ok := expectedReply(msg); ok {
			r.ids[id]++
		}
	}
	return r
}

// expectedReply is the id of the response msg needs, "null" when it has no
// valid id, and false for a notification: a well-formed request without an
// id. Member names are exact, and a member given twice makes the message
// invalid (its id is echoed unless the id is what is repeated); a message
// that is not JSON of valid UTF-8 is a parse error.
func expectedReply(msg []byte) (string, bool) {
	if !json.Valid(msg) || !utf8.Valid(msg) {
		return "null", true
	}
	members, dup := exactMembers(msg)
	if members == nil {
		return "null", true
	}
	if id, ok := members["id"]; ok && !dup["id"] && jsonrpctest.IsID(id) {
		return string(bytes.TrimSpace(id)), true
	}
	if _, ok := members["id"]; ok || len(dup) > 0 {
		return "null", true
	}
	var version, method string
	versionOK := json.Unmarshal(members["jsonrpc"], &version) == nil
	methodOK := json.Unmarshal(members["method"], &method) == nil
	params := bytes.TrimSpace(members["params"])
	wellFormed := versionOK && version == "2.0" && methodOK && method != "" &&
		(len(params) == 0 || params[0] == '{' || string(params) == "null")
	return "null", !wellFormed
}

// exactMembers is the members of the JSON object msg by exact name, and
// the members of a request's envelope given more than once; nil when msg
// is not an object.
func exactMembers(msg []byte) (map[string]json.RawMessage, map[string]bool) {
	d := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	members, dup := map[string]json.RawMessage{}, map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return nil, nil
		}
		name := tok.(string)
		if _, seen := members[name]; seen && (name == "jsonrpc" || name == "id" || name == "method" || name == "params") {
			dup[name] = true
		}
		members[name] = v
	}
	return members, dup
}

// sseEvents splits an SSE reply into the data of its events, requiring
// each to be exactly "event: message", one data line, and a blank line.
func sseEvents(t *testing.T, out []byte) [][]byte {
	t.Helper()
	var msgs [][]byte
	rest := out
	for len(rest) > 0 {
		const head = "event: message\ndata: "
		require.Truef(t, bytes.HasPrefix(rest, []byte(head)), "an SSE event does not begin with %q: %q", head, rest)
		rest = rest[len(head):]
		end := bytes.Index(rest, []byte("\n\n"))
		require.Truef(t, end >= 0, "an SSE event does not end with a blank line: %q", rest)
		data := rest[:end]
		require.Truef(t, !bytes.ContainsAny(data, "\r\n"), "an SSE event's data spans lines: %q", data)
		msgs = append(msgs, data)
		rest = rest[end+2:]
	}
	require.Truef(t, len(msgs) > 0, "an empty SSE reply with status 200")
	return msgs
}

// jsonReplies splits a plain JSON reply: one response object, or a
// non-empty array of them.
func jsonReplies(t *testing.T, out []byte) [][]byte {
	t.Helper()
	require.Truef(t, json.Valid(out), "the reply is not JSON: %q", out)
	if bytes.HasPrefix(out, []byte("[")) {
		var arr []json.RawMessage
		require.Truef(t, json.Unmarshal(out, &arr) == nil && len(arr) > 0, "the reply is not a non-empty array: %q", out)
		msgs := make([][]byte, len(arr))
		for i, m := range arr {
			msgs[i] = m
		}
		return msgs
	}
	return [][]byte{out}
}

// responseID checks that m is a JSON-RPC response and returns its id's
// JSON.
func responseID(t *testing.T, m []byte) string {
	t.Helper()
	require.Truef(t, json.Valid(m), "a response is not JSON: %q", m)
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	d := json.NewDecoder(bytes.NewReader(m))
	d.DisallowUnknownFields()
	require.Truef(t, d.Decode(&r) == nil, "not a JSON-RPC response: %q", m)
	require.Truef(t, r.JSONRPC == "2.0" && r.ID != nil && (r.Result == nil) != (r.Error == nil),
		"not a JSON-RPC response: %q", m)
	if r.Error != nil {
		require.Truef(t, r.Error.Code != nil && r.Error.Message != nil && *r.Error.Message != "", "an error without code or message: %q", m)
		require.Truef(t, !strings.Contains(*r.Error.Message, "database"), "an internal error leaked: %q", m)
	}
	id := string(r.ID)
	require.Truef(t, id == "null" || jsonrpctest.IsID(r.ID), "a response id that is neither null, a string nor a number: %q", m)
	return id
}

// refusedAsWhole reports whether m is the one -32600 error of a batch
// refused as a whole.
func refusedAsWhole(m []byte) bool {
	var r struct {
		Error struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(m, &r) == nil && r.Error.Code == jsonrpc.ErrInvalidRequest.Code
}
