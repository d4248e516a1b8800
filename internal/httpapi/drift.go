package httpapi

import (
	"context"
	"encoding/json"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/drift"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpimport"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

// CheckDrift compares a design with the live MCP server at the given URL:
// the live server is listed (nothing called) through the import's client,
// under the outbound rules, and compared by drift.Compare.
func (s *Server) CheckDrift(ctx context.Context, req api.CheckDriftRequestObject) (api.CheckDriftResponseObject, error) {
	var body api.DriftRequest
	if req.Body != nil {
		body = *req.Body
	}
	d, err := s.designOf(ctx, req.ServerId)
	if err != nil {
		return nil, err
	}
	target, headers := deref(body.Url), deref(body.Headers)
	if target == "" && d.Server.Upstream != nil {
		// The design's upstream, with its stored headers unless the body
		// gives some.
		target = d.Server.Upstream.URL
		if headers == nil {
			if headers, err = s.upstreamKey.Open(d.Server.Upstream.SealedHeaders); err != nil {
				return nil, err
			}
		}
	}
	if target == "" {
		return nil, failure.Invalid(failure.Field("url", "give the URL of the live MCP server to compare with (the design has no upstream)"))
	}
	if err := outbound.CheckURL(target); err != nil {
		return nil, failure.Invalid(failure.Field("url", "%s", err.Error()))
	}
	client, done := s.outboundClient(ctx, "mcp_import", -1)
	defer done()
	live, err := mcpimport.Import(ctx, mcpimport.Options{URL: target, Headers: headers, Client: client, ListOnly: true})
	if err != nil {
		return nil, err
	}
	changes := drift.Compare(d, live.Design)
	out := api.DriftReport{Drifted: len(changes) > 0, Changes: make([]api.DriftChange, len(changes))}
	for i, c := range changes {
		out.Changes[i] = api.DriftChange{Kind: api.DriftChangeKind(c.Kind), Name: c.Name, Field: api.DriftChangeField(c.Field),
			Design: nullableJSON(c.Design), Live: nullableJSON(c.Live)}
	}
	return api.CheckDrift200JSONResponse(out), nil
}

// nullableJSON is raw as a nullable JSON value: JSON null is null.
func nullableJSON(raw json.RawMessage) nullable.Nullable[api.AnyJSON] {
	if len(raw) == 0 || string(raw) == "null" {
		return nullable.NewNullNullable[api.AnyJSON]()
	}
	return nullable.NewNullableWithValue(api.AnyJSON(raw))
}
