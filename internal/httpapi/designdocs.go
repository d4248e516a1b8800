package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// documentBody is the text of a document sent as JSON (jsonBody) or
// as YAML or other text (body); what names the document in the 400 of a
// request that sends neither.
func documentBody(jsonBody *json.RawMessage, body io.Reader, what string) ([]byte, error) {
	switch {
	case jsonBody != nil:
		return *jsonBody, nil
	case body != nil:
		raw, err := io.ReadAll(body)
		if err != nil {
			return nil, failure.BadRequest("the request body could not be read")
		}
		return raw, nil
	}
	return nil, failure.BadRequest("the body must be "+what,
		failure.Field("body", "send it as application/json or application/yaml"))
}

// ApplyDesign creates or updates a server from a design document (see
// designdoc.Apply), JSON or YAML.
func (s *Server) ApplyDesign(ctx context.Context, req api.ApplyDesignRequestObject) (api.ApplyDesignResponseObject, error) {
	raw, err := documentBody(req.JSONBody, req.Body, "a design document")
	if err != nil {
		return nil, err
	}
	p := principal(ctx)
	if p.OrgID == uuid.Nil {
		return nil, noOrganization()
	}
	plan, err := designdoc.Apply(ctx, s.store, store.OrgRef{ID: p.OrgID, UserID: p.UserID}, raw,
		designdoc.ApplyOptions{DryRun: deref(req.Params.DryRun), CreatedBy: p.Actor(),
			MaxJSONBytes: s.cfg.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	out := s.apiPlan(ctx, plan)
	if plan.Server.Action == designdoc.Created && !plan.DryRun {
		return api.ApplyDesign201JSONResponse(out), nil
	}
	return api.ApplyDesign200JSONResponse(out), nil
}

// apiPlan is the REST answer for an applied plan.
func (s *Server) apiPlan(ctx context.Context, plan designdoc.Plan) api.ApplyResult {
	out := api.ApplyResult{DryRun: plan.DryRun, Changed: plan.Changed,
		Server: api.ApplyServer{Id: nullable.NewNullNullable[uuid.UUID](), Name: plan.Server.Name,
			Action: api.ApplyAction(plan.Server.Action)},
		Tools: apiParts(plan.Tools), Resources: apiParts(plan.Resources), Prompts: apiParts(plan.Prompts)}
	if plan.Server.ID != uuid.Nil {
		out.Server.Id = nullable.NewNullableWithValue(plan.Server.ID)
		out.Server.EndpointUrl = s.endpointURL(ctx, design.Server{ID: plan.Server.ID})
	}
	return out
}

func apiParts(parts []designdoc.PartPlan) []api.ApplyPart {
	out := make([]api.ApplyPart, len(parts))
	for i, p := range parts {
		out[i] = api.ApplyPart{Name: p.Name, Action: api.ApplyAction(p.Action)}
		if p.URI != "" {
			out[i].Uri = &parts[i].URI
		}
	}
	return out
}

// designOf loads the whole design of the caller's server id.
func (s *Server) designOf(ctx context.Context, id uuid.UUID) (design.Design, error) {
	return inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (design.Design, error) {
		srv, err := tx.Server(ctx, id)
		if err != nil {
			return design.Design{}, err
		}
		return tx.DesignOf(ctx, srv)
	})
}

// ExportDesign answers a server with everything it owns as a design
// document, JSON or YAML.
func (s *Server) ExportDesign(ctx context.Context, req api.ExportDesignRequestObject) (api.ExportDesignResponseObject, error) {
	d, err := s.designOf(ctx, req.ServerId)
	if err != nil {
		return nil, err
	}
	js, err := designdoc.Export(d)
	if err != nil {
		return nil, err
	}
	if req.Params.Format != nil && *req.Params.Format == api.ExportFormatYAML {
		y, err := designdoc.ToYAML(js)
		if err != nil {
			return nil, err
		}
		return document{body: y, contentType: "application/yaml"}, nil
	}
	return document{body: js, contentType: "application/json"}, nil
}

// GetDesignSchema answers the JSON Schema of design documents.
func (s *Server) GetDesignSchema(context.Context, api.GetDesignSchemaRequestObject) (api.GetDesignSchemaResponseObject, error) {
	return document{body: designdoc.Schema(), contentType: "application/schema+json"}, nil
}

// document is an answer written byte for byte: the generated response
// types of a json.RawMessage body would encode it again.
type document struct {
	body        []byte
	contentType string
}

func (d document) write(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", d.contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(d.body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(d.body)
	return err
}

func (d document) VisitExportDesignResponse(w http.ResponseWriter) error    { return d.write(w) }
func (d document) VisitGetDesignSchemaResponse(w http.ResponseWriter) error { return d.write(w) }

// yamlTypes are the other names of YAML bodies, taken as application/yaml.
var yamlTypes = map[string]bool{"application/x-yaml": true, "text/yaml": true, "text/x-yaml": true}

// yamlAliases gives a YAML body sent under another of YAML's media types
// the one the document declares, so that the handler receives it.
func yamlAliases(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && yamlTypes[mt] {
			req.Header.Set("Content-Type", "application/yaml")
		}
		return next(c)
	}
}
