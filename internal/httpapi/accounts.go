package httpapi

import (
	"context"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// GetHealth reports whether the service and its database answer.
func (s *Server) GetHealth(ctx context.Context, _ api.GetHealthRequestObject) (api.GetHealthResponseObject, error) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.store.Ping(pctx); err != nil {
		return api.GetHealth503JSONResponse{Status: api.HealthStatusDegraded, Database: api.HealthDatabaseUnavailable, Version: s.version}, nil
	}
	return api.GetHealth200JSONResponse{Status: api.HealthStatusOk, Database: api.HealthDatabaseOk, Version: s.version}, nil
}

// Signup creates a user, their organization and a session.
func (s *Server) Signup(ctx context.Context, req api.SignupRequestObject) (api.SignupResponseObject, error) {
	email, f := checkEmail(string(req.Body.Email))
	if len(req.Body.Password) > 72 {
		f.Add("password", "must be at most 72 bytes")
	}
	if strings.TrimSpace(req.Body.OrganizationName) == "" {
		f.Add("organization_name", "must not be blank")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(req.Body.Password, s.cfg.BcryptCost)
	if err != nil {
		return nil, err
	}
	userID, orgID := uuid.New(), uuid.New()
	token, tokenHash := auth.NewToken()
	var resp api.SignupResponse
	err = s.store.WithTx(ctx, store.Scope{UserID: userID, OrgID: orgID}, func(tx *store.Tx) error {
		u, o, err := tx.CreateAccount(ctx, store.NewAccount{UserID: userID, Email: email, PasswordHash: hash,
			OrgID: orgID, OrgName: strings.TrimSpace(req.Body.OrganizationName)})
		if err != nil {
			return err
		}
		resp = api.SignupResponse{User: apiUser(u), Organization: apiOrg(o)}
		return tx.CreateSession(ctx, userID, tokenHash, time.Now().Add(sessionLifetime))
	})
	if err != nil {
		return nil, err
	}
	cookie := s.sessionCookie(token)
	return api.Signup201JSONResponse{Body: resp, Headers: api.Signup201ResponseHeaders{SetCookie: &cookie}}, nil
}

// Login starts a session for a user whose e-mail and password match.
func (s *Server) Login(ctx context.Context, req api.LoginRequestObject) (api.LoginResponseObject, error) {
	email := strings.TrimSpace(req.Body.Email)
	wrong := failure.Unauthorized("the e-mail or the password is wrong")
	token, tokenHash := auth.NewToken()
	var user store.User
	err := s.store.WithTx(ctx, store.Scope{LookupEmail: email}, func(tx *store.Tx) error {
		u, err := tx.UserByEmail(ctx, email)
		if err != nil && !failure.Is(err, failure.ErrNotFound) {
			return err
		}
		if !auth.CheckPassword(u.PasswordHash, req.Body.Password, s.cfg.BcryptCost) {
			return wrong
		}
		user = u
		if err := tx.SetUser(ctx, u.ID); err != nil {
			return err
		}
		return tx.CreateSession(ctx, u.ID, tokenHash, time.Now().Add(sessionLifetime))
	})
	if err != nil {
		return nil, err
	}
	cookie := s.sessionCookie(token)
	return api.Login200JSONResponse{Body: api.LoginResponse{User: apiUser(user)},
		Headers: api.Login200ResponseHeaders{SetCookie: &cookie}}, nil
}

// Logout ends the session named by the cookie and clears the cookie.
func (s *Server) Logout(ctx context.Context, req api.LogoutRequestObject) (api.LogoutResponseObject, error) {
	if token := deref(req.Params.MockmcpSession); token != "" {
		hash := auth.HashToken(token)
		if err := s.store.WithTx(ctx, store.Scope{SessionHash: hash}, func(tx *store.Tx) error {
			return tx.DeleteSession(ctx, hash)
		}); err != nil {
			return nil, err
		}
	}
	cookie := s.sessionCookie("")
	return api.Logout204Response{Headers: api.Logout204ResponseHeaders{SetCookie: &cookie}}, nil
}

// GetMe describes the caller.
func (s *Server) GetMe(ctx context.Context, _ api.GetMeRequestObject) (api.GetMeResponseObject, error) {
	me, err := s.me(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return api.GetMe200JSONResponse(me), nil
}

// SwitchOrganization makes another of the user's organizations current.
func (s *Server) SwitchOrganization(ctx context.Context, req api.SwitchOrganizationRequestObject) (api.SwitchOrganizationResponseObject, error) {
	p, err := userPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	org := req.Body.OrganizationId
	err = s.store.WithTx(ctx, store.Scope{UserID: p.UserID}, func(tx *store.Tx) error {
		role, err := tx.MembershipRole(ctx, org, p.UserID)
		if err != nil {
			return err
		}
		p.OrgID, p.Role = org, role
		return tx.SetCurrentOrganization(ctx, p.UserID, org)
	})
	if err != nil {
		return nil, err
	}
	me, err := s.me(ctx, p)
	if err != nil {
		return nil, err
	}
	return api.SwitchOrganization200JSONResponse(me), nil
}

func (s *Server) me(ctx context.Context, p auth.Principal) (api.Me, error) {
	if p.UserID == uuid.Nil {
		return api.Me{}, failure.Forbidden("this route describes a signed-in user; API keys have none")
	}
	var me api.Me
	err := s.store.WithTx(ctx, store.Scope{UserID: p.UserID, OrgID: p.OrgID}, func(tx *store.Tx) error {
		u, orgs, err := userWithOrgs(ctx, tx, p.UserID)
		if err != nil {
			return err
		}
		me = api.Me{User: apiUser(u), Organizations: apiOrgs(orgs), CurrentOrganizationId: nullable.NewNullNullable[uuid.UUID]()}
		if p.OrgID != uuid.Nil {
			me.CurrentOrganizationId = nullable.NewNullableWithValue(p.OrgID)
		}
		return nil
	})
	return me, err
}

// userWithOrgs reads a user and the organizations they belong to.
func userWithOrgs(ctx context.Context, tx *store.Tx, id uuid.UUID) (store.User, []store.Organization, error) {
	u, err := tx.User(ctx, id)
	if err != nil {
		return u, nil, err
	}
	orgs, err := tx.UserOrganizations(ctx, id)
	return u, orgs, err
}

// userPrincipal is the caller when it is a signed-in user.
func userPrincipal(ctx context.Context) (auth.Principal, error) {
	p := principal(ctx)
	if p.UserID == uuid.Nil {
		return p, failure.Forbidden("this route needs a signed-in user; API keys cannot use it")
	}
	return p, nil
}

// checkEmail normalizes an e-mail address and reports it when malformed.
func checkEmail(raw string) (string, failure.Fields) {
	var f failure.Fields
	email := strings.TrimSpace(raw)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		f.Add("email", "must be an e-mail address such as ada@example.com")
	}
	return email, f
}
