package store

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/jackc/pgx/v5/pgtype"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// ServersTx is the part of a transaction that keeps servers, the root of a
// design.
type ServersTx struct{ *txConn }

// ServerPage is one page of servers, newest first.
type ServerPage struct {
	Servers []design.Server
	// Next is the (created_at, id) after which the next page starts; nil on
	// the last page.
	Next *PageKey
}

// PageKey is a keyset pagination position.
type PageKey struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// Counts of what a server owns, for the limits.
type Counts struct {
	Tools, Resources, Prompts int64
}

// CreateServer inserts s in the transaction's organization.
func (t ServersTx) CreateServer(ctx context.Context, s design.Server) (design.Server, error) {
	up := upstreamColumns(s.Upstream)
	row, err := t.q.CreateServer(ctx, t.tx, db.CreateServerParams{
		ID: s.ID, Name: s.Name, Description: s.Description, Version: s.Version,
		ProviderName: s.ProviderName, ProviderUrl: s.ProviderURL, Type: s.Type,
		ProtocolVersion: s.ProtocolVersion, AuthMode: s.AuthMode, CreatedBy: s.CreatedBy, Source: jsonOrNull(s.Source),
		Fault: faultJSON(s.Fault), Eras: s.Eras, CacheTtlMs: int32(s.CacheTTLMs), CacheScope: s.CacheScope,
		UpstreamUrl: up.url, UpstreamMode: up.mode, UpstreamHeaderNames: up.names, UpstreamHeaders: up.sealed,
		Oauth: oauthJSON(s.OAuth), State: stateJSON(s.State), Seed: seedColumn(s.Seed),
		Skills: skillsJSON(s.Skills),
	})
	return serverFrom(row), err
}

// Server reads one server.
func (t ServersTx) Server(ctx context.Context, id uuid.UUID) (design.Server, error) {
	row, err := t.q.GetServer(ctx, t.tx, id)
	return serverFrom(row), notFound(err, "server")
}

// ServersNamed lists the organization's servers named name, oldest
// first.
func (t ServersTx) ServersNamed(ctx context.Context, name string) ([]design.Server, error) {
	return each(infallible(serverFrom))(t.q.ServersNamed(ctx, t.tx, name))
}

// LockServerName waits for, and holds until the transaction ends, the
// organization's lock on the server name name, so that two transactions
// that would create a server of that name run one after the other.
func (t ServersTx) LockServerName(ctx context.Context, name string) error {
	return t.q.LockServerName(ctx, t.tx, name)
}

// LockServer reads one server and locks it until the transaction ends, so
// concurrent changes to what it owns are checked against its limits in turn.
func (t ServersTx) LockServer(ctx context.Context, id uuid.UUID) (design.Server, error) {
	row, err := t.q.LockServer(ctx, t.tx, id)
	return serverFrom(row), notFound(err, "server")
}

// Servers lists a page of at most limit servers after the key.
func (t ServersTx) Servers(ctx context.Context, after *PageKey, limit int) (ServerPage, error) {
	at, aid := pageParams(after)
	rows, err := t.q.ListServers(ctx, t.tx, db.ListServersParams{AfterCreatedAt: at, AfterID: aid, RowLimit: int32(limit + 1)})
	if err != nil {
		return ServerPage{}, err
	}
	servers, next, err := page(rows, limit, func(r db.McpServer) PageKey { return PageKey{CreatedAt: r.CreatedAt, ID: r.ID} },
		infallible(serverFrom))
	return ServerPage{Servers: servers, Next: next}, err
}

// UpdateServer writes every field of s.
func (t ServersTx) UpdateServer(ctx context.Context, s design.Server) (design.Server, error) {
	up := upstreamColumns(s.Upstream)
	row, err := t.q.UpdateServer(ctx, t.tx, db.UpdateServerParams{
		ID: s.ID, Name: s.Name, Description: s.Description, Version: s.Version,
		ProviderName: s.ProviderName, ProviderUrl: s.ProviderURL, Type: s.Type, Enabled: s.Enabled,
		ProtocolVersion: s.ProtocolVersion, AuthMode: s.AuthMode, Fault: faultJSON(s.Fault),
		Eras: s.Eras, CacheTtlMs: int32(s.CacheTTLMs), CacheScope: s.CacheScope,
		UpstreamUrl: up.url, UpstreamMode: up.mode, UpstreamHeaderNames: up.names, UpstreamHeaders: up.sealed,
		Oauth: oauthJSON(s.OAuth), State: stateJSON(s.State), Seed: seedColumn(s.Seed),
		Skills: skillsJSON(s.Skills),
	})
	return serverFrom(row), notFound(err, "server")
}

// TouchServer bumps the server's updated_at when something it owns changes,
// so anything cached from the design knows it is stale.
func (t ServersTx) TouchServer(ctx context.Context, id uuid.UUID) error {
	return t.q.TouchServer(ctx, t.tx, id)
}

// DeleteServer deletes a server and everything it owns.
func (t ServersTx) DeleteServer(ctx context.Context, id uuid.UUID) error {
	return removed("server")(t.q.DeleteServer(ctx, t.tx, id))
}

// CountChildren counts the tools, resources and prompts of a server.
func (t ServersTx) CountChildren(ctx context.Context, id uuid.UUID) (Counts, error) {
	c, err := t.q.CountServerChildren(ctx, t.tx, id)
	return Counts{Tools: c.Tools, Resources: c.Resources, Prompts: c.Prompts}, err
}

// DuplicateServer copies src, with everything it owns, into a new draft
// server named name.
func (t ServersTx) DuplicateServer(ctx context.Context, src design.Server, id uuid.UUID, name, createdBy string) (design.Server, error) {
	cp := src
	cp.ID, cp.Name, cp.CreatedBy = id, name, createdBy
	dst, err := t.CreateServer(ctx, cp)
	if err != nil {
		return design.Server{}, err
	}
	if _, err := t.q.CopyServerTools(ctx, t.tx, db.CopyServerToolsParams{NewServerID: id, ServerID: src.ID}); err != nil {
		return design.Server{}, err
	}
	if _, err := t.q.CopyServerResources(ctx, t.tx, db.CopyServerResourcesParams{NewServerID: id, ServerID: src.ID}); err != nil {
		return design.Server{}, err
	}
	if _, err := t.q.CopyServerPrompts(ctx, t.tx, db.CopyServerPromptsParams{NewServerID: id, ServerID: src.ID}); err != nil {
		return design.Server{}, err
	}
	return dst, nil
}

// skillsJSON is a design's skills as their column holds them: [] for none.
func skillsJSON(skills []design.Skill) []byte {
	if len(skills) == 0 {
		return []byte("[]")
	}
	b, _ := json.Marshal(skills) // strings, maps of strings and slices always encode
	return b
}

// seedColumn is a design's seed as its column holds it (NULL for none).
func seedColumn(seed *int64) pgtype.Int8 {
	if seed == nil {
		return pgtype.Int8{}
	}
	return pgtype.Int8{Int64: *seed, Valid: true}
}

func serverFrom(r db.McpServer) design.Server {
	out := design.Server{ID: r.ID, OrgID: r.OrganizationID, Name: r.Name, Description: r.Description, Version: r.Version,
		ProviderName: r.ProviderName, ProviderURL: r.ProviderUrl, Type: r.Type, Enabled: r.Enabled,
		ProtocolVersion: r.ProtocolVersion, Eras: r.Eras, CacheTTLMs: int(r.CacheTtlMs), CacheScope: r.CacheScope,
		AuthMode: r.AuthMode, CreatedBy: r.CreatedBy, Source: r.Source, State: r.State, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.Seed.Valid {
		out.Seed = &r.Seed.Int64
	}
	if len(r.Fault) > 0 && string(r.Fault) != "null" {
		out.Fault = new(mockspec.Fault)
		// The column is written from a mockspec.Fault only.
		_ = json.Unmarshal(r.Fault, out.Fault)
	}
	// The column is written from an oauthcfg.Settings only.
	_ = json.Unmarshal(r.Oauth, &out.OAuth)
	// The column is written from []design.Skill only.
	_ = json.Unmarshal(r.Skills, &out.Skills)
	if r.OauthTokensNotBefore != nil {
		out.OAuthTokensNotBefore = *r.OauthTokensNotBefore
	}
	if r.OauthRefreshNotBefore != nil {
		out.OAuthRefreshNotBefore = *r.OauthRefreshNotBefore
	}
	if r.UpstreamUrl != nil && r.UpstreamMode != nil {
		out.Upstream = &design.Upstream{URL: *r.UpstreamUrl, Mode: *r.UpstreamMode, HeaderNames: r.UpstreamHeaderNames,
			SealedHeaders: r.UpstreamHeaders}
	}
	return out
}

// upstreamCols are the columns of a server's upstream, all NULL (no names)
// when it has none.
type upstreamCols struct {
	url, mode *string
	names     []string
	sealed    []byte
}

func upstreamColumns(u *design.Upstream) upstreamCols {
	if u == nil {
		return upstreamCols{names: []string{}}
	}
	names := u.HeaderNames
	if names == nil {
		names = []string{}
	}
	return upstreamCols{url: &u.URL, mode: &u.Mode, names: names, sealed: u.SealedHeaders}
}

// oauthJSON is the column value of a server's OAuth settings.
func oauthJSON(o oauthcfg.Settings) []byte {
	b, _ := json.Marshal(o) // plain fields always encode
	return b
}

// ExpireOAuthTokens expires every access token of the server's design
// issued before now and, with revoke, revokes every refresh token too.
func (t ServersTx) ExpireOAuthTokens(ctx context.Context, id uuid.UUID, revoke bool, now time.Time) (design.Server, error) {
	row, err := t.q.ExpireOAuthTokens(ctx, t.tx, db.ExpireOAuthTokensParams{ID: id, Revoke: revoke, Now: now})
	return serverFrom(row), notFound(err, "server")
}

// faultJSON is the column value of a server's or a tool's fault, NULL when it
// has none.
func faultJSON(f *mockspec.Fault) []byte {
	if f == nil {
		return nil
	}
	b, _ := json.Marshal(f) // plain fields always encode
	return b
}

// notFound turns "no rows" into a not-found failure naming what.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return failure.NotFound(what)
	}
	return err
}

// jsonOrNull keeps an absent JSON value as SQL NULL.
func jsonOrNull(v json.RawMessage) []byte {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}
