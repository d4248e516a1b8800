package mcpserve

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// paramHeader is a tool argument mirrored in a Mcp-Param-* header: an input
// schema property annotated x-mcp-header, reached from the root through
// properties alone.
type paramHeader struct {
	header string   // the canonical header name, Mcp-Param-{x-mcp-header}
	path   []string // property names from the arguments' root
}

// paramHeaders lists the arguments of a tool's input schema mirrored in
// headers (the design checks refused misplaced annotations).
func paramHeaders(inputSchema json.RawMessage) []paramHeader {
	var out []paramHeader
	for _, h := range design.MCPHeaders(inputSchema) {
		out = append(out, paramHeader{header: http.CanonicalHeaderKey(mcptransport.HeaderParamPrefix + h.Name), path: h.Path})
	}
	return out
}

// checkParamHeaders compares each mirrored argument with its Mcp-Param-*
// header: an argument present (and not null) needs its header, decoded
// equal to it (integers compared as numbers); a header without its
// argument is a mismatch too. Any failure is HeaderMismatch (-32020, HTTP
// 400).
func (t *tool) checkParamHeaders(hdr http.Header, args map[string]any) error {
	for i := range t.params {
		ph := &t.params[i]
		v, present := valueAt(args, ph.path)
		values, sent := hdr[ph.header]
		if !present || v == nil {
			if sent {
				return mcptransport.HeaderMismatch("%s header sent, but the tool call has no value for %s", ph.header, strings.Join(ph.path, "."))
			}
			continue
		}
		if !sent || len(values) == 0 {
			return mcptransport.HeaderMismatch("the %s header is missing; it must repeat argument %s", ph.header, strings.Join(ph.path, "."))
		}
		got, ok := mcptransport.DecodeHeaderValue(strings.Trim(values[0], " \t"))
		if !ok {
			return mcptransport.HeaderMismatch("%s header value is neither visible ASCII nor a valid =?base64?...?= form", ph.header)
		}
		if !sameArgument(got, v) {
			return mcptransport.HeaderMismatch("%s header value '%s' does not match body value of %s", ph.header, got, strings.Join(ph.path, "."))
		}
	}
	return nil
}

// valueAt is the argument at path, and whether it is there.
func valueAt(args map[string]any, path []string) (any, bool) {
	var v any = args
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// sameArgument reports whether header text h stands for argument value v:
// a string as it is, a number by value, a boolean as true or false.
func sameArgument(h string, v any) bool {
	switch v := v.(type) {
	case string:
		return h == v
	case bool:
		return (h == "true" && v) || (h == "false" && !v)
	case float64, json.Number:
		want, ok1 := new(big.Rat).SetString(numberText(v))
		got, ok2 := new(big.Rat).SetString(h)
		return ok1 && ok2 && want.Cmp(got) == 0
	}
	return false
}

func numberText(v any) string {
	switch v := v.(type) {
	case json.Number:
		return string(v)
	case float64:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return ""
}
