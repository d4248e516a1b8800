package store

import (
	"context"

	"github.com/google/uuid"

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

// InOrg runs fn in one transaction of org (see WithTx): by id, or by slug
// for an operator command, which fails naming "org" when no organization
// has the slug.
func (s *Store) InOrg(ctx context.Context, org OrgRef, fn func(*Tx) error) error {
	return s.inOrg(ctx, org, fn)
}

// inOrg is InOrg, for the parts of the Store.
func (s *conn) inOrg(ctx context.Context, org OrgRef, fn func(*Tx) error) error {
	scope := Scope{OrgID: org.ID, UserID: org.UserID}
	if org.ID == uuid.Nil {
		scope = Scope{OrgSlug: org.Slug}
	}
	return s.inTx(ctx, scope, func(tx *Tx) error {
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
