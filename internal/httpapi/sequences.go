package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ResetSequences starts a server's sequence scenarios over, for one client
// key or, without one, for every key.
func (s *Server) ResetSequences(ctx context.Context, req api.ResetSequencesRequestObject) (api.ResetSequencesResponseObject, error) {
	// The counters are not rows: the server's row says whether the caller
	// may touch them.
	if _, err := byID(ctx, s, req.ServerId, (*store.Tx).Server); err != nil {
		return nil, err
	}
	if s.seq == nil {
		return nil, errors.New("reset sequences: no sequence counters configured")
	}
	var key string
	if req.Body != nil && req.Body.Key != nil {
		key = *req.Body.Key
	}
	if err := s.seq.Reset(ctx, req.ServerId, key); err != nil {
		return nil, fmt.Errorf("reset the sequences of server %s: %w", req.ServerId, err)
	}
	return api.ResetSequences204Response{}, nil
}
