package httpapi

import (
	"context"
	"errors"

	"github.com/mockmcp/mockmcp/gen/api"
)

// ResetSequences starts a server's sequence scenarios over.
func (s *Server) ResetSequences(ctx context.Context, req api.ResetSequencesRequestObject) (api.ResetSequencesResponseObject, error) {
	return nil, errors.New("sequences: not wired yet")
}
