package httpapi

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/promote"
	"github.com/mockmcp/mockmcp/internal/store"
)

// The promote reads and writes in the handler's transaction.
var _ promote.Store = (*store.Tx)(nil)

// errPromoteDryRun rolls back the transaction of a dry run.
var errPromoteDryRun = errors.New("dry run")

// PromoteRecordings turns the server's proxied journal records into
// scenarios, resources and prompts of its design, in one transaction
// (rolled back for a dry run).
func (s *Server) PromoteRecordings(ctx context.Context, req api.PromoteRecordingsRequestObject) (api.PromoteRecordingsResponseObject, error) {
	var body api.PromoteRequest
	if req.Body != nil {
		body = *req.Body
	}
	in := promoteRequest(body)
	if err := in.Check(); err != nil {
		return nil, err
	}
	dry := deref(body.DryRun)
	var out promote.Result
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, counts store.Counts) (err error) {
		out, err = promote.Run(ctx, tx, req.ServerId, counts, in)
		if err == nil && dry {
			return errPromoteDryRun
		}
		return err
	})
	if errors.Is(err, errPromoteDryRun) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return api.PromoteRecordings200JSONResponse(apiPromoteResult(out, dry)), nil
}

// promoteRequest is the selection of a promote body.
func promoteRequest(b api.PromoteRequest) promote.Request {
	in := promote.Request{Tool: b.Tool, Since: b.Since, Until: b.Until}
	if b.JournalIds != nil {
		in.JournalIDs = append([]uuid.UUID{}, *b.JournalIds...) // not nil: an empty list selects none
	}
	return in
}

func apiPromoteResult(r promote.Result, dry bool) api.PromoteResult {
	out := api.PromoteResult{DryRun: dry, Promoted: make([]api.PromoteItem, len(r.Items)), ToolsCreated: r.ToolsCreated}
	for i, it := range r.Items {
		out.Promoted[i] = api.PromoteItem{JournalId: it.JournalID, Kind: api.PromoteItemKind(it.Kind), Name: it.Name,
			Action: api.PromoteItemAction(it.Action), Scenario: nonEmpty(it.Scenario), Reason: nonEmpty(it.Reason)}
	}
	return out
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
