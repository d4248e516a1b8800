package httpapi

import (
	"context"
	"errors"

	"github.com/mockmcp/mockmcp/gen/api"
)

var errJournalPending = errors.New("journal: not wired yet")

// ListJournal lists the calls recorded for a server.
func (s *Server) ListJournal(ctx context.Context, req api.ListJournalRequestObject) (api.ListJournalResponseObject, error) {
	return nil, errJournalPending
}

// ClearJournal deletes a server's recorded calls.
func (s *Server) ClearJournal(ctx context.Context, req api.ClearJournalRequestObject) (api.ClearJournalResponseObject, error) {
	return nil, errJournalPending
}

// VerifyJournal counts matching calls of a tool.
func (s *Server) VerifyJournal(ctx context.Context, req api.VerifyJournalRequestObject) (api.VerifyJournalResponseObject, error) {
	return nil, errJournalPending
}
