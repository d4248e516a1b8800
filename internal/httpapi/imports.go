package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/draft"
	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpimport"
	"github.com/mockmcp/mockmcp/internal/oasimport"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ImportOpenAPI creates a draft server from an OpenAPI or Swagger document.
func (s *Server) ImportOpenAPI(ctx context.Context, req api.ImportOpenAPIRequestObject) (api.ImportOpenAPIResponseObject, error) {
	b := req.Body
	var doc []byte
	switch {
	case b.Document != nil && b.Url != nil:
		return nil, failure.Invalid(failure.Field("url", "give document or url, not both"))
	case b.Document != nil:
		doc = documentBytes(*b.Document)
	case b.Url != nil:
		var err error
		if doc, err = s.fetchDocument(ctx, *b.Url); err != nil {
			return nil, err
		}
	default:
		return nil, failure.Invalid(failure.Field("document", "give the document, or the url to fetch it from"))
	}
	res, err := oasimport.Import(ctx, doc, oasimport.Options{Name: deref(b.Name), MaxJSONBytes: s.cfg.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	out, err := s.createImported(ctx, res.Design, oasimport.Source(deref(b.Url), doc, res, time.Now()), res.Warnings)
	if err != nil {
		return nil, err
	}
	return api.ImportOpenAPI201JSONResponse(out), nil
}

// documentBytes is the document as sent: a JSON string holds its JSON or
// YAML text; anything else is the document itself.
func documentBytes(raw json.RawMessage) []byte {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return []byte(text)
	}
	return raw
}

// fetchDocument reads an OpenAPI document from url through the guarded
// client.
func (s *Server) fetchDocument(ctx context.Context, url string) ([]byte, error) {
	if err := outbound.CheckURL(url); err != nil {
		return nil, failure.Invalid(failure.Field("url", "%s", err.Error()))
	}
	client, done := s.outboundClient(ctx, "openapi_import", oasimport.MaxDocumentBytes)
	defer done()
	body, err := outbound.Get(ctx, client, url, "application/json, application/yaml, text/yaml, */*", oasimport.MaxDocumentBytes)
	switch {
	case errors.Is(err, outbound.ErrBodyTooLarge):
		return nil, failure.Invalid(failure.Field("url", "the document is larger than %d MiB", oasimport.MaxDocumentBytes>>20))
	case err != nil:
		return nil, failure.Invalid(failure.Field("url", "the document could not be fetched: %s", errtext.Outbound("the server", err)))
	}
	return body, nil
}

// ImportMCP creates a draft server from a live MCP server.
func (s *Server) ImportMCP(ctx context.Context, req api.ImportMCPRequestObject) (api.ImportMCPResponseObject, error) {
	b := req.Body
	if err := outbound.CheckURL(b.Url); err != nil {
		return nil, failure.Invalid(failure.Field("url", "%s", err.Error()))
	}
	opts := mcpimport.Options{URL: b.Url, Headers: deref(b.Headers), Name: deref(b.Name)}
	if b.RecordCalls != nil {
		for _, c := range *b.RecordCalls {
			opts.RecordCalls = append(opts.RecordCalls, mcpimport.Call{Tool: c.Tool, Arguments: deref(c.Arguments)})
		}
	}
	// An HTTP+SSE session is one long answer: the importer bounds each
	// message, the whole import and its time itself.
	client, done := s.outboundClient(ctx, "mcp_import", -1)
	defer done()
	opts.Client = client
	res, err := mcpimport.Import(ctx, opts)
	if err != nil {
		return nil, err
	}
	out, err := s.createImported(ctx, res.Design, mcpimport.Source(b.Url, res, time.Now()), res.Warnings)
	if err != nil {
		return nil, err
	}
	return api.ImportMCP201JSONResponse(out), nil
}

// createImported stores an imported design as a draft server of the
// caller's organization.
func (s *Server) createImported(ctx context.Context, d design.Design, source json.RawMessage, warnings []string) (api.ImportResult, error) {
	p := principal(ctx)
	if p.OrgID == uuid.Nil {
		return api.ImportResult{}, noOrganization()
	}
	inTx := func(ctx context.Context, fn func(draft.Store) error) error {
		return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error { return fn(tx) })
	}
	out, err := draft.Create(ctx, inTx, draft.Import{Design: d, Source: source, Warnings: warnings}, p.Actor())
	if err != nil {
		return api.ImportResult{}, err
	}
	return api.ImportResult{Server: s.apiServer(ctx, out.Server), Tools: out.Tools, Resources: out.Resources,
		Prompts: out.Prompts, Warnings: out.Warnings}, nil
}

// A draft is created in the handler's transaction.
var _ draft.Store = (*store.Tx)(nil)

// outboundClient is a client under the outbound rules, serving the
// service's own origins in process, that keeps at most maxBody bytes of an
// answer; its requests count as kind (one of outbound.Kinds). done releases
// its connections.
func (s *Server) outboundClient(ctx context.Context, kind string, maxBody int64) (*http.Client, func()) {
	origins := []string{requestOrigin(ctx)}
	if s.cfg.BaseURL != "" {
		origins = append(origins, s.cfg.BaseURL)
	}
	var local http.Handler
	if s.self != nil {
		local = s.self()
	}
	client := outbound.NewClient(outbound.Options{AllowPrivate: s.cfg.AllowPrivateTargets, Local: local,
		LocalOrigins: origins, MaxBody: maxBody, Kind: kind})
	return client, client.CloseIdleConnections
}
