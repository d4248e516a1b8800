package design_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// TestSkillManifestFrontmatter: the front matter written into SKILL.md
// reads back, as YAML, as exactly the entry's frontmatter object, whatever
// the text of its fields (words YAML reads as booleans, numbers, colons,
// quotes, newlines, non-ASCII).
func TestSkillManifestFrontmatter(t *testing.T) {
	for _, text := range []string{"Extract, fill, and assemble PDF documents", "true", "No", "null", "1.0", "123",
		"a: b", "# not a comment", "- item", `say "hi"`, "two\nlines", "tab\there", "café ☕", " padded ", "ends with:",
		"[x]", "{x}", "*alias", "&anchor", "!tag", "%directive", "@at", "`tick`", "'single'", "~", ""} {
		t.Run(text, func(t *testing.T) {
			s := design.Skill{Name: "n", Description: text, License: text, Metadata: map[string]string{text + "k": text}, Body: "# Body\n"}
			m := s.Manifest()
			require.True(t, strings.HasPrefix(m, "---\n"))
			front, body, ok := strings.Cut(strings.TrimPrefix(m, "---\n"), "\n---\n")
			require.True(t, ok, m)
			require.Equal(t, "\n# Body\n", body)
			var got map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(front), &got), m)
			want := s.Frontmatter()
			if text == "" {
				delete(want, "license") // an empty license is left out
			}
			want["metadata"] = map[string]any{text + "k": text}
			require.Equal(t, want, got, m)
		})
	}
}

// TestCheckSkillBounds: a skill's and a server's skills' bounds are
// refused with the field named.
func TestCheckSkillBounds(t *testing.T) {
	text := func(n int) *string { s := strings.Repeat("x", n); return &s }
	ok := design.Skill{Name: "ok", Description: "d"}
	require.NoError(t, design.CheckSkill(ok))

	big := ok
	big.Files = []design.SkillFile{{Path: "a.txt", Text: text(design.MaxSkillBytes / 2)}, {Path: "b.txt", Text: text(design.MaxSkillBytes / 2)}}
	requireFields(t, design.CheckSkill(big), "files")

	many := ok
	for i := range design.MaxSkillFiles + 1 {
		many.Files = append(many.Files, design.SkillFile{Path: "f" + strings.Repeat("x", i), Text: text(1)})
	}
	requireFields(t, design.CheckSkill(many), "files")

	long := ok
	long.Name = strings.Repeat("a", design.MaxSkillName+1)
	long.Description = strings.Repeat("d", design.MaxSkillDescription+1)
	requireFields(t, design.CheckSkill(long), "name", "description")

	server := design.ServerDefaults()
	server.Name = "s"
	for i := range 5 {
		sk := design.Skill{Name: "s" + strings.Repeat("a", i+1), Description: "d", Body: *text(design.MaxSkillBytes - 1000)}
		server.Skills = append(server.Skills, sk)
	}
	requireFields(t, design.CheckServer(server), "skills")
	server.Skills = server.Skills[:1]
	server.Skills[0].Body = *text(design.MaxSkillBytes - 10) // within the body's bound; SKILL.md is not
	requireFields(t, design.CheckServer(server), "skills[0].body")
	server.Skills = []design.Skill{ok, ok}
	requireFields(t, design.CheckServer(server), "skills[1].name")
}

// requireFields requires err to be a validation failure naming exactly
// fields.
func requireFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	require.Error(t, err)
	e, ok := failure.As(err)
	require.True(t, ok, err)
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field)
	}
	require.ElementsMatch(t, fields, got, err)
}
