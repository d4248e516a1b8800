package httpapi

import (
	"context"
	"net/http"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/openapi"
)

// GetOpenAPIDocument answers the whole OpenAPI document, MCP endpoints
// included, as JSON in the document's order.
func (s *Server) GetOpenAPIDocument(context.Context, api.GetOpenAPIDocumentRequestObject) (api.GetOpenAPIDocumentResponseObject, error) {
	return document{body: openapi.JSON(), contentType: "application/json"}, nil
}

// GetOpenAPIDocumentYAML answers the OpenAPI document byte for byte as the
// repository holds it.
func (s *Server) GetOpenAPIDocumentYAML(context.Context, api.GetOpenAPIDocumentYAMLRequestObject) (api.GetOpenAPIDocumentYAMLResponseObject, error) {
	return document{body: openapi.YAML(), contentType: "application/yaml"}, nil
}

func (d document) VisitGetOpenAPIDocumentResponse(w http.ResponseWriter) error { return d.write(w) }
func (d document) VisitGetOpenAPIDocumentYAMLResponse(w http.ResponseWriter) error {
	return d.write(w)
}
