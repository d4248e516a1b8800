package httpapi

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// A server's skills live in its design (the skills column): each route
// edits that list under the server's lock and saves the server, which
// tells every instance's cache the design changed.

// ListServerSkills lists a server's skills in order.
func (s *Server) ListServerSkills(ctx context.Context, req api.ListServerSkillsRequestObject) (api.ListServerSkillsResponseObject, error) {
	v, err := inTenantServer(ctx, s, req.ServerId)
	if err != nil {
		return nil, err
	}
	return api.ListServerSkills200JSONResponse{Items: nonNil(v.Skills)}, nil
}

// CreateServerSkill appends a skill to a server.
func (s *Server) CreateServerSkill(ctx context.Context, req api.CreateServerSkillRequestObject) (api.CreateServerSkillResponseObject, error) {
	sk := *req.Body
	_, err := s.editSkills(ctx, req.ServerId, sk, func(skills []design.Skill) ([]design.Skill, error) {
		if skillIndex(skills, sk.Name) >= 0 {
			return nil, failure.Conflict("the server already has a skill named %q", sk.Name)
		}
		if len(skills) >= design.MaxSkills {
			return nil, design.Limit("skills", design.MaxSkills)
		}
		return append(skills, sk), nil
	})
	if err != nil {
		return nil, err
	}
	return api.CreateServerSkill201JSONResponse(sk), nil
}

// GetServerSkill reads one skill of a server.
func (s *Server) GetServerSkill(ctx context.Context, req api.GetServerSkillRequestObject) (api.GetServerSkillResponseObject, error) {
	v, err := inTenantServer(ctx, s, req.ServerId)
	if err != nil {
		return nil, err
	}
	i := skillIndex(v.Skills, req.ServerSkillName)
	if i < 0 {
		return nil, failure.NotFound("skill")
	}
	return api.GetServerSkill200JSONResponse(v.Skills[i]), nil
}

// ReplaceServerSkill replaces one skill of a server, in its place.
func (s *Server) ReplaceServerSkill(ctx context.Context, req api.ReplaceServerSkillRequestObject) (api.ReplaceServerSkillResponseObject, error) {
	sk := *req.Body
	_, err := s.editSkills(ctx, req.ServerId, sk, func(skills []design.Skill) ([]design.Skill, error) {
		i := skillIndex(skills, req.ServerSkillName)
		if i < 0 {
			return nil, failure.NotFound("skill")
		}
		if j := skillIndex(skills, sk.Name); j >= 0 && j != i {
			return nil, failure.Conflict("the server already has a skill named %q", sk.Name)
		}
		skills[i] = sk
		return skills, nil
	})
	if err != nil {
		return nil, err
	}
	return api.ReplaceServerSkill200JSONResponse(sk), nil
}

// DeleteServerSkill removes one skill of a server.
func (s *Server) DeleteServerSkill(ctx context.Context, req api.DeleteServerSkillRequestObject) (api.DeleteServerSkillResponseObject, error) {
	_, err := editLocked(ctx, s, req.ServerId, (*store.Tx).LockServer, func(_ *store.Tx, v *design.Server) error {
		i := skillIndex(v.Skills, req.ServerSkillName)
		if i < 0 {
			return failure.NotFound("skill")
		}
		v.Skills = slices.Delete(v.Skills, i, i+1)
		return nil
	}, (*store.Tx).UpdateServer)
	if err != nil {
		return nil, err
	}
	return api.DeleteServerSkill204Response{}, nil
}

// editSkills checks the skill sk a body gives (its problems named from
// the body's root), then changes the locked server's skills with change
// and saves the server once the whole design still meets its limits.
func (s *Server) editSkills(ctx context.Context, id uuid.UUID, sk design.Skill,
	change func([]design.Skill) ([]design.Skill, error)) (design.Server, error) {
	if err := design.CheckSkill(sk); err != nil {
		return design.Server{}, err
	}
	return editLocked(ctx, s, id, (*store.Tx).LockServer, func(_ *store.Tx, v *design.Server) error {
		skills, err := change(slices.Clone(v.Skills))
		if err != nil {
			return err
		}
		v.Skills = skills
		return design.CheckServer(*v)
	}, (*store.Tx).UpdateServer)
}

// inTenantServer reads one server of the caller's organization.
func inTenantServer(ctx context.Context, s *Server, id uuid.UUID) (design.Server, error) {
	return inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (design.Server, error) {
		return tx.Server(ctx, id)
	})
}

// skillIndex is the place of the skill named name, or -1.
func skillIndex(skills []design.Skill, name string) int {
	return slices.IndexFunc(skills, func(sk design.Skill) bool { return sk.Name == name })
}
