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

// RestTest is a stored REST API test case.
type RestTest struct {
	ID    uuid.UUID
	OrgID uuid.UUID
	Case  resttest.Case
	// GeneratedFrom records the scenario a generated test came from; nil
	// for tests written by hand.
	GeneratedFrom json.RawMessage
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// TestRun is a stored run of a test.
type TestRun struct {
	ID     uuid.UUID
	TestID uuid.UUID
	resttest.Run
}

// Suite is an ordered list of tests run together.
type Suite struct {
	ID            uuid.UUID
	OrgID         uuid.UUID
	Name          string
	Description   string
	TestIDs       []uuid.UUID
	StopOnFailure bool
	Parallelism   int
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// SuiteRun is a stored run of a suite.
type SuiteRun struct {
	ID                                            uuid.UUID
	SuiteID                                       uuid.UUID
	Passed                                        bool
	Total, PassedCount, FailedCount, SkippedCount int
	StartedAt                                     time.Time
	DurationMS                                    float64
	TestRuns                                      []resttest.SuiteTestRun
}

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

// CreateRestTest inserts a test case.
func (t *Tx) CreateRestTest(ctx context.Context, id uuid.UUID, c resttest.Case, generatedFrom json.RawMessage, createdBy string) (RestTest, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return RestTest{}, err
	}
	row, err := t.q.CreateRestTest(ctx, t.tx, db.CreateRestTestParams{ID: id, Name: c.Name, TestCase: doc,
		GeneratedFrom: jsonOrNull(generatedFrom), CreatedBy: createdBy})
	return converted(restTestFrom)(row, err)
}

// RestTest reads one test case.
func (t *Tx) RestTest(ctx context.Context, id uuid.UUID) (RestTest, error) {
	return found("test", restTestFrom)(t.q.GetRestTest(ctx, t.tx, id))
}

// LockRestTest reads one test case and locks it until the transaction ends.
func (t *Tx) LockRestTest(ctx context.Context, id uuid.UUID) (RestTest, error) {
	return found("test", restTestFrom)(t.q.LockRestTest(ctx, t.tx, id))
}

// RestTests lists a page of test cases, newest first.
func (t *Tx) RestTests(ctx context.Context, after *PageKey, limit int) ([]RestTest, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestTests(ctx, t.tx, db.ListRestTestsParams{AfterCreatedAt: at, AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestTest) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, restTestFrom)(rows, err)
}

// RestTestsByID reads the test cases with the given ids that exist, by id.
func (t *Tx) RestTestsByID(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]RestTest, error) {
	rows, err := t.q.RestTestsByID(ctx, t.tx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]RestTest, len(rows))
	for _, r := range rows {
		rt, err := restTestFrom(r)
		if err != nil {
			return nil, err
		}
		out[rt.ID] = rt
	}
	return out, nil
}

// UpdateRestTest writes a test case.
func (t *Tx) UpdateRestTest(ctx context.Context, id uuid.UUID, c resttest.Case) (RestTest, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return RestTest{}, err
	}
	row, err := t.q.UpdateRestTest(ctx, t.tx, db.UpdateRestTestParams{ID: id, Name: c.Name, TestCase: doc})
	return found("test", restTestFrom)(row, err)
}

// DeleteRestTest deletes a test case and its runs.
func (t *Tx) DeleteRestTest(ctx context.Context, id uuid.UUID) error {
	return removed("test")(t.q.DeleteRestTest(ctx, t.tx, id))
}

// CreateTestRun stores a run of a test.
func (t *Tx) CreateTestRun(ctx context.Context, id, test uuid.UUID, r resttest.Run) (TestRun, error) {
	results, err := json.Marshal(nonNilResults(r.Results))
	if err != nil {
		return TestRun{}, err
	}
	row, err := t.q.CreateRestTestRun(ctx, t.tx, db.CreateRestTestRunParams{ID: id, TestID: test, Passed: r.Passed,
		StartedAt: r.StartedAt, DurationMs: r.DurationMS, Results: results})
	return found("test", testRunFrom)(row, err)
}

// TestRuns lists a page of a test's runs, newest first.
func (t *Tx) TestRuns(ctx context.Context, test uuid.UUID, after *PageKey, limit int) ([]TestRun, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestTestRuns(ctx, t.tx, db.ListRestTestRunsParams{TestID: test, AfterStartedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestTestRun) PageKey { return PageKey{CreatedAt: r.StartedAt, ID: r.ID} }, testRunFrom)(rows, err)
}

// CreateSuite inserts a suite.
func (t *Tx) CreateSuite(ctx context.Context, s Suite) (Suite, error) {
	row, err := t.q.CreateRestSuite(ctx, t.tx, db.CreateRestSuiteParams{ID: s.ID, Name: s.Name, Description: s.Description,
		TestIds: nonNilIDs(s.TestIDs), StopOnFailure: s.StopOnFailure, Parallelism: int32(s.Parallelism), CreatedBy: s.CreatedBy})
	return suiteFrom(row), err
}

// Suite reads one suite.
func (t *Tx) Suite(ctx context.Context, id uuid.UUID) (Suite, error) {
	row, err := t.q.GetRestSuite(ctx, t.tx, id)
	return suiteFrom(row), notFound(err, "suite")
}

// SuiteByName reads the suite called name.
func (t *Tx) SuiteByName(ctx context.Context, name string) (Suite, error) {
	row, err := t.q.GetRestSuiteByName(ctx, t.tx, name)
	return suiteFrom(row), notFound(err, "suite")
}

// LockSuite reads one suite and locks it until the transaction ends.
func (t *Tx) LockSuite(ctx context.Context, id uuid.UUID) (Suite, error) {
	row, err := t.q.LockRestSuite(ctx, t.tx, id)
	return suiteFrom(row), notFound(err, "suite")
}

// Suites lists a page of suites, newest first, optionally only the one
// called name.
func (t *Tx) Suites(ctx context.Context, name string, after *PageKey, limit int) ([]Suite, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestSuites(ctx, t.tx, db.ListRestSuitesParams{Name: nonEmpty(name), AfterCreatedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestSuite) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, infallible(suiteFrom))(rows, err)
}

// UpdateSuite writes every field of s.
func (t *Tx) UpdateSuite(ctx context.Context, s Suite) (Suite, error) {
	row, err := t.q.UpdateRestSuite(ctx, t.tx, db.UpdateRestSuiteParams{ID: s.ID, Name: s.Name, Description: s.Description,
		TestIds: nonNilIDs(s.TestIDs), StopOnFailure: s.StopOnFailure, Parallelism: int32(s.Parallelism)})
	return suiteFrom(row), notFound(err, "suite")
}

// DeleteSuite deletes a suite and its runs (not its tests).
func (t *Tx) DeleteSuite(ctx context.Context, id uuid.UUID) error {
	return removed("suite")(t.q.DeleteRestSuite(ctx, t.tx, id))
}

// CreateSuiteRun stores a run of a suite.
func (t *Tx) CreateSuiteRun(ctx context.Context, r SuiteRun) (SuiteRun, error) {
	runs, err := json.Marshal(r.TestRuns)
	if err != nil {
		return SuiteRun{}, err
	}
	row, err := t.q.CreateRestSuiteRun(ctx, t.tx, db.CreateRestSuiteRunParams{ID: r.ID, SuiteID: r.SuiteID, Passed: r.Passed,
		Total: int32(r.Total), PassedCount: int32(r.PassedCount), FailedCount: int32(r.FailedCount),
		SkippedCount: int32(r.SkippedCount), StartedAt: r.StartedAt, DurationMs: r.DurationMS, TestRuns: runs})
	return found("suite", suiteRunFrom)(row, err)
}

// SuiteRun reads one run of a suite.
func (t *Tx) SuiteRun(ctx context.Context, suite, id uuid.UUID) (SuiteRun, error) {
	row, err := t.q.GetRestSuiteRun(ctx, t.tx, db.GetRestSuiteRunParams{SuiteID: suite, ID: id})
	return found("suite run", suiteRunFrom)(row, err)
}

// SuiteRuns lists a page of a suite's runs, newest first.
func (t *Tx) SuiteRuns(ctx context.Context, suite uuid.UUID, after *PageKey, limit int) ([]SuiteRun, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestSuiteRuns(ctx, t.tx, db.ListRestSuiteRunsParams{SuiteID: suite, AfterStartedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestSuiteRun) PageKey { return PageKey{CreatedAt: r.StartedAt, ID: r.ID} }, suiteRunFrom)(rows, err)
}

// CreateExploreSession inserts a session.
func (t *Tx) CreateExploreSession(ctx context.Context, s ExploreSession) (ExploreSession, error) {
	var server uuid.NullUUID
	if s.ServerID != nil {
		server = uuid.NullUUID{UUID: *s.ServerID, Valid: true}
	}
	row, err := t.q.CreateExploreSession(ctx, t.tx, db.CreateExploreSessionParams{ID: s.ID, Name: s.Name,
		BaseUrl: s.BaseURL, ServerID: server, CreatedBy: s.CreatedBy})
	return sessionFrom(row), err
}

// ExploreSession reads one session.
func (t *Tx) ExploreSession(ctx context.Context, id uuid.UUID) (ExploreSession, error) {
	row, err := t.q.GetExploreSession(ctx, t.tx, id)
	return sessionFrom(row), notFound(err, "session")
}

// ExploreSessions lists a page of sessions, newest first.
func (t *Tx) ExploreSessions(ctx context.Context, after *PageKey, limit int) ([]ExploreSession, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListExploreSessions(ctx, t.tx, db.ListExploreSessionsParams{AfterCreatedAt: at, AfterID: aid,
		RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.ExploreSession) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, infallible(sessionFrom))(rows, err)
}

// DeleteExploreSession deletes a session and its entries.
func (t *Tx) DeleteExploreSession(ctx context.Context, id uuid.UUID) error {
	return removed("session")(t.q.DeleteExploreSession(ctx, t.tx, id))
}

// CountExploreEntries counts a session's entries, for its limit.
func (t *Tx) CountExploreEntries(ctx context.Context, session uuid.UUID) (int64, error) {
	return t.q.CountExploreEntries(ctx, t.tx, session)
}

// CreateExploreEntry appends an entry to a session.
func (t *Tx) CreateExploreEntry(ctx context.Context, e ExploreEntry) (ExploreEntry, error) {
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
func (t *Tx) ExploreEntry(ctx context.Context, session, id uuid.UUID) (ExploreEntry, error) {
	return found("entry", entryFrom)(t.q.GetExploreEntry(ctx, t.tx, db.GetExploreEntryParams{SessionID: session, ID: id}))
}

// ExploreEntries lists a session's entries in the order they were sent.
func (t *Tx) ExploreEntries(ctx context.Context, session uuid.UUID) ([]ExploreEntry, error) {
	return each(entryFrom)(t.q.ListExploreEntries(ctx, t.tx, session))
}

func restTestFrom(r db.RestTest) (RestTest, error) {
	out := RestTest{ID: r.ID, OrgID: r.OrganizationID, GeneratedFrom: r.GeneratedFrom, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal(r.TestCase, &out.Case); err != nil {
		return RestTest{}, fmt.Errorf("test %s: decode stored case: %w", r.ID, err)
	}
	return out, nil
}

func testRunFrom(r db.RestTestRun) (TestRun, error) {
	out := TestRun{ID: r.ID, TestID: r.TestID, Run: resttest.Run{Passed: r.Passed, StartedAt: r.StartedAt,
		DurationMS: r.DurationMs}}
	if err := json.Unmarshal(r.Results, &out.Results); err != nil {
		return TestRun{}, fmt.Errorf("test run %s: decode results: %w", r.ID, err)
	}
	out.Results = nonNilResults(out.Results)
	return out, nil
}

func suiteFrom(r db.RestSuite) Suite {
	return Suite{ID: r.ID, OrgID: r.OrganizationID, Name: r.Name, Description: r.Description,
		TestIDs: nonNilIDs(r.TestIds), StopOnFailure: r.StopOnFailure, Parallelism: int(r.Parallelism),
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func suiteRunFrom(r db.RestSuiteRun) (SuiteRun, error) {
	out := SuiteRun{ID: r.ID, SuiteID: r.SuiteID, Passed: r.Passed, Total: int(r.Total), PassedCount: int(r.PassedCount),
		FailedCount: int(r.FailedCount), SkippedCount: int(r.SkippedCount), StartedAt: r.StartedAt, DurationMS: r.DurationMs}
	if err := json.Unmarshal(r.TestRuns, &out.TestRuns); err != nil {
		return SuiteRun{}, fmt.Errorf("suite run %s: decode test runs: %w", r.ID, err)
	}
	if out.TestRuns == nil {
		out.TestRuns = []resttest.SuiteTestRun{}
	}
	return out, nil
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

func nonNilResults(r []resttest.Result) []resttest.Result {
	if r == nil {
		return []resttest.Result{}
	}
	return r
}

func nonNilIDs(ids []uuid.UUID) []uuid.UUID {
	if ids == nil {
		return []uuid.UUID{}
	}
	return ids
}
