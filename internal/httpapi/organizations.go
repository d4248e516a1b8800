package httpapi

import (
	"context"
	"math"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListOrganizations lists the caller's organizations with their role.
func (s *Server) ListOrganizations(ctx context.Context, _ api.ListOrganizationsRequestObject) (api.ListOrganizationsResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var orgs []store.Organization
	err = s.store.WithTx(ctx, store.Scope{UserID: p.UserID}, func(tx *store.Tx) error {
		orgs, err = tx.UserOrganizations(ctx, p.UserID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.ListOrganizations200JSONResponse{Items: apiOrgs(orgs)}, nil
}

// CreateOrganization creates an organization owned by the caller.
func (s *Server) CreateOrganization(ctx context.Context, req api.CreateOrganizationRequestObject) (api.CreateOrganizationResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, failure.Invalid(failure.Field("name", "must not be blank"))
	}
	id := uuid.New()
	var org store.Organization
	err = s.store.WithTx(ctx, store.Scope{UserID: p.UserID, OrgID: id}, func(tx *store.Tx) error {
		if org, err = tx.CreateOrganization(ctx, id, name, deref(req.Body.Slug)); err != nil {
			return err
		}
		org.Role = store.RoleOwner
		return tx.AddOwner(ctx, id, p.UserID)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateOrganization201JSONResponse(apiOrg(org)), nil
}

// GetOrganization reads one of the caller's organizations.
func (s *Server) GetOrganization(ctx context.Context, req api.GetOrganizationRequestObject) (api.GetOrganizationResponseObject, error) {
	org, err := inOrgValue(ctx, s, req.OrgId, func(tx *store.Tx, _ auth.Principal, role string) (store.Organization, error) {
		return tx.Organization(ctx, req.OrgId, role)
	})
	if err != nil {
		return nil, err
	}
	return api.GetOrganization200JSONResponse(apiOrg(org)), nil
}

// UpdateOrganization changes an organization's settings; owners only.
func (s *Server) UpdateOrganization(ctx context.Context, req api.UpdateOrganizationRequestObject) (api.UpdateOrganizationResponseObject, error) {
	org, err := inOrgValue(ctx, s, req.OrgId, func(tx *store.Tx, _ auth.Principal, role string) (store.Organization, error) {
		if role != store.RoleOwner {
			return store.Organization{}, failure.Forbidden("only owners can change organization settings")
		}
		org, err := tx.Organization(ctx, req.OrgId, role)
		if err != nil {
			return org, err
		}
		if req.Body.Name != nil {
			if org.Name = strings.TrimSpace(*req.Body.Name); org.Name == "" {
				return org, failure.Invalid(failure.Field("name", "must not be blank"))
			}
		}
		if req.Body.Slug != nil {
			org.Slug = *req.Body.Slug
		}
		if v := req.Body.MaxPublicRateLimit; v.IsSpecified() {
			org.MaxPublicRateLimit = nil
			if !v.IsNull() {
				// The validator checked the minimum; the column is an int4.
				if v.MustGet() > math.MaxInt32 {
					return org, failure.Invalid(failure.Field("max_public_rate_limit", "must be an integer between 1 and %d", math.MaxInt32))
				}
				n := int32(v.MustGet())
				org.MaxPublicRateLimit = &n
			}
		}
		return tx.UpdateOrganization(ctx, org)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateOrganization200JSONResponse(apiOrg(org)), nil
}

// ListMembers lists an organization's members.
func (s *Server) ListMembers(ctx context.Context, req api.ListMembersRequestObject) (api.ListMembersResponseObject, error) {
	members, err := inOrgValue(ctx, s, req.OrgId, func(tx *store.Tx, _ auth.Principal, _ string) ([]store.Member, error) {
		return tx.Members(ctx, req.OrgId)
	})
	if err != nil {
		return nil, err
	}
	return api.ListMembers200JSONResponse{Items: mapEach(members, apiMember)}, nil
}

// AddMember adds an existing user to an organization; owners only.
func (s *Server) AddMember(ctx context.Context, req api.AddMemberRequestObject) (api.AddMemberResponseObject, error) {
	email := strings.TrimSpace(req.Body.Email)
	role := string(or(req.Body.Role, api.AddMemberRequestRoleMember))
	var m store.Member
	err := s.inOrgLookup(ctx, req.OrgId, email, func(tx *store.Tx, _ auth.Principal, callerRole string) error {
		if callerRole != store.RoleOwner {
			return failure.Forbidden("only owners can add members")
		}
		u, err := tx.UserByEmail(ctx, email)
		if failure.Is(err, failure.ErrNotFound) {
			return failure.Invalid(failure.Field("email", "no account has this e-mail; the person must sign up first"))
		}
		if err != nil {
			return err
		}
		m, err = tx.AddMember(ctx, req.OrgId, u, role)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.AddMember201JSONResponse(apiMember(m)), nil
}

// RemoveMember removes a member; owners may remove anyone but the last
// owner, and every member may leave.
func (s *Server) RemoveMember(ctx context.Context, req api.RemoveMemberRequestObject) (api.RemoveMemberResponseObject, error) {
	err := s.inOrg(ctx, req.OrgId, func(tx *store.Tx, p auth.Principal, role string) error {
		if role != store.RoleOwner && req.UserId != p.UserID {
			return failure.Forbidden("only owners can remove other members")
		}
		return tx.RemoveMember(ctx, req.OrgId, req.UserId)
	})
	if err != nil {
		return nil, err
	}
	return api.RemoveMember204Response{}, nil
}

// inOrg runs fn in a transaction scoped to org once the caller is found to
// be a member of it; a non-member gets 404, as if org did not exist.
func (s *Server) inOrg(ctx context.Context, org uuid.UUID, fn func(*store.Tx, auth.Principal, string) error) error {
	return s.inOrgLookup(ctx, org, "", fn)
}

// inOrgValue runs fn as inOrg does and returns the value fn produced.
func inOrgValue[T any](ctx context.Context, s *Server, org uuid.UUID, fn func(*store.Tx, auth.Principal, string) (T, error)) (T, error) {
	var v T
	err := s.inOrg(ctx, org, func(tx *store.Tx, p auth.Principal, role string) (err error) {
		v, err = fn(tx, p, role)
		return err
	})
	return v, err
}

func (s *Server) inOrgLookup(ctx context.Context, org uuid.UUID, email string, fn func(*store.Tx, auth.Principal, string) error) error {
	p, err := userPrincipal(ctx)
	if err != nil {
		return err
	}
	// The organization is set only once membership is established, so that
	// row-level security, not this check alone, keeps non-members out.
	return s.store.WithTx(ctx, store.Scope{UserID: p.UserID, LookupEmail: email}, func(tx *store.Tx) error {
		role, err := tx.MembershipRole(ctx, org, p.UserID)
		if err != nil {
			return err
		}
		if err := tx.SetOrg(ctx, org); err != nil {
			return err
		}
		return fn(tx, p, role)
	})
}
