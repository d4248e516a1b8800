package designdoc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/designdoc"
)

// skillsDoc is a document with two skills, one with text and binary files.
const skillsDoc = head + `skills:
  - name: pdf-processing
    description: "Extract: fill, and assemble PDF documents"
    license: MIT
    metadata: {author: docs}
    body: |
      # PDF processing
      Read references/FORMS.md first.
    files:
      - {path: references/FORMS.md, text: "# Forms\n"}
      - {path: logo.png, base64: iVBORw==, mime_type: image/png}
  - name: code-review
    description: Review a change
    body: ""
`

// TestSkillsRoundTrip: a document's skills are read in order, exported,
// and the export reads back as the same design.
func TestSkillsRoundTrip(t *testing.T) {
	doc, err := designdoc.Parse([]byte(skillsDoc))
	require.NoError(t, err)
	skills := doc.Design.Server.Skills
	require.Len(t, skills, 2)
	require.Equal(t, "pdf-processing", skills[0].Name)
	require.Equal(t, "Extract: fill, and assemble PDF documents", skills[0].Description)
	require.Equal(t, map[string]string{"author": "docs"}, skills[0].Metadata)
	require.Equal(t, "# PDF processing\nRead references/FORMS.md first.\n", skills[0].Body)
	require.Equal(t, "references/FORMS.md", skills[0].Files[0].Path)
	require.Equal(t, []byte{0x89, 'P', 'N', 'G'}, skills[0].Files[1].Content())
	require.Equal(t, "code-review", skills[1].Name)

	out, err := designdoc.Export(doc.Design)
	require.NoError(t, err)
	again, err := designdoc.Parse(out)
	require.NoError(t, err, string(out))
	require.Equal(t, skills, again.Design.Server.Skills, string(out))

	none, err := designdoc.Export(designdoc.Document{}.Design)
	require.NoError(t, err)
	require.NotContains(t, string(none), "skills", "a design without skills exports none")
}

// TestSkillsRefused: a document's skills are checked, each problem named
// by its path in the document.
func TestSkillsRefused(t *testing.T) {
	for name, tc := range map[string]struct{ doc, field string }{
		"bad name":      {head + "skills:\n  - {name: Bad, description: d, body: ''}\n", "skills[0].name"},
		"twice":         {head + "skills:\n  - {name: a, description: d, body: ''}\n  - {name: a, description: d, body: ''}\n", "skills[1].name"},
		"escaping path": {head + "skills:\n  - {name: a, description: d, body: '', files: [{path: ../x, text: x}]}\n", "skills[0].files[0].path"},
		"reserved key":  {head + "skills:\n  - {name: a, description: d, body: '', metadata: {io.modelcontextprotocol/x: '1'}}\n", "skills[0].metadata.io.modelcontextprotocol/x"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := designdoc.Parse([]byte(tc.doc))
			require.Error(t, err)
			require.Contains(t, fieldsOf(t, err), tc.field, "%v", err)
		})
	}
}
