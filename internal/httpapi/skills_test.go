package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// skillBody is a valid skill named name.
func skillBody(name string) map[string]any {
	return map[string]any{"name": name, "description": "Does " + name, "body": "# " + name + "\n",
		"files": []any{map[string]any{"path": "references/GUIDE.md", "text": "# Guide\n"}}}
}

// TestServerSkillsCRUD: a server's skills are added, listed in order,
// read, replaced in place, renamed and deleted; the server's answer and a
// duplicate carry them, and a PATCH of the server replaces them whole.
func TestServerSkillsCRUD(t *testing.T) {
	t.Parallel()
	_, ada, server, skills := designFixture(t, "Acme Skills", "Skills", "skills")

	created := ada.Do("POST", skills, skillBody("pdf-processing")).Status(http.StatusCreated)
	require.Equal(t, "pdf-processing", created.Get("name"))
	ada.Do("POST", skills, skillBody("code-review")).Status(http.StatusCreated)
	require.Equal(t, []string{"pdf-processing", "code-review"}, names(t, ada.Do("GET", skills, nil).Status(http.StatusOK), "items"))

	got := ada.Do("GET", skills+"/pdf-processing", nil).Status(http.StatusOK)
	require.Equal(t, "Does pdf-processing", got.Get("description"))
	require.JSONEq(t, `[{"path":"references/GUIDE.md","text":"# Guide\n"}]`, jsonAt(t, got, "files"))

	renamed := skillBody("pdf-tools")
	renamed["license"] = "MIT"
	ada.Do("PUT", skills+"/pdf-processing", renamed).Status(http.StatusOK)
	require.Equal(t, []string{"pdf-tools", "code-review"}, names(t, ada.Do("GET", skills, nil).Status(http.StatusOK), "items"),
		"a replaced skill keeps its place")
	ada.Do("GET", skills+"/pdf-processing", nil).Problem(http.StatusNotFound)
	require.Equal(t, "MIT", ada.Do("GET", skills+"/pdf-tools", nil).Status(http.StatusOK).Get("license"))

	require.Equal(t, []string{"pdf-tools", "code-review"}, names(t, ada.Do("GET", "/api/servers/"+server, nil).Status(http.StatusOK), "skills"))
	cp := ada.Do("POST", "/api/servers/"+server+"/duplicate", nil).Status(http.StatusCreated)
	require.Equal(t, []string{"pdf-tools", "code-review"}, names(t, cp, "skills"), "a duplicate copies the skills")

	ada.Do("DELETE", skills+"/pdf-tools", nil).Status(http.StatusNoContent)
	ada.Do("DELETE", skills+"/pdf-tools", nil).Problem(http.StatusNotFound)
	require.Equal(t, []string{"code-review"}, names(t, ada.Do("GET", skills, nil).Status(http.StatusOK), "items"))

	patched := ada.Do("PATCH", "/api/servers/"+server, map[string]any{"skills": []any{skillBody("only-one")}}).Status(http.StatusOK)
	require.Equal(t, []string{"only-one"}, names(t, patched, "skills"), "PATCH replaces the skills whole")
	patched = ada.Do("PATCH", "/api/servers/"+server, map[string]any{"description": "kept"}).Status(http.StatusOK)
	require.Equal(t, []string{"only-one"}, names(t, patched, "skills"), "a PATCH without skills keeps them")
}

// TestServerSkillsRefused: a skill name given twice is 409; a skill that
// breaks a rule or a bound is 422 naming the field, on the skills routes
// (fields from the skill's root) and in a server body (under skills[i]).
func TestServerSkillsRefused(t *testing.T) {
	t.Parallel()
	_, ada, server, skills := designFixture(t, "Acme Skills Refused", "Skills", "skills")
	ada.Do("POST", skills, skillBody("taken")).Status(http.StatusCreated)
	ada.Do("POST", skills, skillBody("taken")).Problem(http.StatusConflict)
	ada.Do("POST", skills, skillBody("other")).Status(http.StatusCreated)
	ada.Do("PUT", skills+"/other", skillBody("taken")).Problem(http.StatusConflict)

	with := func(field string, v any) map[string]any {
		b := skillBody("bad")
		b[field] = v
		return b
	}
	file := func(f map[string]any) map[string]any { return with("files", []any{f}) }
	text := "x"
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"name with capitals", with("name", "PDF"), "name"},
		{"name with a double hyphen", with("name", "a--b"), "name"},
		{"blank description", with("description", " "), "description"},
		{"reserved metadata key", with("metadata", map[string]any{"io.modelcontextprotocol/x": "1"}), "metadata.io.modelcontextprotocol/x"},
		{"file path escaping", file(map[string]any{"path": "../etc/passwd", "text": text}), "files[0].path"},
		{"file named SKILL.md", file(map[string]any{"path": "SKILL.md", "text": text}), "files[0].path"},
		{"file with text and base64", file(map[string]any{"path": "a.txt", "text": text, "base64": "eA=="}), "files[0]"},
		{"file without content", file(map[string]any{"path": "a.txt"}), "files[0]"},
		{"bad base64", file(map[string]any{"path": "a.bin", "base64": "not base64!"}), "files[0].base64"},
		{"file under a file", with("files", []any{map[string]any{"path": "a", "text": text},
			map[string]any{"path": "a/b", "text": text}}), "files[1].path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			p := ada.Do("POST", skills, tc.body).Problem(http.StatusUnprocessableEntity)
			require.Contains(t, p.FieldErrors(), tc.field, p.Raw)
			p = ada.Do("PATCH", "/api/servers/"+server, map[string]any{"skills": []any{tc.body}}).Problem(http.StatusUnprocessableEntity)
			fields := strings.Join(p.FieldErrors(), " ")
			require.True(t, strings.Contains(fields, "skills[0]") || strings.Contains(fields, "skills/0") || strings.Contains(fields, "skills.0"),
				"the field is named under the skill: %s", p.Raw)
		})
	}
	require.Equal(t, []string{"taken", "other"}, names(t, ada.Do("GET", skills, nil).Status(http.StatusOK), "items"), "nothing refused was kept")
}

// TestServerSkillsBounds: a server holds at most 100 skills (422 naming
// skills).
func TestServerSkillsBounds(t *testing.T) {
	t.Parallel()
	_, ada, server, skills := designFixture(t, "Acme Skills Bounds", "Skills", "skills")
	many := make([]any, 100)
	for i := range many {
		many[i] = map[string]any{"name": "s" + strings.Repeat("x", i%10) + string(rune('a'+i/10)) + string(rune('a'+i%10)),
			"description": "d", "body": ""}
	}
	ada.Do("PATCH", "/api/servers/"+server, map[string]any{"skills": many}).Status(http.StatusOK)
	p := ada.Do("POST", skills, skillBody("one-more")).Problem(http.StatusUnprocessableEntity)
	require.Equal(t, []string{"skills"}, p.FieldErrors(), p.Raw)

}

// TestServerSkillsOfAnotherOrganization: another organization's member
// finds none of a server's skills routes (404), and changes nothing.
func TestServerSkillsOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	_, a, b := apitest.Rivals(t, "Skills Owner", "Skills Rival")
	server := mkServer(t, a, "Owned")
	skills := "/api/servers/" + server + "/skills"
	a.Do("POST", skills, skillBody("owned")).Status(http.StatusCreated)

	b.Do("GET", skills, nil).Problem(http.StatusNotFound)
	b.Do("POST", skills, skillBody("planted")).Problem(http.StatusNotFound)
	b.Do("GET", skills+"/owned", nil).Problem(http.StatusNotFound)
	b.Do("PUT", skills+"/owned", skillBody("owned")).Problem(http.StatusNotFound)
	b.Do("DELETE", skills+"/owned", nil).Problem(http.StatusNotFound)
	require.Equal(t, []string{"owned"}, names(t, a.Do("GET", skills, nil).Status(http.StatusOK), "items"))
	require.Equal(t, "Does owned", a.Do("GET", skills+"/owned", nil).Status(http.StatusOK).Get("description"))
}
