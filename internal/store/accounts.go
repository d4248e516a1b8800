package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// AccountsTx is the part of a transaction that keeps accounts: users, their
// sessions, organizations and their members.
type AccountsTx struct{ *txConn }

// Roles a user can hold in an organization.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// Organization is a tenant. Role is the role of the user it was read for,
// when it was read for one.
type Organization struct {
	ID                 uuid.UUID
	Name               string
	Slug               string
	MaxPublicRateLimit *int32
	Role               string
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// User is an account. Its password hash never leaves the service.
type User struct {
	ID           uuid.UUID
	Email        string
	PasswordHash string
	HomeOrgID    uuid.UUID
	CurrentOrgID uuid.UUID
	CreatedAt    time.Time
}

// Session is a browser session, known by the hash of its token.
type Session struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	ExpiresAt time.Time
}

// Member is a user's membership as seen from the organization.
type Member struct {
	UserID    uuid.UUID
	Email     string
	Role      string
	CreatedAt time.Time
}

// NewAccount is what signup creates: a user, their organization, and the
// owner membership binding the two. The scope of the transaction must carry
// UserID and OrgID, which the row-level-security policies check on insert.
type NewAccount struct {
	UserID       uuid.UUID
	Email        string
	PasswordHash string
	OrgID        uuid.UUID
	OrgName      string
}

// CreateAccount creates the user, the organization and the owner membership.
func (t AccountsTx) CreateAccount(ctx context.Context, a NewAccount) (User, Organization, error) {
	org, err := t.CreateOrganization(ctx, a.OrgID, a.OrgName, "")
	if err != nil {
		return User{}, Organization{}, err
	}
	u, err := t.q.CreateUser(ctx, t.tx, db.CreateUserParams{
		ID: a.UserID, Email: a.Email, PasswordHash: a.PasswordHash, OrganizationID: a.OrgID,
	})
	if err != nil {
		return User{}, Organization{}, err
	}
	if _, err := t.q.AddMember(ctx, t.tx, db.AddMemberParams{
		OrganizationID: a.OrgID, UserID: a.UserID, Role: RoleOwner,
	}); err != nil {
		return User{}, Organization{}, err
	}
	org.Role = RoleOwner
	return userFrom(u), org, nil
}

// CreateOrganization inserts an organization. With an empty slug it derives
// one from the name, adding a random suffix until it is free; an explicit
// slug that is taken is a conflict. The transaction's organization must be id.
func (t AccountsTx) CreateOrganization(ctx context.Context, id uuid.UUID, name, slug string) (Organization, error) {
	explicit := slug != ""
	if !explicit {
		slug = Slugify(name)
	}
	for attempt := 0; ; attempt++ {
		var row db.Organization
		err := t.savepoint(ctx, func(tx pgx.Tx) error {
			var err error
			row, err = t.q.CreateOrganization(ctx, tx, db.CreateOrganizationParams{ID: id, Name: name, Slug: slug})
			return err
		})
		if err == nil {
			return orgFrom(row, ""), nil
		}
		if explicit || attempt == 5 || !isUniqueViolation(err, "organizations_slug_key") {
			return Organization{}, err
		}
		slug = withSuffix(Slugify(name))
	}
}

// AddOwner makes user the owner of org (after CreateOrganization).
func (t AccountsTx) AddOwner(ctx context.Context, org, user uuid.UUID) error {
	_, err := t.q.AddMember(ctx, t.tx, db.AddMemberParams{OrganizationID: org, UserID: user, Role: RoleOwner})
	return err
}

// UserByEmail finds an account by e-mail, case-insensitively. The scope must
// carry the same e-mail as LookupEmail.
func (t AccountsTx) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := t.q.GetUserByEmail(ctx, t.tx, email)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, failure.NotFound("user")
	}
	return userFrom(u), err
}

// User reads an account by id.
func (t AccountsTx) User(ctx context.Context, id uuid.UUID) (User, error) {
	u, err := t.q.GetUser(ctx, t.tx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, failure.NotFound("user")
	}
	return userFrom(u), err
}

// CreateSession stores a session under the hash of its token.
func (t AccountsTx) CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, expires time.Time) error {
	return t.q.CreateSession(ctx, t.tx, db.CreateSessionParams{
		ID: uuid.New(), UserID: userID, TokenHash: tokenHash, ExpiresAt: expires,
	})
}

// SessionByHash finds the session whose token hashes to hash. The scope must
// carry the same hash as SessionHash.
func (t AccountsTx) SessionByHash(ctx context.Context, hash string) (Session, error) {
	s, err := t.q.GetSessionByHash(ctx, t.tx, hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, failure.Unauthorized("session not found or expired")
	}
	if err != nil {
		return Session{}, err
	}
	return Session{ID: s.ID, UserID: s.UserID, ExpiresAt: s.ExpiresAt}, nil
}

// DeleteSession ends the session whose token hashes to hash.
func (t AccountsTx) DeleteSession(ctx context.Context, hash string) error {
	_, err := t.q.DeleteSessionByHash(ctx, t.tx, hash)
	return err
}

// UserOrganizations lists the organizations user belongs to, with their role.
func (t AccountsTx) UserOrganizations(ctx context.Context, user uuid.UUID) ([]Organization, error) {
	return each(infallible(membershipFrom))(t.q.ListUserOrganizations(ctx, t.tx, user))
}

// membershipFrom converts an organization listed with the user's role.
func membershipFrom(r db.ListUserOrganizationsRow) Organization {
	return Organization{ID: r.ID, Name: r.Name, Slug: r.Slug, MaxPublicRateLimit: r.MaxPublicRateLimit,
		Role: r.Role, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// MembershipRole returns user's role in org, or a not-found failure naming
// the organization when user is not a member: a non-member learns nothing.
func (t AccountsTx) MembershipRole(ctx context.Context, org, user uuid.UUID) (string, error) {
	m, err := t.q.GetMembership(ctx, t.tx, db.GetMembershipParams{OrganizationID: org, UserID: user})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", failure.NotFound("organization")
	}
	return m.Role, err
}

// Organization reads org as seen by a member with role.
func (t AccountsTx) Organization(ctx context.Context, org uuid.UUID, role string) (Organization, error) {
	o, err := t.q.GetOrganization(ctx, t.tx, org)
	if errors.Is(err, pgx.ErrNoRows) {
		return Organization{}, failure.NotFound("organization")
	}
	return orgFrom(o, role), err
}

// UpdateOrganization writes every setting of o.
func (t AccountsTx) UpdateOrganization(ctx context.Context, o Organization) (Organization, error) {
	row, err := t.q.UpdateOrganization(ctx, t.tx, db.UpdateOrganizationParams{
		ID: o.ID, Name: o.Name, Slug: o.Slug, MaxPublicRateLimit: o.MaxPublicRateLimit,
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Organization{}, failure.NotFound("organization")
	}
	return orgFrom(row, o.Role), err
}

// SetCurrentOrganization records the organization user works in.
func (t AccountsTx) SetCurrentOrganization(ctx context.Context, user, org uuid.UUID) error {
	return t.q.SetCurrentOrganization(ctx, t.tx, db.SetCurrentOrganizationParams{ID: user, OrganizationID: org})
}

// Members lists the members of org.
func (t AccountsTx) Members(ctx context.Context, org uuid.UUID) ([]Member, error) {
	return each(infallible(memberFrom))(t.q.ListMembers(ctx, t.tx, org))
}

// memberFrom converts a listed member.
func memberFrom(r db.ListMembersRow) Member {
	return Member{UserID: r.UserID, Email: r.Email, Role: r.Role, CreatedAt: r.CreatedAt}
}

// AddMember adds user to org with role.
func (t AccountsTx) AddMember(ctx context.Context, org uuid.UUID, u User, role string) (Member, error) {
	m, err := t.q.AddMember(ctx, t.tx, db.AddMemberParams{OrganizationID: org, UserID: u.ID, Role: role})
	if err != nil {
		return Member{}, err
	}
	return Member{UserID: u.ID, Email: u.Email, Role: m.Role, CreatedAt: m.CreatedAt}, nil
}

// RemoveMember removes user from org, refusing to remove its last owner.
// Removals from one organization are serialized on its row, so two owners
// removing each other (or both leaving) at once cannot both pass the count.
func (t AccountsTx) RemoveMember(ctx context.Context, org, user uuid.UUID) error {
	if err := t.q.LockOrganization(ctx, t.tx, org); err != nil {
		return err
	}
	role, err := t.q.GetMembership(ctx, t.tx, db.GetMembershipParams{OrganizationID: org, UserID: user})
	if errors.Is(err, pgx.ErrNoRows) {
		return failure.NotFound("member")
	}
	if err != nil {
		return err
	}
	if role.Role == RoleOwner {
		owners, err := t.q.CountOwners(ctx, t.tx, org)
		if err != nil {
			return err
		}
		if owners <= 1 {
			return failure.Conflict("the last owner of an organization cannot be removed")
		}
	}
	_, err = t.q.DeleteMember(ctx, t.tx, db.DeleteMemberParams{OrganizationID: org, UserID: user})
	return err
}

func userFrom(u db.User) User {
	return User{ID: u.ID, Email: u.Email, PasswordHash: u.PasswordHash, HomeOrgID: u.OrganizationID,
		CurrentOrgID: u.CurrentOrganizationID, CreatedAt: u.CreatedAt}
}

func orgFrom(o db.Organization, role string) Organization {
	return Organization{ID: o.ID, Name: o.Name, Slug: o.Slug, MaxPublicRateLimit: o.MaxPublicRateLimit,
		Role: role, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// Slugify turns a name into a URL-safe slug: lowercase ASCII letters, digits
// and single hyphens, at most 40 characters, never empty.
func Slugify(name string) string {
	b := make([]byte, 0, len(name))
	hyphen := false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b = append(b, byte(r))
			hyphen = false
		case r >= 'A' && r <= 'Z':
			b = append(b, byte(r-'A'+'a'))
			hyphen = false
		default:
			if !hyphen && len(b) > 0 {
				b = append(b, '-')
				hyphen = true
			}
		}
		if len(b) >= 40 {
			break
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "org"
	}
	return string(b)
}

func withSuffix(slug string) string {
	var r [3]byte
	_, _ = rand.Read(r[:])
	return slug + "-" + hex.EncodeToString(r[:])
}

// OrganizationBySlug finds an organization by slug; the transaction's scope
// must carry the same OrgSlug.
func (t AccountsTx) OrganizationBySlug(ctx context.Context, slug string) (Organization, error) {
	row, err := t.q.OrganizationBySlug(ctx, t.tx, slug)
	return orgFrom(row, ""), notFound(err, "organization")
}
