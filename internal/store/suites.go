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

// SuitesTx is the part of a transaction that keeps suites of REST API tests
// and their runs.
type SuitesTx struct{ *txConn }

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

// CreateSuite inserts a suite.
func (t SuitesTx) CreateSuite(ctx context.Context, s Suite) (Suite, error) {
	row, err := t.q.CreateRestSuite(ctx, t.tx, db.CreateRestSuiteParams{ID: s.ID, Name: s.Name, Description: s.Description,
		TestIds: nonNilIDs(s.TestIDs), StopOnFailure: s.StopOnFailure, Parallelism: int32(s.Parallelism), CreatedBy: s.CreatedBy})
	return suiteFrom(row), err
}

// Suite reads one suite.
func (t SuitesTx) Suite(ctx context.Context, id uuid.UUID) (Suite, error) {
	row, err := t.q.GetRestSuite(ctx, t.tx, id)
	return suiteFrom(row), notFound(err, "suite")
}

// SuiteByName reads the suite called name.
func (t SuitesTx) SuiteByName(ctx context.Context, name string) (Suite, error) {
	row, err := t.q.GetRestSuiteByName(ctx, t.tx, name)
	return suiteFrom(row), notFound(err, "suite")
}

// LockSuite reads one suite and locks it until the transaction ends.
func (t SuitesTx) LockSuite(ctx context.Context, id uuid.UUID) (Suite, error) {
	row, err := t.q.LockRestSuite(ctx, t.tx, id)
	return suiteFrom(row), notFound(err, "suite")
}

// Suites lists a page of suites, newest first, optionally only the one
// called name.
func (t SuitesTx) Suites(ctx context.Context, name string, after *PageKey, limit int) ([]Suite, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestSuites(ctx, t.tx, db.ListRestSuitesParams{Name: nonEmpty(name), AfterCreatedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestSuite) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, infallible(suiteFrom))(rows, err)
}

// UpdateSuite writes every field of s.
func (t SuitesTx) UpdateSuite(ctx context.Context, s Suite) (Suite, error) {
	row, err := t.q.UpdateRestSuite(ctx, t.tx, db.UpdateRestSuiteParams{ID: s.ID, Name: s.Name, Description: s.Description,
		TestIds: nonNilIDs(s.TestIDs), StopOnFailure: s.StopOnFailure, Parallelism: int32(s.Parallelism)})
	return suiteFrom(row), notFound(err, "suite")
}

// DeleteSuite deletes a suite and its runs (not its tests).
func (t SuitesTx) DeleteSuite(ctx context.Context, id uuid.UUID) error {
	return removed("suite")(t.q.DeleteRestSuite(ctx, t.tx, id))
}

// CreateSuiteRun stores a run of a suite.
func (t SuitesTx) CreateSuiteRun(ctx context.Context, r SuiteRun) (SuiteRun, error) {
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
func (t SuitesTx) SuiteRun(ctx context.Context, suite, id uuid.UUID) (SuiteRun, error) {
	row, err := t.q.GetRestSuiteRun(ctx, t.tx, db.GetRestSuiteRunParams{SuiteID: suite, ID: id})
	return found("suite run", suiteRunFrom)(row, err)
}

// SuiteRuns lists a page of a suite's runs, newest first.
func (t SuitesTx) SuiteRuns(ctx context.Context, suite uuid.UUID, after *PageKey, limit int) ([]SuiteRun, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestSuiteRuns(ctx, t.tx, db.ListRestSuiteRunsParams{SuiteID: suite, AfterStartedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestSuiteRun) PageKey { return PageKey{CreatedAt: r.StartedAt, ID: r.ID} }, suiteRunFrom)(rows, err)
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
