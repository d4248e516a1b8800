package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
)

// The journal methods of the changes to a design's tokens.
const (
	journalExpireTokens = "oauth/expire_tokens"
	journalRevokeTokens = "oauth/revoke_tokens"
)

// ExpireOAuthTokens expires every access token the design's authorization
// server issued until now; refresh tokens still work.
func (s *Server) ExpireOAuthTokens(ctx context.Context, req api.ExpireOAuthTokensRequestObject) (api.ExpireOAuthTokensResponseObject, error) {
	v, err := s.expireOAuthTokens(ctx, req.ServerId, false)
	if err != nil {
		return nil, err
	}
	return api.ExpireOAuthTokens200JSONResponse(s.apiServer(ctx, v)), nil
}

// RevokeOAuthTokens revokes every access and refresh token the design's
// authorization server issued until now.
func (s *Server) RevokeOAuthTokens(ctx context.Context, req api.RevokeOAuthTokensRequestObject) (api.RevokeOAuthTokensResponseObject, error) {
	v, err := s.expireOAuthTokens(ctx, req.ServerId, true)
	if err != nil {
		return nil, err
	}
	return api.RevokeOAuthTokens200JSONResponse(s.apiServer(ctx, v)), nil
}

// expireOAuthTokens writes the server's new instants (the change reaches
// every instance's compiled design through the design notifications) and
// records it in the server's journal.
func (s *Server) expireOAuthTokens(ctx context.Context, id uuid.UUID, revoke bool) (design.Server, error) {
	start := time.Now()
	v, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (design.Server, error) {
		return tx.ExpireOAuthTokens(ctx, id, revoke, s.now())
	})
	if err != nil {
		return v, err
	}
	if s.journal != nil {
		method := journalExpireTokens
		answer := map[string]any{"tokens_not_before": v.OAuthTokensNotBefore.UTC()}
		if revoke {
			method = journalRevokeTokens
			answer["refresh_not_before"] = v.OAuthRefreshNotBefore.UTC()
		}
		b, _ := json.Marshal(answer) // times always encode
		s.journal.Record(journal.Entry{OrgID: v.OrgID, ServerID: v.ID, ReceivedAt: start, Latency: time.Since(start),
			Method: method, Outcome: journal.OutcomeResult, Step: -1, Answer: b})
	}
	return v, nil
}

// ListOAuthClients lists the clients registered with the design's
// authorization server, never their secrets: 404 for a server that is not
// the organization's.
func (s *Server) ListOAuthClients(ctx context.Context, req api.ListOAuthClientsRequestObject) (api.ListOAuthClientsResponseObject, error) {
	clients, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) ([]store.OAuthClient, error) {
		if _, err := tx.Server(ctx, req.ServerId); err != nil {
			return nil, err
		}
		return tx.OAuthClients(ctx, req.ServerId)
	})
	if err != nil {
		return nil, err
	}
	items := make([]api.OAuthClient, len(clients))
	for i, c := range clients {
		items[i] = api.OAuthClient{ClientId: c.ClientID, ClientName: nullableText(c.Name), RedirectUris: nonNil(c.RedirectURIs),
			GrantTypes: nonNil(c.GrantTypes), TokenEndpointAuthMethod: api.OAuthClientTokenEndpointAuthMethod(c.AuthMethod),
			Scope: c.Scope, CreatedAt: c.CreatedAt, LastUsedAt: c.LastUsedAt}
	}
	return api.ListOAuthClients200JSONResponse{Items: items}, nil
}

// journalDeleteClients is the journal method of deleting a design's
// clients.
const journalDeleteClients = "oauth/delete_clients"

// DeleteOAuthClients deletes every client registered with the design's
// authorization server, with the codes and refresh tokens issued to them.
func (s *Server) DeleteOAuthClients(ctx context.Context, req api.DeleteOAuthClientsRequestObject) (api.DeleteOAuthClientsResponseObject, error) {
	start := time.Now()
	type deleted struct {
		org uuid.UUID
		n   int64
	}
	d, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (deleted, error) {
		srv, err := tx.LockServer(ctx, req.ServerId)
		if err != nil {
			return deleted{}, err
		}
		n, err := tx.DeleteOAuthClients(ctx, req.ServerId)
		return deleted{org: srv.OrgID, n: n}, err
	})
	if err != nil {
		return nil, err
	}
	if s.journal != nil {
		b, _ := json.Marshal(map[string]int64{"deleted": d.n}) // a number always encodes
		s.journal.Record(journal.Entry{OrgID: d.org, ServerID: req.ServerId, ReceivedAt: start, Latency: time.Since(start),
			Method: journalDeleteClients, Outcome: journal.OutcomeResult, Step: -1, Answer: b})
	}
	return api.DeleteOAuthClients204Response{}, nil
}
