package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

const unknownOrgID = "5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d"

// orgRoles maps organization id to the caller's role from a list at path.
func orgRoles(t *testing.T, r *apitest.Response, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range r.Len(path) {
		p := path + "." + strconv.Itoa(i)
		out[r.String(p+".id")] = r.String(p + ".role")
	}
	return out
}

// memberRoles maps member e-mail to role for an organization's member list.
func memberRoles(t *testing.T, c *apitest.Client, org string) map[string]string {
	t.Helper()
	r := c.Do("GET", "/api/organizations/"+org+"/members", nil).Status(http.StatusOK)
	out := map[string]string{}
	for i := range r.Len("items") {
		p := "items." + strconv.Itoa(i)
		require.Regexp(t, acctUUIDRE, r.String(p+".user_id"))
		out[r.String(p+".email")] = r.String(p + ".role")
	}
	return out
}

func meCurrentOrg(t *testing.T, c *apitest.Client) string {
	t.Helper()
	return c.Do("GET", "/api/me", nil).Status(http.StatusOK).String("current_organization_id")
}

func TestOrganizations(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Acme Labs", "Bob Corp")
	eve := env.Signup(t, "Eve Corp")
	ada.Do("POST", "/api/organizations/"+ada.OrgID+"/members", map[string]any{"email": bob.Email}).Status(http.StatusCreated)

	t.Run("list with roles", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := ada.Do("GET", "/api/organizations", nil).Status(http.StatusOK)
		require.Equal(t, map[string]string{ada.OrgID: "owner"}, orgRoles(t, r, "items"))
		require.Equal(t, "Acme Labs", r.String("items.0.name"))
		require.Equal(t, "acme-labs", r.String("items.0.slug"))
		require.Nil(t, r.Get("items.0.max_public_rate_limit"))

		r = bob.Do("GET", "/api/organizations", nil).Status(http.StatusOK)
		require.Equal(t, map[string]string{bob.OrgID: "owner", ada.OrgID: "member"}, orgRoles(t, r, "items"))
		require.Equal(t, bob.OrgID, r.String("items.0.id"), "ordered by membership age")
	})

	var created string
	t.Run("create derives the slug; the creator owns it; current organization unchanged", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := ada.Do("POST", "/api/organizations", map[string]any{"name": "  Research & Development  "}).Status(http.StatusCreated)
		created = r.String("id")
		require.Regexp(t, acctUUIDRE, created)
		require.Equal(t, "Research & Development", r.String("name"))
		require.Equal(t, "research-development", r.String("slug"))
		require.Equal(t, "owner", r.String("role"))
		require.Nil(t, r.Get("max_public_rate_limit"))
		ct, err := time.Parse(time.RFC3339, r.String("created_at"))
		require.NoError(t, err)
		require.WithinDuration(t, time.Now(), ct, time.Minute)

		require.Equal(t, ada.OrgID, meCurrentOrg(t, ada))
		list := ada.Do("GET", "/api/organizations", nil).Status(http.StatusOK)
		require.Equal(t, map[string]string{ada.OrgID: "owner", created: "owner"}, orgRoles(t, list, "items"))
		require.Equal(t, map[string]string{ada.Email: "owner"}, memberRoles(t, ada, created))
		// Nobody else sees it.
		bob.Do("GET", "/api/organizations/"+created, nil).Problem(http.StatusNotFound)
	})

	t.Run("create with a name whose slug is taken gets a suffix", func(t *testing.T) {
		eve := eve.For(t)
		r := eve.Do("POST", "/api/organizations", map[string]any{"name": "Acme Labs"}).Status(http.StatusCreated)
		require.Regexp(t, acctSuffixedSlugRE, r.String("slug"))
	})

	t.Run("create with an explicit slug", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/organizations", map[string]any{"name": "Team", "slug": "my-team-2"}).Status(http.StatusCreated)
		require.Equal(t, "my-team-2", r.String("slug"))
		require.Equal(t, "Team", r.String("name"))
	})

	for _, tc := range []refusal{
		{name: "explicit slug taken by the caller's own organization", body: map[string]any{"name": "X", "slug": "my-team-2"}, status: 409,
			detail: "an organization with this slug already exists"},
		{name: "explicit slug taken by another user's organization", body: map[string]any{"name": "X", "slug": "eve-corp"}, status: 409,
			detail: "an organization with this slug already exists"},
		{name: "slug with upper case", body: map[string]any{"name": "X", "slug": "My-Team"}, status: 422, fields: []string{"slug"}},
		{name: "slug starting with a hyphen", body: map[string]any{"name": "X", "slug": "-team"}, status: 422, fields: []string{"slug"}},
		{name: "slug ending with a hyphen", body: map[string]any{"name": "X", "slug": "team-"}, status: 422, fields: []string{"slug"}},
		{name: "slug with an underscore", body: map[string]any{"name": "X", "slug": "my_team"}, status: 422, fields: []string{"slug"}},
		{name: "slug with a slash", body: map[string]any{"name": "X", "slug": "a/b"}, status: 422, fields: []string{"slug"}},
		{name: "empty slug", body: map[string]any{"name": "X", "slug": ""}, status: 422, fields: []string{"slug"}},
		{name: "slug of 64 characters", body: map[string]any{"name": "X", "slug": strings.Repeat("a", 64)}, status: 422, fields: []string{"slug"}},
		{name: "missing name", body: map[string]any{"slug": "nameless"}, status: 422, fields: []string{"name"}},
		{name: "blank name", body: map[string]any{"name": "   "}, status: 422, fields: []string{"name"}},
		{name: "name of 201 characters", body: map[string]any{"name": strings.Repeat("n", 201)}, status: 422, fields: []string{"name"}},
		{name: "unknown field", body: map[string]any{"name": "X", "max_public_rate_limit": 5}, status: 422, fields: []string{"max_public_rate_limit"}},
		{name: "body not JSON", body: "name=X", status: 400, fields: []string{"body"}},
	} {
		t.Run("create refused/"+tc.name, func(t *testing.T) {
			ada := ada.For(t)
			before := ada.Do("GET", "/api/organizations", nil).Status(http.StatusOK).Len("items")
			tc.require(t, ada, "POST", "/api/organizations")
			require.Equal(t, before, ada.Do("GET", "/api/organizations", nil).Status(http.StatusOK).Len("items"))
		})
	}

	t.Run("a slug of 63 characters is accepted", func(t *testing.T) {
		ada := ada.For(t)
		slug := "a" + strings.Repeat("-", 61) + "z"
		r := ada.Do("POST", "/api/organizations", map[string]any{"name": "Long", "slug": slug}).Status(http.StatusCreated)
		require.Equal(t, slug, r.String("slug"))
	})

	t.Run("get", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := ada.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK)
		require.Equal(t, ada.OrgID, r.String("id"))
		require.Equal(t, "Acme Labs", r.String("name"))
		require.Equal(t, "acme-labs", r.String("slug"))
		require.Equal(t, "owner", r.String("role"))
		require.Nil(t, r.Get("max_public_rate_limit"))

		r = bob.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK)
		require.Equal(t, "member", r.String("role"), "the role is the caller's")
	})

	t.Run("get by a non-member is indistinguishable from a missing organization", func(t *testing.T) {
		ada := ada.For(t)
		eve := eve.For(t)
		notMine := eve.Do("GET", "/api/organizations/"+ada.OrgID, nil).Problem(http.StatusNotFound)
		missing := eve.Do("GET", "/api/organizations/"+unknownOrgID, nil).Problem(http.StatusNotFound)
		require.Equal(t, "organization not found", notMine.String("detail"))
		require.Equal(t, problemWithoutRequestID(t, notMine), problemWithoutRequestID(t, missing))
		require.NotContains(t, string(notMine.Raw), "Acme")
	})

	t.Run("get with a bad id", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("GET", "/api/organizations/acme-labs", nil).Problem(http.StatusBadRequest, "org_id")
		require.Equal(t, "must be a valid uuid", r.String("errors.0.message"))
	})

	t.Run("anonymous", func(t *testing.T) {
		ada := ada.For(t)
		anon := env.Anonymous(t)
		requireChallenge401(t, anon.Do("GET", "/api/organizations", nil))
		requireChallenge401(t, anon.Do("POST", "/api/organizations", map[string]any{"name": "X"}))
		requireChallenge401(t, anon.Do("GET", "/api/organizations/"+ada.OrgID, nil))
		requireChallenge401(t, anon.Do("PATCH", "/api/organizations/"+ada.OrgID, map[string]any{"name": "X"}))
	})

	t.Run("update by the owner", func(t *testing.T) {
		ada := ada.For(t)
		before := ada.Do("GET", "/api/organizations/"+created, nil).Status(http.StatusOK)

		for _, step := range []struct {
			name  string
			body  map[string]any
			check func(t *testing.T, r *apitest.Response)
		}{
			{"name", map[string]any{"name": "  R&D  "}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, "R&D", r.String("name"))
				require.Equal(t, "research-development", r.String("slug"), "renaming keeps the slug")
			}},
			{"slug", map[string]any{"slug": "rnd"}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, "rnd", r.String("slug"))
				require.Equal(t, "R&D", r.String("name"))
			}},
			{"rate limit set", map[string]any{"max_public_rate_limit": 25}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, float64(25), r.Get("max_public_rate_limit"))
				require.Equal(t, "rnd", r.String("slug"))
			}},
			{"empty patch changes nothing", map[string]any{}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, float64(25), r.Get("max_public_rate_limit"))
				require.Equal(t, "R&D", r.String("name"))
			}},
			{"name alone keeps the rate limit", map[string]any{"name": "Research"}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, float64(25), r.Get("max_public_rate_limit"))
			}},
			{"rate limit back to null", map[string]any{"max_public_rate_limit": nil}, func(t *testing.T, r *apitest.Response) {
				require.Nil(t, r.Get("max_public_rate_limit"))
				require.Contains(t, r.JSON.(map[string]any), "max_public_rate_limit")
			}},
			{"everything at once", map[string]any{"name": "Lab", "slug": "lab", "max_public_rate_limit": 1}, func(t *testing.T, r *apitest.Response) {
				require.Equal(t, "Lab", r.String("name"))
				require.Equal(t, "lab", r.String("slug"))
				require.Equal(t, float64(1), r.Get("max_public_rate_limit"))
			}},
		} {
			t.Run(step.name, func(t *testing.T) {
				ada := ada.For(t)
				r := ada.Do("PATCH", "/api/organizations/"+created, step.body).Status(http.StatusOK)
				require.Equal(t, created, r.String("id"))
				require.Equal(t, "owner", r.String("role"))
				step.check(t, r)
				// The change is stored: GET answers the same organization.
				require.JSONEq(t, string(r.Raw), string(ada.Do("GET", "/api/organizations/"+created, nil).Status(http.StatusOK).Raw))
			})
		}

		after := ada.Do("GET", "/api/organizations/"+created, nil).Status(http.StatusOK)
		require.Equal(t, before.String("created_at"), after.String("created_at"))
		bt, err := time.Parse(time.RFC3339, before.String("updated_at"))
		require.NoError(t, err)
		at, err := time.Parse(time.RFC3339, after.String("updated_at"))
		require.NoError(t, err)
		require.True(t, at.After(bt), "updated_at moves forward: %s → %s", bt, at)
	})

	for _, tc := range []struct {
		name   string
		caller *apitest.Client
		org    string
		body   any
		status int
		fields []string
	}{
		{"by a plain member", bob, ada.OrgID, map[string]any{"name": "Bob's now"}, 403, nil},
		{"by a plain member, rate limit only", bob, ada.OrgID, map[string]any{"max_public_rate_limit": 1000}, 403, nil},
		{"by a non-member", eve, ada.OrgID, map[string]any{"name": "Eve's now"}, 404, nil},
		{"of a missing organization", ada, unknownOrgID, map[string]any{"name": "X"}, 404, nil},
		{"rate limit 0", ada, ada.OrgID, map[string]any{"max_public_rate_limit": 0}, 422, []string{"max_public_rate_limit"}},
		{"rate limit negative", ada, ada.OrgID, map[string]any{"max_public_rate_limit": -5}, 422, []string{"max_public_rate_limit"}},
		{"rate limit not a number", ada, ada.OrgID, map[string]any{"max_public_rate_limit": "10"}, 422, []string{"max_public_rate_limit"}},
		{"rate limit fractional", ada, ada.OrgID, map[string]any{"max_public_rate_limit": 2.5}, 422, []string{"max_public_rate_limit"}},
		{"empty name", ada, ada.OrgID, map[string]any{"name": ""}, 422, []string{"name"}},
		{"blank name", ada, ada.OrgID, map[string]any{"name": "  "}, 422, []string{"name"}},
		{"null name", ada, ada.OrgID, map[string]any{"name": nil}, 422, []string{"name"}},
		{"invalid slug", ada, ada.OrgID, map[string]any{"slug": "Not Valid"}, 422, []string{"slug"}},
		{"slug taken", ada, ada.OrgID, map[string]any{"slug": "eve-corp"}, 409, nil},
		{"unknown field", ada, ada.OrgID, map[string]any{"role": "owner"}, 422, []string{"role"}},
		{"bad id", ada, "nope", map[string]any{"name": "X"}, 400, []string{"org_id"}},
	} {
		t.Run("update refused/"+tc.name, func(t *testing.T) {
			caller := tc.caller.For(t)
			ada := ada.For(t)
			caller.Do("PATCH", "/api/organizations/"+tc.org, tc.body).Problem(tc.status, tc.fields...)
			r := ada.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK)
			require.Equal(t, "Acme Labs", r.String("name"))
			require.Equal(t, "acme-labs", r.String("slug"))
			require.Nil(t, r.Get("max_public_rate_limit"))
		})
	}
}

func TestMembers(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Acme Labs", "Bob Corp")
	carol := env.Signup(t, "Carol Corp")
	eve := env.Signup(t, "Eve Corp")
	members := "/api/organizations/" + ada.OrgID + "/members"
	member := func(id string) string { return "/api/organizations/" + ada.OrgID + "/members/" + id }

	t.Run("owner adds an existing user as a member", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := ada.Do("POST", members, map[string]any{"email": strings.ToUpper(bob.Email)}).Status(http.StatusCreated)
		require.Equal(t, bob.UserID, r.String("user_id"))
		require.Equal(t, bob.Email, r.String("email"), "the account's own e-mail, not the one typed")
		require.Equal(t, "member", r.String("role"), "member is the default role")
		_, err := time.Parse(time.RFC3339, r.String("created_at"))
		require.NoError(t, err)

		require.Equal(t, map[string]string{ada.Email: "owner", bob.Email: "member"}, memberRoles(t, ada, ada.OrgID))
		require.Equal(t, map[string]string{ada.Email: "owner", bob.Email: "member"}, memberRoles(t, bob, ada.OrgID),
			"members see the member list too")
		require.Equal(t, "member", bob.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK).String("role"))
		// Adding bob does not change his current organization.
		require.Equal(t, bob.OrgID, meCurrentOrg(t, bob))
	})

	t.Run("list order and fields", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := ada.Do("GET", members, nil).Status(http.StatusOK)
		require.Equal(t, 2, r.Len("items"))
		require.Equal(t, ada.UserID, r.String("items.0.user_id"))
		require.Equal(t, "owner", r.String("items.0.role"))
		require.Equal(t, bob.UserID, r.String("items.1.user_id"))
		require.Equal(t, "member", r.String("items.1.role"))
		require.NotContains(t, string(r.Raw), "password")
	})

	for _, tc := range []struct {
		name   string
		caller *apitest.Client
		method string
		path   string
		body   any
		status int
		fields []string
		detail string
	}{
		{name: "add an unknown e-mail", caller: ada, method: "POST", path: members, body: map[string]any{"email": "nobody@example.com"},
			status: 422, fields: []string{"email"}},
		{name: "add an empty e-mail", caller: ada, method: "POST", path: members, body: map[string]any{"email": ""},
			status: 422, fields: []string{"email"}},
		{name: "add twice", caller: ada, method: "POST", path: members, body: map[string]any{"email": bob.Email},
			status: 409, detail: "the user is already a member of this organization"},
		{name: "add oneself", caller: ada, method: "POST", path: members, body: map[string]any{"email": ada.Email},
			status: 409, detail: "the user is already a member of this organization"},
		{name: "add with an unknown role", caller: ada, method: "POST", path: members, body: map[string]any{"email": carol.Email, "role": "admin"},
			status: 422, fields: []string{"role"}},
		{name: "add without e-mail", caller: ada, method: "POST", path: members, body: map[string]any{"role": "member"},
			status: 422, fields: []string{"email"}},
		{name: "add by a plain member", caller: bob, method: "POST", path: members, body: map[string]any{"email": carol.Email},
			status: 403, detail: "only owners can add members"},
		{name: "add by a plain member, unknown e-mail", caller: bob, method: "POST", path: members, body: map[string]any{"email": "nobody@example.com"},
			status: 403},
		{name: "remove another member by a plain member", caller: bob, method: "DELETE", path: member(ada.UserID),
			status: 403, detail: "only owners can remove other members"},
		{name: "list by a non-member", caller: eve, method: "GET", path: members, status: 404, detail: "organization not found"},
		{name: "add by a non-member", caller: eve, method: "POST", path: members, body: map[string]any{"email": eve.Email},
			status: 404, detail: "organization not found"},
		{name: "add by a non-member, unknown e-mail", caller: eve, method: "POST", path: members, body: map[string]any{"email": "nobody@example.com"},
			status: 404, detail: "organization not found"},
		{name: "remove by a non-member", caller: eve, method: "DELETE", path: member(bob.UserID), status: 404, detail: "organization not found"},
		{name: "remove oneself by a non-member", caller: eve, method: "DELETE", path: member(eve.UserID), status: 404, detail: "organization not found"},
		{name: "remove a user who is not a member", caller: ada, method: "DELETE", path: member(carol.UserID), status: 404},
		{name: "remove the last owner (themselves)", caller: ada, method: "DELETE", path: member(ada.UserID),
			status: 409, detail: "the last owner of an organization cannot be removed"},
		{name: "list with a bad organization id", caller: ada, method: "GET", path: "/api/organizations/x/members", status: 400, fields: []string{"org_id"}},
		{name: "remove with a bad user id", caller: ada, method: "DELETE", path: member("x"), status: 400, fields: []string{"user_id"}},
		{name: "anonymous list", caller: env.Anonymous(t), method: "GET", path: members, status: 401},
		{name: "anonymous remove", caller: env.Anonymous(t), method: "DELETE", path: member(bob.UserID), status: 401},
	} {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			caller := tc.caller.For(t)
			ada := ada.For(t)
			bob := bob.For(t)
			r := caller.Do(tc.method, tc.path, tc.body).Problem(tc.status, tc.fields...)
			if tc.detail != "" {
				require.Equal(t, tc.detail, r.String("detail"))
			}
			require.Equal(t, map[string]string{ada.Email: "owner", bob.Email: "member"}, memberRoles(t, ada, ada.OrgID))
		})
	}

	t.Run("a member leaves; their current organization falls back", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		bob.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Status(http.StatusOK)
		require.Equal(t, ada.OrgID, meCurrentOrg(t, bob))

		r := bob.Do("DELETE", member(bob.UserID), nil).Status(http.StatusNoContent)
		require.Empty(t, r.Raw)

		bob.Do("GET", "/api/organizations/"+ada.OrgID, nil).Problem(http.StatusNotFound)
		bob.Do("GET", members, nil).Problem(http.StatusNotFound)
		me := bob.Do("GET", "/api/me", nil).Status(http.StatusOK)
		require.Equal(t, bob.OrgID, me.String("current_organization_id"))
		require.Equal(t, map[string]string{bob.OrgID: "owner"}, orgRoles(t, me, "organizations"))
		require.Equal(t, map[string]string{ada.Email: "owner"}, memberRoles(t, ada, ada.OrgID))
		// Switching back is refused now.
		bob.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Problem(http.StatusNotFound)
		// Leaving again: not a member any more.
		bob.Do("DELETE", member(bob.UserID), nil).Problem(http.StatusNotFound)
	})

	t.Run("owner removes a member", func(t *testing.T) {
		ada := ada.For(t)
		carol := carol.For(t)
		ada.Do("POST", members, map[string]any{"email": carol.Email, "role": "member"}).Status(http.StatusCreated)
		require.Equal(t, map[string]string{ada.Email: "owner", carol.Email: "member"}, memberRoles(t, ada, ada.OrgID))
		carol.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK)

		ada.Do("DELETE", member(carol.UserID), nil).Status(http.StatusNoContent)
		require.Equal(t, map[string]string{ada.Email: "owner"}, memberRoles(t, ada, ada.OrgID))
		carol.Do("GET", "/api/organizations/"+ada.OrgID, nil).Problem(http.StatusNotFound)
		require.Equal(t, carol.OrgID, meCurrentOrg(t, carol))
	})

	t.Run("with two owners, one may leave; then the other is the last", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		carol := carol.For(t)
		r := ada.Do("POST", members, map[string]any{"email": carol.Email, "role": "owner"}).Status(http.StatusCreated)
		require.Equal(t, "owner", r.String("role"))
		require.Equal(t, "owner", carol.Do("GET", "/api/organizations/"+ada.OrgID, nil).Status(http.StatusOK).String("role"))

		// A co-owner may add members and change settings.
		carol.Do("POST", members, map[string]any{"email": bob.Email}).Status(http.StatusCreated)
		carol.Do("PATCH", "/api/organizations/"+ada.OrgID, map[string]any{"max_public_rate_limit": 7}).Status(http.StatusOK)

		ada.Do("DELETE", member(ada.UserID), nil).Status(http.StatusNoContent)
		ada.Do("GET", "/api/organizations/"+ada.OrgID, nil).Problem(http.StatusNotFound)
		require.Equal(t, map[string]string{carol.Email: "owner", bob.Email: "member"}, memberRoles(t, carol, ada.OrgID))

		carol.Do("DELETE", member(carol.UserID), nil).Problem(http.StatusConflict)
		// An owner removes another owner while two remain.
		carol.Do("POST", members, map[string]any{"email": ada.Email, "role": "owner"}).Status(http.StatusCreated)
		carol.Do("DELETE", member(ada.UserID), nil).Status(http.StatusNoContent)
		require.Equal(t, map[string]string{carol.Email: "owner", bob.Email: "member"}, memberRoles(t, carol, ada.OrgID))
	})
}

func TestRemovedMemberLosesServerAccess(t *testing.T) {
	t.Parallel()
	_, ada, bob := apitest.Rivals(t, "Acme Labs", "Bob Corp")
	srv := ada.Do("POST", "/api/servers", map[string]any{"name": "Weather"}).Status(http.StatusCreated).String("id")
	bobs := bob.Do("POST", "/api/servers", map[string]any{"name": "Bob's own"}).Status(http.StatusCreated).String("id")

	ada.Do("POST", "/api/organizations/"+ada.OrgID+"/members", map[string]any{"email": bob.Email}).Status(http.StatusCreated)
	// A member sees an organization's servers once it is current.
	bob.Do("GET", "/api/servers/"+srv, nil).Problem(http.StatusNotFound)
	bob.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Status(http.StatusOK)
	require.Equal(t, "Weather", bob.Do("GET", "/api/servers/"+srv, nil).Status(http.StatusOK).String("name"))
	list := bob.Do("GET", "/api/servers", nil).Status(http.StatusOK)
	require.Equal(t, 1, list.Len("items"))
	require.Equal(t, srv, list.String("items.0.id"))

	ada.Do("DELETE", "/api/organizations/"+ada.OrgID+"/members/"+bob.UserID, nil).Status(http.StatusNoContent)

	for _, tc := range []struct{ name, method, path string }{
		{"get", "GET", "/api/servers/" + srv},
		{"delete", "DELETE", "/api/servers/" + srv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bob := bob.For(t)
			bob.Do(tc.method, tc.path, nil).Problem(http.StatusNotFound)
		})
	}
	t.Run("patch", func(t *testing.T) {
		bob := bob.For(t)
		bob.Do("PATCH", "/api/servers/"+srv, map[string]any{"name": "Taken"}).Problem(http.StatusNotFound)
	})
	t.Run("list shows the fallback organization", func(t *testing.T) {
		bob := bob.For(t)
		list := bob.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		require.Equal(t, 1, list.Len("items"))
		require.Equal(t, bobs, list.String("items.0.id"))
	})
	t.Run("the server is untouched", func(t *testing.T) {
		ada := ada.For(t)
		require.Equal(t, "Weather", ada.Do("GET", "/api/servers/"+srv, nil).Status(http.StatusOK).String("name"))
	})
}

// TestConcurrentOwnerRemovalsKeepAnOwner races two owners of an organization
// against each other: whether each leaves or each removes the other, exactly
// one of the two requests may succeed and one owner must remain.
func TestConcurrentOwnerRemovalsKeepAnOwner(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Acme Labs", "Bob Corp")

	for _, tc := range []struct {
		name   string
		target func(caller, other *apitest.Client) string
	}{
		{"both leave", func(caller, _ *apitest.Client) string { return caller.UserID }},
		{"each removes the other", func(_, other *apitest.Client) string { return other.UserID }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			bob := bob.For(t)
			for round := range 8 {
				org := ada.Do("POST", "/api/organizations", map[string]any{"name": "Race " + strconv.Itoa(round)}).
					Status(http.StatusCreated).String("id")
				ada.Do("POST", "/api/organizations/"+org+"/members", map[string]any{"email": bob.Email, "role": "owner"}).
					Status(http.StatusCreated)

				codes := make([]int, 2)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i, pair := range [][2]*apitest.Client{{ada, bob}, {bob, ada}} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						codes[i] = pair[0].Do("DELETE", "/api/organizations/"+org+"/members/"+tc.target(pair[0], pair[1]), nil).Code
					}()
				}
				close(start)
				wg.Wait()

				var owners int
				require.NoError(t, env.Service.Store().Pool().QueryRow(t.Context(),
					`SELECT count(*) FROM organization_members WHERE organization_id = $1 AND role = 'owner'`, org).Scan(&owners))
				require.Equal(t, 1, owners, "round %d: statuses %v", round, codes)
				// The loser finds the other the last owner (409), or, when
				// it came second for each removes the other, itself removed (404).
				require.Contains(t, codes, http.StatusNoContent, "round %d", round)
				require.Subset(t, []int{http.StatusNoContent, http.StatusConflict, http.StatusNotFound}, codes, "round %d", round)
				require.NotEqual(t, codes[0], codes[1], "round %d", round)
			}
		})
	}
}
