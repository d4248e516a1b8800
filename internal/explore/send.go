package explore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// InTx runs fn in one transaction of the caller's organization.
type InTx func(ctx context.Context, fn func(Store) error) error

// Runner sends a case as a test run would: *resttest.Runner is one.
type Runner interface {
	Run(ctx context.Context, c resttest.Case) resttest.Run
}

// Request is one ad-hoc request of a session: a path below its base URL.
type Request struct {
	Method, Path         string
	QueryParams, Headers map[string]string
	Body                 json.RawMessage
}

// Send sends req in the session and logs it. runner gives the runner to
// send it with and what releases it. The session is read and its log
// counted in one transaction, the request is sent outside any, and the
// entry is written in another, under ctx without its cancellation: a
// caller gone once the request was sent loses nothing.
func Send(ctx context.Context, inTx InTx, runner func() (Runner, func()), session uuid.UUID, req Request) (store.ExploreEntry, error) {
	var v store.ExploreSession
	err := inTx(ctx, func(st Store) (err error) {
		if v, err = st.ExploreSession(ctx, session); err != nil {
			return err
		}
		n, err := st.CountExploreEntries(ctx, v.ID)
		if err == nil && n >= MaxEntries {
			return failure.Invalid(failure.Field("session", "a session keeps at most %d requests; start a new one", MaxEntries))
		}
		return err
	})
	if err != nil {
		return store.ExploreEntry{}, err
	}
	// The request is one scope of a one-off case: the runner builds, sends,
	// masks and parses it exactly as a test run would.
	c := resttest.Case{Name: "session request", BaseURL: v.BaseURL,
		Scopes: []resttest.Scope{{Method: req.Method, Path: req.Path}},
		Input:  resttest.Input{QueryParams: req.QueryParams, Headers: req.Headers, Body: req.Body}}
	resttest.Normalize(&c)
	if errs := resttest.CheckRequest(c); len(errs) > 0 {
		return store.ExploreEntry{}, failure.Invalid(errs...)
	}
	r, done := runner()
	defer done()
	started := time.Now()
	res := r.Run(ctx, c).Results[0]
	entry := store.ExploreEntry{ID: uuid.New(), SessionID: v.ID, Request: res.Request, Response: res.Response,
		Error: res.Error, DurationMS: float64(time.Since(started).Microseconds()) / 1000}
	kept := context.WithoutCancel(ctx)
	err = inTx(kept, func(st Store) (err error) {
		entry, err = st.CreateExploreEntry(kept, entry)
		return err
	})
	return entry, err
}
