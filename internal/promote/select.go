package promote

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
)

// maxRecords bounds how many journal records one promote reads.
const maxRecords = 10_000

// pageSize is how many journal records one read asks for.
const pageSize = 500

// selected reads the server's proxied records req selects, newest first.
func selected(ctx context.Context, st Store, server uuid.UUID, req Request) ([]journal.Record, error) {
	f := store.JournalFilter{Outcome: journal.OutcomeProxied, Since: req.Since, Limit: pageSize}
	if req.Tool != nil {
		f.Method, f.Tool = "tools/call", *req.Tool
	}
	var ids map[uuid.UUID]bool
	if req.JournalIDs != nil {
		ids = make(map[uuid.UUID]bool, len(req.JournalIDs))
		for _, id := range req.JournalIDs {
			ids[id] = true
		}
	}
	var out []journal.Record
	for n := 0; n < maxRecords; {
		page, err := st.Journal(ctx, server, f)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Records {
			n++
			if req.Until != nil && !r.ReceivedAt.Before(*req.Until) {
				continue
			}
			if ids != nil && !ids[r.ID] {
				continue
			}
			out = append(out, r)
		}
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	return out, nil
}
