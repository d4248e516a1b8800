package httpapi

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListResources lists a server's resources.
func (s *Server) ListResources(ctx context.Context, req api.ListResourcesRequestObject) (api.ListResourcesResponseObject, error) {
	items, err := listOfServer(ctx, s, req.ServerId, (*store.Tx).Resources, apiResource)
	if err != nil {
		return nil, err
	}
	return api.ListResources200JSONResponse{Items: items}, nil
}

// CreateResource adds a resource to a server.
func (s *Server) CreateResource(ctx context.Context, req api.CreateResourceRequestObject) (api.CreateResourceResponseObject, error) {
	b := req.Body
	r := design.Resource{ID: uuid.New(), ServerID: req.ServerId, Name: b.Name, URI: b.Uri,
		Description: deref(b.Description), MimeType: b.MimeType, Ask: deref(b.Ask), Then: deref(b.Then)}
	if b.Completions != nil {
		r.Completions = *b.Completions
	}
	if err := setResourceContent(&r, b.Content, b.Blob, true); err != nil {
		return nil, err
	}
	r, err := addToServer(ctx, s, req.ServerId, r, design.CheckResource, "resources", design.MaxResources,
		func(c store.Counts) int64 { return c.Resources }, (*store.Tx).CreateResource)
	if err != nil {
		return nil, err
	}
	return api.CreateResource201JSONResponse(apiResource(r)), nil
}

// GetResource reads one resource.
func (s *Server) GetResource(ctx context.Context, req api.GetResourceRequestObject) (api.GetResourceResponseObject, error) {
	v, err := itemOfServer(ctx, s, req.ServerId, req.ResourceId, (*store.Tx).Resource)
	if err != nil {
		return nil, err
	}
	return api.GetResource200JSONResponse(apiResource(v)), nil
}

// UpdateResource changes the given fields of a resource.
func (s *Server) UpdateResource(ctx context.Context, req api.UpdateResourceRequestObject) (api.UpdateResourceResponseObject, error) {
	b := req.Body
	r, err := editInServer(ctx, s, req.ServerId, req.ResourceId, (*store.Tx).Resource, func(r *design.Resource) error {
		r.Name = or(b.Name, r.Name)
		r.URI = or(b.Uri, r.URI)
		r.Description = or(b.Description, r.Description)
		r.MimeType = patchString(r.MimeType, b.MimeType)
		if b.Completions != nil {
			r.Completions = *b.Completions
		}
		if err := setResourceContent(r, b.Content, b.Blob, false); err != nil {
			return err
		}
		if b.Ask != nil {
			r.Ask = *b.Ask
		}
		if b.Then != nil {
			r.Then = *b.Then
		}
		return nil
	}, design.CheckResource, (*store.Tx).UpdateResource)
	if err != nil {
		return nil, err
	}
	return api.UpdateResource200JSONResponse(apiResource(r)), nil
}

// DeleteResource deletes a resource.
func (s *Server) DeleteResource(ctx context.Context, req api.DeleteResourceRequestObject) (api.DeleteResourceResponseObject, error) {
	if err := removeFromServer(ctx, s, req.ServerId, req.ResourceId, (*store.Tx).DeleteResource); err != nil {
		return nil, err
	}
	return api.DeleteResource204Response{}, nil
}

// setResourceContent sets r's content from a request's content or blob:
// one of the two, never both; on create, one is required.
func setResourceContent(r *design.Resource, content *api.ResourceContent, blob *api.ResourceBlob, create bool) error {
	switch {
	case content != nil && blob != nil:
		return failure.Invalid(failure.Field("blob", "give content (text or JSON) or blob (binary, base64), not both"))
	case blob != nil:
		raw, _ := json.Marshal(*blob) // a string always encodes
		r.Content, r.Binary = raw, true
	case content != nil:
		r.Content, r.Binary = *content, false
	case create:
		return failure.Invalid(failure.Field("content", "is required: text or a JSON value (or give blob, base64, for binary content)"))
	}
	return nil
}
