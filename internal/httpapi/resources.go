package httpapi

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListResources lists a server's resources.
func (s *Server) ListResources(ctx context.Context, req api.ListResourcesRequestObject) (api.ListResourcesResponseObject, error) {
	var rs []design.Resource
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		if _, err = tx.Server(ctx, req.ServerId); err != nil {
			return err
		}
		rs, err = tx.Resources(ctx, req.ServerId)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := api.ListResources200JSONResponse{Items: make([]api.Resource, len(rs))}
	for i, r := range rs {
		out.Items[i] = apiResource(r)
	}
	return out, nil
}

// CreateResource adds a resource to a server.
func (s *Server) CreateResource(ctx context.Context, req api.CreateResourceRequestObject) (api.CreateResourceResponseObject, error) {
	b := req.Body
	r := design.Resource{ID: uuid.New(), ServerID: req.ServerId, Name: b.Name, URI: b.Uri,
		Description: deref(b.Description), MimeType: b.MimeType}
	if b.Completions != nil {
		r.Completions = *b.Completions
	}
	if err := setResourceContent(&r, b.Content, b.Blob, true); err != nil {
		return nil, err
	}
	if err := design.CheckResource(r); err != nil {
		return nil, err
	}
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, c store.Counts) (err error) {
		if c.Resources >= design.MaxResources {
			return design.Limit("resources", design.MaxResources)
		}
		r, err = tx.CreateResource(ctx, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateResource201JSONResponse(apiResource(r)), nil
}

// GetResource reads one resource.
func (s *Server) GetResource(ctx context.Context, req api.GetResourceRequestObject) (api.GetResourceResponseObject, error) {
	var r design.Resource
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		r, err = tx.Resource(ctx, req.ServerId, req.ResourceId)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.GetResource200JSONResponse(apiResource(r)), nil
}

// UpdateResource changes the given fields of a resource.
func (s *Server) UpdateResource(ctx context.Context, req api.UpdateResourceRequestObject) (api.UpdateResourceResponseObject, error) {
	b := req.Body
	var r design.Resource
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) (err error) {
		if r, err = tx.Resource(ctx, req.ServerId, req.ResourceId); err != nil {
			return err
		}
		r.Name = or(b.Name, r.Name)
		r.URI = or(b.Uri, r.URI)
		r.Description = or(b.Description, r.Description)
		r.MimeType = patchString(r.MimeType, b.MimeType)
		if b.Completions != nil {
			r.Completions = *b.Completions
		}
		if err := setResourceContent(&r, b.Content, b.Blob, false); err != nil {
			return err
		}
		if err := design.CheckResource(r); err != nil {
			return err
		}
		r, err = tx.UpdateResource(ctx, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateResource200JSONResponse(apiResource(r)), nil
}

// DeleteResource deletes a resource.
func (s *Server) DeleteResource(ctx context.Context, req api.DeleteResourceRequestObject) (api.DeleteResourceResponseObject, error) {
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, _ store.Counts) error {
		return tx.DeleteResource(ctx, req.ServerId, req.ResourceId)
	})
	if err != nil {
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
