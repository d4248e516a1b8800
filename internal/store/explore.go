package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

// ExploreTx is the part of a transaction that keeps exploratory sessions
// and their entries.
type ExploreTx struct{ *txConn }

// ExploreSession is an exploratory session: a named log of ad-hoc
// requests against one base URL (or one of the organization's servers).
type ExploreSession struct {
	ID        uuid.UUID
	OrgID     uuid.UUID
	Name      string
	BaseURL   string
	ServerID  *uuid.UUID
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ExploreEntry is one request of a session and what came back.
type ExploreEntry struct {
	ID         uuid.UUID
	SessionID  uuid.UUID
	Request    resttest.Request
	Response   *resttest.Response
	Error      string
	DurationMS float64
	CreatedAt  time.Time
}

// CreateExploreSession inserts a session.
func (t ExploreTx) CreateExploreSession(ctx context.Context, s ExploreSession) (ExploreSession, error) {
	var server uuid.NullUUID
	if s.ServerID != nil {
		server = uuid.NullUUID{UUID: *s.ServerID, Valid: true}
	}
	row, err := t.q.CreateExploreSession(ctx, t.tx, db.CreateExploreSessionParams{ID: s.ID, Name: s.Name,
		BaseUrl: s.BaseURL, ServerID: server, CreatedBy: s.CreatedBy})
	return sessionFrom(row), err
}

// ExploreSession reads one session.
func (t ExploreTx) ExploreSession(ctx context.Context, id uuid.UUID) (ExploreSession, error) {
	row, err := t.q.GetExploreSession(ctx, t.tx, id)
	return sessionFrom(row), notFound(err, "session")
}

// ExploreSessions lists a page of sessions, newest first.
func (t ExploreTx) ExploreSessions(ctx context.Context, after *PageKey, limit int) ([]ExploreSession, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListExploreSessions(ctx, t.tx, db.ListExploreSessionsParams{AfterCreatedAt: at, AfterID: aid,
		RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.ExploreSession) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, infallible(sessionFrom))(rows, err)
}

// DeleteExploreSession deletes a session and its entries.
func (t ExploreTx) DeleteExploreSession(ctx context.Context, id uuid.UUID) error {
	return removed("session")(t.q.DeleteExploreSession(ctx, t.tx, id))
}

// CountExploreEntries counts a session's entries, for its limit.
func (t ExploreTx) CountExploreEntries(ctx context.Context, session uuid.UUID) (int64, error) {
	return t.q.CountExploreEntries(ctx, t.tx, session)
}

// CreateExploreEntry appends an entry to a session.
func (t ExploreTx) CreateExploreEntry(ctx context.Context, e ExploreEntry) (ExploreEntry, error) {
	req, err := json.Marshal(e.Request)
	if err != nil {
		return ExploreEntry{}, err
	}
	var resp []byte
	if e.Response != nil {
		if resp, err = json.Marshal(e.Response); err != nil {
			return ExploreEntry{}, err
		}
	}
	row, err := t.q.CreateExploreEntry(ctx, t.tx, db.CreateExploreEntryParams{ID: e.ID, SessionID: e.SessionID,
		Request: req, Response: resp, Error: e.Error, DurationMs: e.DurationMS})
	if err != nil {
		return ExploreEntry{}, notFound(err, "session")
	}
	if err := t.q.TouchExploreSession(ctx, t.tx, e.SessionID); err != nil {
		return ExploreEntry{}, err
	}
	return entryFrom(row)
}

// ExploreEntry reads one entry of a session.
func (t ExploreTx) ExploreEntry(ctx context.Context, session, id uuid.UUID) (ExploreEntry, error) {
	return found("entry", entryFrom)(t.q.GetExploreEntry(ctx, t.tx, db.GetExploreEntryParams{SessionID: session, ID: id}))
}

// ExploreEntries lists a session's entries in the order they were sent.
func (t ExploreTx) ExploreEntries(ctx context.Context, session uuid.UUID) ([]ExploreEntry, error) {
	return each(entryFrom)(t.q.ListExploreEntries(ctx, t.tx, session))
}

func sessionFrom(r db.ExploreSession) ExploreSession {
	out := ExploreSession{ID: r.ID, OrgID: r.OrganizationID, Name: r.Name, BaseURL: r.BaseUrl, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.ServerID.Valid {
		id := r.ServerID.UUID
		out.ServerID = &id
	}
	return out
}

func entryFrom(r db.ExploreEntry) (ExploreEntry, error) {
	out := ExploreEntry{ID: r.ID, SessionID: r.SessionID, Error: r.Error, DurationMS: r.DurationMs, CreatedAt: r.CreatedAt}
	if err := json.Unmarshal(r.Request, &out.Request); err != nil {
		return ExploreEntry{}, fmt.Errorf("entry %s: decode request: %w", r.ID, err)
	}
	if len(r.Response) > 0 {
		out.Response = &resttest.Response{}
		if err := json.Unmarshal(r.Response, out.Response); err != nil {
			return ExploreEntry{}, fmt.Errorf("entry %s: decode response: %w", r.ID, err)
		}
	}
	return out, nil
}
