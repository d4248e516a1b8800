package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// OrgRef names the organization a design is created in: by id, with the
// signed-in user when there is one, for a caller of the API; or by slug for
// an operator command.
type OrgRef struct {
	ID     uuid.UUID
	UserID uuid.UUID
	Slug   string
}

// ImportDesign creates d, made from a document (an OpenAPI document, a
// live MCP server), as a draft server of org, created by createdBy. The
// design is checked whole first, as a design made by hand would be
// (design.CheckDesign); everything gets new ids. It is the one way the REST
// API and the command line create a design from a document.
func (s *Store) ImportDesign(ctx context.Context, org OrgRef, d design.Design, createdBy string) (design.Server, error) {
	if err := design.CheckDesign(d); err != nil {
		return design.Server{}, err
	}
	var srv design.Server
	err := s.InOrg(ctx, org, func(tx *Tx) error {
		var err error
		srv, err = tx.CreateDesign(ctx, d, createdBy)
		return err
	})
	return srv, err
}

// InOrg runs fn in one transaction of org (see WithTx): by id, or by slug
// for an operator command, which fails naming "org" when no organization
// has the slug.
func (s *Store) InOrg(ctx context.Context, org OrgRef, fn func(*Tx) error) error {
	scope := Scope{OrgID: org.ID, UserID: org.UserID}
	if org.ID == uuid.Nil {
		scope = Scope{OrgSlug: org.Slug}
	}
	return s.WithTx(ctx, scope, func(tx *Tx) error {
		if org.ID == uuid.Nil {
			o, err := tx.OrganizationBySlug(ctx, org.Slug)
			if err != nil {
				return failure.Invalid(failure.Field("org", "no organization with slug %q", org.Slug))
			}
			if err := tx.SetOrg(ctx, o.ID); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}
