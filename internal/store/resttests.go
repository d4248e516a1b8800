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

// RestTestsTx is the part of a transaction that keeps REST API tests and
// their runs.
type RestTestsTx struct{ *txConn }

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

// CreateRestTest inserts a test case.
func (t RestTestsTx) CreateRestTest(ctx context.Context, id uuid.UUID, c resttest.Case, generatedFrom json.RawMessage, createdBy string) (RestTest, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return RestTest{}, err
	}
	row, err := t.q.CreateRestTest(ctx, t.tx, db.CreateRestTestParams{ID: id, Name: c.Name, TestCase: doc,
		GeneratedFrom: jsonOrNull(generatedFrom), CreatedBy: createdBy})
	return converted(restTestFrom)(row, err)
}

// RestTest reads one test case.
func (t RestTestsTx) RestTest(ctx context.Context, id uuid.UUID) (RestTest, error) {
	return found("test", restTestFrom)(t.q.GetRestTest(ctx, t.tx, id))
}

// LockRestTest reads one test case and locks it until the transaction ends.
func (t RestTestsTx) LockRestTest(ctx context.Context, id uuid.UUID) (RestTest, error) {
	return found("test", restTestFrom)(t.q.LockRestTest(ctx, t.tx, id))
}

// RestTests lists a page of test cases, newest first.
func (t RestTestsTx) RestTests(ctx context.Context, after *PageKey, limit int) ([]RestTest, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestTests(ctx, t.tx, db.ListRestTestsParams{AfterCreatedAt: at, AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestTest) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} }, restTestFrom)(rows, err)
}

// RestTestsByID reads the test cases with the given ids that exist, by id.
func (t RestTestsTx) RestTestsByID(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]RestTest, error) {
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
func (t RestTestsTx) UpdateRestTest(ctx context.Context, id uuid.UUID, c resttest.Case) (RestTest, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return RestTest{}, err
	}
	row, err := t.q.UpdateRestTest(ctx, t.tx, db.UpdateRestTestParams{ID: id, Name: c.Name, TestCase: doc})
	return found("test", restTestFrom)(row, err)
}

// DeleteRestTest deletes a test case and its runs.
func (t RestTestsTx) DeleteRestTest(ctx context.Context, id uuid.UUID) error {
	return removed("test")(t.q.DeleteRestTest(ctx, t.tx, id))
}

// CreateTestRun stores a run of a test.
func (t RestTestsTx) CreateTestRun(ctx context.Context, id, test uuid.UUID, r resttest.Run) (TestRun, error) {
	results, err := json.Marshal(nonNilResults(r.Results))
	if err != nil {
		return TestRun{}, err
	}
	row, err := t.q.CreateRestTestRun(ctx, t.tx, db.CreateRestTestRunParams{ID: id, TestID: test, Passed: r.Passed,
		StartedAt: r.StartedAt, DurationMs: r.DurationMS, Results: results})
	return found("test", testRunFrom)(row, err)
}

// TestRuns lists a page of a test's runs, newest first.
func (t RestTestsTx) TestRuns(ctx context.Context, test uuid.UUID, after *PageKey, limit int) ([]TestRun, *PageKey, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListRestTestRuns(ctx, t.tx, db.ListRestTestRunsParams{TestID: test, AfterStartedAt: at,
		AfterID: aid, RowLimit: int32(limit + 1)})
	return pageOf(limit, func(r db.RestTestRun) PageKey { return PageKey{CreatedAt: r.StartedAt, ID: r.ID} }, testRunFrom)(rows, err)
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
