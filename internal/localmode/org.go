// Package localmode serves a folder of design files without an account: it
// makes sure the local organization exists, applies every design file of
// the folder into it at start, and re-applies a file soon after it changes.
// What applying a document means (parsing, checking, writing the server in
// one transaction) is the caller's ApplyFunc; this package finds the files,
// notices changes and reports the outcome.
package localmode

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// The organization local mode applies designs into. It has no members: no
// one signs up for it; an operator reaches its data with a key made by
// `mockmcp keys create --org local`.
const (
	OrgSlug = "local"
	OrgName = "Local"
)

// EnsureOrg returns the organization with slug OrgSlug, creating it (named
// OrgName) when it is missing. Instances that start at once over the same
// database all get the one organization: an instance whose insert loses the
// race on the unique slug reads the winner's row instead.
func EnsureOrg(ctx context.Context, st *store.Store) (store.OrgRef, error) {
	fresh := uuid.New()
	var org store.Organization
	// The scope lets the transaction see the organization by its slug and
	// insert one whose id is fresh; nothing else is visible to it.
	err := st.WithTx(ctx, store.Scope{OrgID: fresh, OrgSlug: OrgSlug}, func(tx *store.Tx) error {
		o, err := tx.OrganizationBySlug(ctx, OrgSlug)
		if err == nil {
			org = o
			return nil
		}
		if !errors.Is(err, failure.ErrNotFound) {
			return err
		}
		// CreateOrganization inserts in a savepoint, so a unique violation
		// (another instance committed the slug meanwhile) leaves this
		// transaction usable, and the read below sees that commit.
		o, cerr := tx.CreateOrganization(ctx, fresh, OrgName, OrgSlug)
		if cerr == nil {
			org = o
			return nil
		}
		if o, err = tx.OrganizationBySlug(ctx, OrgSlug); err == nil {
			org = o
			return nil
		}
		return cerr
	})
	if err != nil {
		return store.OrgRef{}, err
	}
	return store.OrgRef{ID: org.ID, Slug: org.Slug}, nil
}
