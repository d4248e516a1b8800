package store

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

var _ oauthcfg.Designs = (*Store)(nil)

// OAuthDesign reads what the authorization server of an enabled server's
// design needs, by id alone, as ServedDesign does: the server row through
// the public endpoint's policy, the tools as the server's organization.
func (s *Store) OAuthDesign(ctx context.Context, id uuid.UUID) (oauthcfg.Design, error) {
	var d oauthcfg.Design
	err := s.WithTx(ctx, Scope{PublicServerID: id}, func(tx *Tx) error {
		row, err := tx.q.GetServedServer(ctx, tx.tx, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return failure.NotFound("server")
		}
		if err != nil {
			return err
		}
		srv := serverFrom(row)
		d = OAuthView(srv, nil)
		if err := tx.SetOrg(ctx, srv.OrgID); err != nil {
			return err
		}
		rows, err := tx.q.ToolScopes(ctx, tx.tx, id)
		if err != nil {
			return err
		}
		for _, r := range rows {
			d.ToolScopes[r.Name] = textArray(r.RequiredScopes)
		}
		return nil
	})
	return d, err
}

// OAuthView is the OAuth view of server s whose tools are tools (only
// their names and scopes are read).
func OAuthView(s design.Server, tools []design.Tool) oauthcfg.Design {
	d := oauthcfg.Design{ServerID: s.ID, OrgID: s.OrgID, OAuth: s.AuthMode == design.AuthModeOAuth,
		Settings: s.OAuth, ToolScopes: map[string][]string{},
		TokensNotBefore: s.OAuthTokensNotBefore, RefreshNotBefore: s.OAuthRefreshNotBefore}
	for _, t := range tools {
		if len(t.RequiredScopes) > 0 {
			d.ToolScopes[t.Name] = t.RequiredScopes
		}
	}
	return d
}
