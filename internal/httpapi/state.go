package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// GetServerState answers the server's live state.
func (s *Server) GetServerState(ctx context.Context, req api.GetServerStateRequestObject) (api.GetServerStateResponseObject, error) {
	v, err := byID(ctx, s, req.ServerId, (*store.Tx).LiveState)
	if err != nil {
		return nil, err
	}
	return stateAnswer(v), nil
}

// SetServerState replaces the server's live state with the body, an
// object within the bounds of a state.
func (s *Server) SetServerState(ctx context.Context, req api.SetServerStateRequestObject) (api.SetServerStateResponseObject, error) {
	var body json.RawMessage
	if req.Body != nil {
		body = *req.Body
	}
	if errs := mockspec.CheckState("state", body); len(errs) > 0 {
		return nil, failure.Invalid(errs...)
	}
	v, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (store.LiveState, error) {
		return tx.ReplaceLiveState(ctx, req.ServerId, body)
	})
	if err != nil {
		return nil, err
	}
	return stateAnswer(v), nil
}

// ResetServerState sets the server's live state back to its design's
// initial state.
func (s *Server) ResetServerState(ctx context.Context, req api.ResetServerStateRequestObject) (api.ResetServerStateResponseObject, error) {
	v, err := byID(ctx, s, req.ServerId, (*store.Tx).ResetLiveState)
	if err != nil {
		return nil, err
	}
	return stateAnswer(v), nil
}

// stateAnswer is a live state answered as the database holds it: the
// generated response types of a json.RawMessage body would encode it
// again (as base64).
func stateAnswer(v store.LiveState) document {
	return document{body: v.State, contentType: "application/json"}
}

func (d document) VisitGetServerStateResponse(w http.ResponseWriter) error   { return d.write(w) }
func (d document) VisitSetServerStateResponse(w http.ResponseWriter) error   { return d.write(w) }
func (d document) VisitResetServerStateResponse(w http.ResponseWriter) error { return d.write(w) }
