package store

import (
	"context"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
)

// Audit is the part of the Store that appends policy audit records, outside
// any tenant transaction.
type Audit struct{ *conn }

// AuditTx is the part of a transaction that reads the policy audit.
type AuditTx struct{ *txConn }

// AuditRecord is one call to a policy route.
type AuditRecord struct {
	ID         uuid.UUID
	OrgID      uuid.UUID // uuid.Nil when the caller proved no identity
	KeyID      uuid.UUID // uuid.Nil when no key matched
	AssetID    uuid.UUID // uuid.Nil when the URL named no valid id
	Route      string    // spec, validate or evidence
	Status     int
	LatencyMS  float64
	UserAgent  string
	IP         netip.Addr // invalid when unknown
	ReceivedAt time.Time
}

// AuditPage is one page of audit records, newest first.
type AuditPage struct {
	Records []AuditRecord
	Next    *PageKey // (received_at, id) to continue after; nil on the last page
}

// AuditFilter narrows a listing; zero values do not filter.
type AuditFilter struct {
	ServerID, KeyID uuid.UUID
	Since           *time.Time
	After           *PageKey
	Limit           int
}

// AppendAudit writes records as one batch of inserts (one round trip), in
// one transaction that may only append to the audit table. Either all of
// them are written or none.
func (s Audit) AppendAudit(ctx context.Context, records []AuditRecord) error {
	if len(records) == 0 {
		return nil
	}
	params := make([]db.AppendAuditParams, len(records))
	for i, r := range records {
		params[i] = db.AppendAuditParams{
			ID: r.ID, OrganizationID: nullUUID(r.OrgID), KeyID: nullUUID(r.KeyID), AssetID: nullUUID(r.AssetID),
			Route: r.Route, Status: int32(r.Status), LatencyMs: r.LatencyMS, UserAgent: r.UserAgent,
			ReceivedAt: r.ReceivedAt,
		}
		if r.IP.IsValid() {
			ip := r.IP
			params[i].IpInet = &ip
		}
	}
	return s.inTx(ctx, Scope{AuditAppend: true}, func(tx *Tx) error {
		var first error
		tx.q.AppendAudit(ctx, tx.tx, params).Exec(func(_ int, err error) {
			if err != nil && first == nil {
				first = err
			}
		})
		return first
	})
}

// PolicyAudit lists the organization's audit records, newest first.
func (t AuditTx) PolicyAudit(ctx context.Context, f AuditFilter) (AuditPage, error) {
	p := db.ListPolicyAuditParams{
		ServerID: nullUUID(f.ServerID), KeyID: nullUUID(f.KeyID), Since: f.Since, RowLimit: int32(f.Limit + 1),
	}
	if f.After != nil {
		p.AfterReceivedAt = &f.After.CreatedAt
		p.AfterID = uuid.NullUUID{UUID: f.After.ID, Valid: true}
	}
	rows, err := t.q.ListPolicyAudit(ctx, t.tx, p)
	if err != nil {
		return AuditPage{}, err
	}
	var page AuditPage
	if len(rows) > f.Limit {
		rows = rows[:f.Limit]
		last := rows[len(rows)-1]
		page.Next = &PageKey{CreatedAt: last.ReceivedAt, ID: last.ID}
	}
	page.Records = make([]AuditRecord, len(rows))
	for i, r := range rows {
		page.Records[i] = auditFrom(r)
	}
	return page, nil
}

// RouteCalls is what the audit trail holds about one route of one server.
type RouteCalls struct {
	Route  string
	Calls  int64
	LastAt time.Time
}

// PolicyCalls summarizes the recorded policy calls on a server, per route.
func (t AuditTx) PolicyCalls(ctx context.Context, server uuid.UUID) ([]RouteCalls, error) {
	rows, err := t.q.PolicyCallStats(ctx, t.tx, uuid.NullUUID{UUID: server, Valid: true})
	out := make([]RouteCalls, len(rows))
	for i, r := range rows {
		out[i] = RouteCalls{Route: r.Route, Calls: r.Calls, LastAt: r.LastAt}
	}
	return out, err
}

func auditFrom(r db.PolicyApiAudit) AuditRecord {
	a := AuditRecord{
		ID: r.ID, OrgID: r.OrganizationID.UUID, KeyID: r.KeyID.UUID, AssetID: r.AssetID.UUID,
		Route: r.Route, Status: int(r.Status), LatencyMS: r.LatencyMs, UserAgent: r.UserAgent,
		ReceivedAt: r.ReceivedAt,
	}
	if r.IpInet != nil {
		a.IP = *r.IpInet
	}
	return a
}

func nullUUID(id uuid.UUID) uuid.NullUUID {
	return uuid.NullUUID{UUID: id, Valid: id != uuid.Nil}
}
