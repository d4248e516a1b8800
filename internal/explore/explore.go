// Package explore holds exploratory sessions: named logs of ad-hoc REST
// requests against one base URL or one of the organization's MCP servers.
// It starts a session (Start), sends a request and logs it (Send), and
// turns a logged request into a test case (TestCase).
package explore

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// MaxEntries bounds the log of one session.
const MaxEntries = 1000

// Store is what the session workflows read and write in one transaction
// of the caller's organization; *store.Tx is one.
type Store interface {
	Server(ctx context.Context, id uuid.UUID) (design.Server, error)
	CreateExploreSession(ctx context.Context, s store.ExploreSession) (store.ExploreSession, error)
	ExploreSession(ctx context.Context, id uuid.UUID) (store.ExploreSession, error)
	CountExploreEntries(ctx context.Context, session uuid.UUID) (int64, error)
	CreateExploreEntry(ctx context.Context, e store.ExploreEntry) (store.ExploreEntry, error)
}

// Start asks for a session against BaseURL or against the MCP endpoint
// of the server ServerID, one of them.
type Start struct {
	Name     string
	BaseURL  *string
	ServerID *uuid.UUID
}

// Session is the session in asks for, checked: endpoint is the base URL of
// a server's MCP endpoint. Its server, if any, is checked by Create.
func (in Start) Session(endpoint func(uuid.UUID) string) (store.ExploreSession, error) {
	v := store.ExploreSession{ID: uuid.New(), Name: strings.TrimSpace(in.Name), ServerID: in.ServerID}
	var f failure.Fields
	if v.Name == "" {
		f.Add("name", "must not be blank")
	}
	switch {
	case in.BaseURL != nil && in.ServerID != nil:
		f.Add("server_id", "give base_url or server_id, not both")
	case in.BaseURL != nil:
		v.BaseURL = strings.TrimRight(*in.BaseURL, "/")
		if err := outbound.CheckURL(v.BaseURL); err != nil {
			f.Add("base_url", "%s", err.Error())
		} else {
			// Refuse a base its requests could never use (a query, a
			// fragment): they are checked by the rules of a test case.
			probe := resttest.Case{BaseURL: v.BaseURL, Scopes: []resttest.Scope{{Method: "GET"}}}
			for _, e := range resttest.CheckRequest(probe) {
				f.Add(e.Field, "%s", e.Message)
			}
		}
	case in.ServerID != nil:
		v.BaseURL = endpoint(*in.ServerID)
	default:
		f.Add("base_url", "give base_url or server_id")
	}
	return v, f.Err()
}

// Create writes the checked session v, started by actor. A server session
// must name a server of the organization.
func Create(ctx context.Context, st Store, v store.ExploreSession, actor string) (store.ExploreSession, error) {
	if v.ServerID != nil {
		if _, err := st.Server(ctx, *v.ServerID); failure.Is(err, failure.ErrNotFound) {
			return v, failure.Invalid(failure.Field("server_id", "no MCP server with this id in the organization"))
		} else if err != nil {
			return v, err
		}
	}
	v.CreatedBy = actor
	return st.CreateExploreSession(ctx, v)
}
