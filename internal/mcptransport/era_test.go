package mcptransport_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// TestEraCapabilities: one function declares both eras' capabilities; a
// legacy endpoint names only what it holds (and its legacy extensions), a
// modern one every list with listChanged, and the extensions.
func TestEraCapabilities(t *testing.T) {
	encode := func(e mcptransport.Era, o mcptransport.Offer) string {
		b, err := json.Marshal(e.Capabilities(o))
		require.NoError(t, err)
		return string(b)
	}
	full := mcptransport.Offer{Tools: true, Resources: true, Prompts: true, Completions: true,
		Extensions: map[string]any{"x/tasks": nil, "x/skills": map[string]bool{"directoryRead": true}}}
	require.JSONEq(t, `{"logging":{},"tools":{},"resources":{"subscribe":true},"prompts":{},"completions":{},
		"extensions":{"x/tasks":{},"x/skills":{"directoryRead":true}}}`,
		encode(mcptransport.Legacy, full), "a legacy endpoint declares the extensions offered to it, with their settings")
	lean := full
	lean.Extensions = nil
	require.JSONEq(t, `{"logging":{},"tools":{},"resources":{"subscribe":true},"prompts":{},"completions":{}}`,
		encode(mcptransport.Legacy, lean), "a legacy endpoint offered no extension declares none")
	require.JSONEq(t, `{"logging":{}}`, encode(mcptransport.Legacy, mcptransport.Offer{}))
	require.JSONEq(t, `{"logging":{},"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},
		"prompts":{"listChanged":true},"completions":{},"extensions":{"x/tasks":{},"x/skills":{"directoryRead":true}}}`,
		encode(mcptransport.Modern, full))
	require.JSONEq(t, `{"logging":{},"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},
		"prompts":{"listChanged":true},"extensions":{}}`, encode(mcptransport.Modern, mcptransport.Offer{}),
		"a modern endpoint names every list: an empty one may fill")
}

// TestEraNotFound: the error for something an endpoint lacks, per era.
func TestEraNotFound(t *testing.T) {
	for _, tc := range []struct {
		era     mcptransport.Era
		p       mcptransport.Primitive
		code    int
		message string
		data    string
	}{
		{mcptransport.Legacy, mcptransport.Tool, -32601, "Tool not found: x", ""},
		{mcptransport.Modern, mcptransport.Tool, -32602, "Tool not found: x", ""},
		{mcptransport.Legacy, mcptransport.Prompt, -32602, "Prompt not found: x", ""},
		{mcptransport.Modern, mcptransport.Prompt, -32602, "Prompt not found: x", ""},
		{mcptransport.Legacy, mcptransport.Resource, -32002, "Resource not found: x", `{"uri":"x"}`},
		{mcptransport.Modern, mcptransport.Resource, -32602, "Resource not found: x", `{"uri":"x"}`},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.era, tc.p), func(t *testing.T) {
			var got struct {
				Error struct {
					Code    int             `json:"code"`
					Message string          `json:"message"`
					Data    json.RawMessage `json:"data"`
				} `json:"error"`
			}
			wire := jsonrpc.AppendError(nil, json.RawMessage(`1`), tc.era.NotFound(tc.p, "x"))
			require.NoError(t, json.Unmarshal(wire, &got), "%s", wire)
			require.Equal(t, tc.code, got.Error.Code, "%s", wire)
			require.Equal(t, tc.message, got.Error.Message)
			if tc.data == "" {
				require.Empty(t, got.Error.Data)
			} else {
				require.JSONEq(t, tc.data, string(got.Error.Data))
			}
		})
	}
}

// TestEraStatus: a lone modern request's transport errors go with their
// HTTP status; a legacy request's every error with 200, unless marked.
func TestEraStatus(t *testing.T) {
	for _, tc := range []struct {
		err            error
		legacy, modern int
	}{
		{jsonrpc.ErrMethodNotFound, http.StatusOK, http.StatusNotFound},
		{fmt.Errorf("%w: x", jsonrpc.ErrHeaderMismatch), http.StatusOK, http.StatusBadRequest},
		{jsonrpc.ErrMissingClientCapability, http.StatusOK, http.StatusBadRequest},
		{jsonrpc.ErrUnsupportedVersion, http.StatusOK, http.StatusBadRequest},
		{jsonrpc.ErrInvalidParams, http.StatusOK, http.StatusOK},
		{errors.New("not a wire error"), http.StatusOK, http.StatusOK},
		{mcptransport.WithStatus(jsonrpc.ErrInvalidParams, http.StatusBadRequest), http.StatusBadRequest, http.StatusBadRequest},
	} {
		require.Equal(t, tc.legacy, mcptransport.Legacy.Status(tc.err), "legacy: %v", tc.err)
		require.Equal(t, tc.modern, mcptransport.Modern.Status(tc.err), "modern: %v", tc.err)
	}
}

// TestEraAppendResult: a modern result says what it is and names the
// server; a legacy one is as answered.
func TestEraAppendResult(t *testing.T) {
	info := []byte(`{"name":"W","version":"1"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
		string(mcptransport.Legacy.AppendResult(nil, json.RawMessage(`1`), json.RawMessage(`{"a":1}`), info)))
	require.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"W","version":"1"}},"a":1}}`,
		string(mcptransport.Modern.AppendResult(nil, json.RawMessage(`1`), json.RawMessage(`{"a":1}`), info)))
}

// TestMethodTarget: a method's Target is read for the eras it exists in
// only.
func TestMethodTarget(t *testing.T) {
	ms := mcptransport.Methods[int]{
		"tools/call":          {Target: "name"},
		"resources/subscribe": {Target: "uri", Eras: mcptransport.LegacyOnly},
		"ping":                {},
	}
	require.Equal(t, "name", ms.TargetParam("tools/call", mcptransport.Modern))
	require.Equal(t, "uri", ms.TargetParam("resources/subscribe", mcptransport.Legacy))
	require.Empty(t, ms.TargetParam("resources/subscribe", mcptransport.Modern), "a method modern requests lack")
	require.Empty(t, ms.TargetParam("ping", mcptransport.Modern))
	require.Empty(t, ms.TargetParam("nope", mcptransport.Modern))
}
