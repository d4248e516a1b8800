package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/store"
)

// policyRoutes names the policy routes, as Echo spells their paths.
var policyRoutes = map[string]string{
	"/api/platform/:server_id/mcp/spec":     "spec",
	"/api/platform/:server_id/mcp/validate": "validate",
	"/api/platform/:server_id/mcp/evidence": "evidence",
}

// maxUserAgent bounds the user agent kept in an audit record.
const maxUserAgent = 512

// auditPolicyCalls hands one record per call to a policy route to the audit
// writer, once the answer has been written, whatever it was: refusals (400,
// 401, 403, 404, 413) included, with the status actually sent. Handing over
// never blocks; the writer stores records in the background.
func (s *Server) auditPolicyCalls(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		route, ok := policyRoutes[c.Path()]
		if !ok || s.audit == nil {
			return next(c)
		}
		start := time.Now()
		finished := false
		defer func() {
			if !finished { // a panic on its way up: it will be answered 500
				s.recordPolicyCall(c, route, start, http.StatusInternalServerError)
			}
		}()
		if err := next(c); err != nil {
			c.Error(err)
		}
		finished = true
		s.recordPolicyCall(c, route, start, c.Response().Status)
		return nil
	}
}

func (s *Server) recordPolicyCall(c echo.Context, route string, start time.Time, status int) {
	req := c.Request()
	r := store.AuditRecord{
		Route: route, Status: status, ReceivedAt: start.UTC(),
		LatencyMS: float64(time.Since(start).Microseconds()) / 1000,
		UserAgent: truncateUTF8(req.UserAgent(), maxUserAgent),
		IP:        s.ips.Of(req),
	}
	if id, err := uuid.Parse(c.Param("server_id")); err == nil {
		r.AssetID = id
	}
	if p, ok := auth.FromContext(req.Context()); ok && p.IsKey() {
		r.KeyID, r.OrgID = p.KeyID, p.OrgID
	}
	s.audit.Record(r)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character, and
// replaces invalid bytes.
func truncateUTF8(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ListPolicyAudit lists the organization's policy audit records.
func (s *Server) ListPolicyAudit(ctx context.Context, req api.ListPolicyAuditRequestObject) (api.ListPolicyAuditResponseObject, error) {
	q := req.Params
	after, err := decodeCursor(deref(q.Cursor))
	if err != nil {
		return nil, err
	}
	f := store.AuditFilter{Since: q.Since, After: after, Limit: or(q.Limit, 100)}
	if q.ServerId != nil {
		f.ServerID = *q.ServerId
	}
	if q.KeyId != nil {
		f.KeyID = *q.KeyId
	}
	page, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (store.AuditPage, error) {
		return tx.PolicyAudit(ctx, f)
	})
	if err != nil {
		return nil, err
	}
	out := api.ListPolicyAudit200JSONResponse{Items: make([]api.PolicyAuditRecord, len(page.Records))}
	for i, r := range page.Records {
		out.Items[i] = apiAuditRecord(r)
	}
	out.NextCursor = nullableString(nil)
	if page.Next != nil {
		c := encodeCursor(*page.Next)
		out.NextCursor = nullableString(&c)
	}
	return out, nil
}

func apiAuditRecord(r store.AuditRecord) api.PolicyAuditRecord {
	out := api.PolicyAuditRecord{
		Id: r.ID, Route: api.PolicyAuditRecordRoute(r.Route), Status: r.Status, LatencyMs: r.LatencyMS,
		UserAgent: r.UserAgent, ReceivedAt: r.ReceivedAt.UTC(),
	}
	out.KeyId = nullableUUID(r.KeyID)
	out.AssetId = nullableUUID(r.AssetID)
	if r.IP.IsValid() {
		out.IpInet.Set(r.IP.String())
	} else {
		out.IpInet.SetNull()
	}
	return out
}
