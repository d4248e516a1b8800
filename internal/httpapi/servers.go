package httpapi

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/store"
)

// DefaultProtocolVersion is what a server's initialize reports unless its
// design chooses another.
const DefaultProtocolVersion = protocol.Default

// ListServers lists a page of the organization's server designs.
func (s *Server) ListServers(ctx context.Context, req api.ListServersRequestObject) (api.ListServersResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 50,
		func(tx *store.Tx, ctx context.Context, after *store.PageKey, limit int) ([]design.Server, *store.PageKey, error) {
			page, err := tx.Servers(ctx, after, limit)
			return page.Servers, page.Next, err
		}, func(v design.Server) api.Server { return s.apiServer(ctx, v) })
	if err != nil {
		return nil, err
	}
	return api.ListServers200JSONResponse{Items: items, NextCursor: next}, nil
}

// CreateServer creates a draft server design.
func (s *Server) CreateServer(ctx context.Context, req api.CreateServerRequestObject) (api.CreateServerResponseObject, error) {
	v := designwire.ServerFromCreate(*req.Body)
	v.ID = uuid.New()
	var err error
	if v.Upstream, err = s.newUpstream(req.Body.Upstream); err != nil {
		return nil, err
	}
	if err := design.CheckServer(v); err != nil {
		return nil, err
	}
	v, err = inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (design.Server, error) {
		v.CreatedBy = p.Actor()
		return tx.CreateServer(ctx, v)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateServer201JSONResponse(s.apiServer(ctx, v)), nil
}

// GetServer reads one server design.
func (s *Server) GetServer(ctx context.Context, req api.GetServerRequestObject) (api.GetServerResponseObject, error) {
	v, err := byID(ctx, s, req.ServerId, (*store.Tx).Server)
	if err != nil {
		return nil, err
	}
	return api.GetServer200JSONResponse(s.apiServer(ctx, v)), nil
}

// UpdateServer changes the given fields of a server design, including
// enabling it (draft → enabled) and disabling it (enabled → draft).
func (s *Server) UpdateServer(ctx context.Context, req api.UpdateServerRequestObject) (api.UpdateServerResponseObject, error) {
	b := req.Body
	v, err := editLocked(ctx, s, req.ServerId, (*store.Tx).LockServer, func(_ *store.Tx, v *design.Server) error {
		designwire.PatchServer(v, *b)
		var err error
		if v.Upstream, err = s.patchUpstream(v.Upstream, b.Upstream); err != nil {
			return err
		}
		return design.CheckServer(*v)
	}, (*store.Tx).UpdateServer)
	if err != nil {
		return nil, err
	}
	return api.UpdateServer200JSONResponse(s.apiServer(ctx, v)), nil
}

// DeleteServer deletes a server design and all it owns.
func (s *Server) DeleteServer(ctx context.Context, req api.DeleteServerRequestObject) (api.DeleteServerResponseObject, error) {
	if err := removeByID(ctx, s, req.ServerId, (*store.Tx).DeleteServer); err != nil {
		return nil, err
	}
	return api.DeleteServer204Response{}, nil
}

// DuplicateServer copies a server design with everything it owns into a new
// draft.
func (s *Server) DuplicateServer(ctx context.Context, req api.DuplicateServerRequestObject) (api.DuplicateServerResponseObject, error) {
	var name string
	if req.Body != nil && req.Body.Name != nil {
		if name = strings.TrimSpace(*req.Body.Name); name == "" {
			return nil, failure.Invalid(failure.Field("name", "must not be blank"))
		}
	}
	var v design.Server
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		src, err := tx.Server(ctx, req.ServerId)
		if err != nil {
			return err
		}
		if name == "" {
			name = copyName(src.Name)
		}
		cp := src
		cp.Name = name
		if err := design.CheckServer(cp); err != nil {
			return err
		}
		v, err = tx.DuplicateServer(ctx, src, uuid.New(), name, p.Actor())
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.DuplicateServer201JSONResponse(s.apiServer(ctx, v)), nil
}

// copyName is the default name of a copy, kept within the 200-character
// limit of names.
func copyName(name string) string {
	const suffix = " (copy)"
	r := []rune(name)
	if len(r)+len(suffix) > 200 {
		r = r[:200-len(suffix)]
	}
	return string(r) + suffix
}
