package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
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
	r, err := designwire.ResourceFromCreate(*req.Body)
	if err != nil {
		return nil, err
	}
	r.ID, r.ServerID = uuid.New(), req.ServerId
	r, err = addToServer(ctx, s, req.ServerId, r, design.CheckResource, "resources", design.MaxResources,
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
		r.Meta = designwire.PatchMeta(r.Meta, b.Meta)
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

// setResourceContent is designwire.SetResourceContent.
var setResourceContent = designwire.SetResourceContent
