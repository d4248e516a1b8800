package mcpserve_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// skillsDesign is a design with one skill of three further files (one of
// them binary, two in subdirectories) and a plain resource.
func skillsDesign(t *testing.T) serverDesign {
	t.Helper()
	return serverDesign{Enabled: true,
		Server: raw(t, map[string]any{"name": "skills", "protocol_version": protocol.Latest, "skills": []any{
			map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
				"metadata": map[string]string{"author": "mockmcp"},
				"body":     "# PDF\n\nSee references/FORMS.md.\n",
				"files": []any{
					map[string]any{"path": "references/FORMS.md", "text": "# Forms\n"},
					map[string]any{"path": "references/deep/NOTES.txt", "text": "notes"},
					map[string]any{"path": "logo.png", "base64": base64.StdEncoding.EncodeToString([]byte{0x89, 'P', 'N', 'G'})},
				}},
		}}),
		Resources: []json.RawMessage{raw(t, map[string]any{"name": "plain", "uri": "test://plain", "content": "plain"})},
	}
}

// skillEntry is an entry of skills/list as a test reads it.
type skillEntry struct {
	URI         string            `json:"uri"`
	Frontmatter map[string]any    `json:"frontmatter"`
	Resources   []json.RawMessage `json:"resources"`
}

// TestSkillsInBothEras: a design's skills are listed, got, read and
// browsed alike in either era: every file's digest and size are those of
// the bytes resources/read gives, SKILL.md is written from the front
// matter fields, and URIs the design does not serve are -32602.
func TestSkillsInBothEras(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Skills eras")
	id := createDesign(t, owner, skillsDesign(t))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	const skillMD = "skill://pdf-processing/SKILL.md"
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t, endpoint)
			var list struct {
				Skills     []skillEntry `json:"skills"`
				TTLMs      *int         `json:"ttlMs"`
				NextCursor *string      `json:"nextCursor"`
			}
			require.NoError(t, json.Unmarshal([]byte(s.call("skills/list", nil).ok(t)), &list))
			require.Len(t, list.Skills, 1)
			require.Nil(t, list.NextCursor)
			require.Equal(t, e.modern, list.TTLMs != nil, "only a modern list carries caching hints")
			entry := list.Skills[0]
			require.Equal(t, skillMD, entry.URI)
			require.Equal(t, map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
				"metadata": map[string]any{"author": "mockmcp"}}, entry.Frontmatter)
			require.Len(t, entry.Resources, 4, "SKILL.md and the three files")

			wantText := map[string]string{
				skillMD: "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  author: mockmcp\n---\n\n# PDF\n\nSee references/FORMS.md.\n",
				"skill://pdf-processing/references/FORMS.md":       "# Forms\n",
				"skill://pdf-processing/references/deep/NOTES.txt": "notes",
			}
			for _, rawRes := range entry.Resources {
				var r struct {
					URI, Digest string
					Size        int
				}
				require.NoError(t, json.Unmarshal(rawRes, &r))
				var read struct {
					Contents []struct{ URI, MimeType, Text, Blob string } `json:"contents"`
				}
				require.NoError(t, json.Unmarshal([]byte(s.call("resources/read", map[string]any{"uri": r.URI}).ok(t)), &read))
				require.Len(t, read.Contents, 1)
				c := read.Contents[0]
				body := []byte(c.Text)
				if c.Blob != "" {
					var err error
					body, err = base64.StdEncoding.DecodeString(c.Blob)
					require.NoError(t, err)
					require.Equal(t, "image/png", c.MimeType)
				} else {
					require.Equal(t, wantText[r.URI], c.Text, r.URI)
				}
				sum := sha256.Sum256(body)
				require.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), r.Digest, r.URI)
				require.Equal(t, len(body), r.Size, r.URI)
			}

			got := s.call("skills/get", map[string]any{"uri": skillMD}).ok(t)
			require.Contains(t, got, `"skill":{"uri":"`+skillMD+`"`)
			require.NotContains(t, got, "nextCursor")
			unknown := s.call("skills/get", map[string]any{"uri": "skill://nope/SKILL.md"})
			unknown.failed(t, -32602, "Skill not found: skill://nope/SKILL.md")
			s.call("skills/get", nil).failed(t, -32602, "uri")

			listed := s.call("resources/list", nil).ok(t)
			require.Contains(t, listed, `{"uri":"`+skillMD+`","name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","mimeType":"text/markdown"}`)
			require.Contains(t, listed, `"uri":"test://plain"`)

			root := s.call("resources/directory/read", map[string]any{"uri": "skill://pdf-processing"}).ok(t)
			require.Contains(t, root, `{"uri":"skill://pdf-processing/references","name":"references","mimeType":"inode/directory"}`)
			require.Contains(t, root, `"uri":"skill://pdf-processing/logo.png","name":"logo.png","mimeType":"image/png","size":4`)
			require.Contains(t, root, `"uri":"`+skillMD+`"`)
			require.NotContains(t, root, "FORMS.md", "only direct children")
			sub := s.call("resources/directory/read", map[string]any{"uri": "skill://pdf-processing/references/"}).ok(t)
			require.Contains(t, sub, `"uri":"skill://pdf-processing/references/FORMS.md"`)
			require.Contains(t, sub, `{"uri":"skill://pdf-processing/references/deep","name":"deep","mimeType":"inode/directory"}`)
			s.call("resources/directory/read", map[string]any{"uri": skillMD}).failed(t, -32602, "Not a directory")
		})
	}
}

// TestSkillsCapabilities: a design with skills declares the extension,
// with directoryRead, and resources in both eras; one without declares
// neither, and answers the extension's methods -32601.
func TestSkillsCapabilities(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Skills capabilities")
	withSkills := env.URL + "/api/platform/" + createDesign(t, owner, skillsDesign(t)) + "/mcp"
	without := env.URL + "/api/platform/" + createDesign(t, owner, serverDesign{Enabled: true,
		Server: raw(t, map[string]any{"name": "plain"})}) + "/mcp"
	capabilities := func(t *testing.T, e era, endpoint string) map[string]json.RawMessage {
		t.Helper()
		var out struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if e.modern {
			require.NoError(t, json.Unmarshal([]byte(e.open(t, endpoint).call("server/discover", nil).ok(t)), &out))
			return out.Capabilities
		}
		resp, body := post(t, endpoint, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+
			protocol.Latest+`","capabilities":{},"clientInfo":{"name":"skills","version":"1"}}}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var r struct{ Result json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(body), &r), body)
		require.NoError(t, json.Unmarshal(r.Result, &out))
		return out.Capabilities
	}
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			caps := capabilities(t, e, withSkills)
			require.Contains(t, caps, "resources")
			var ext map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(caps["extensions"], &ext))
			require.JSONEq(t, `{"directoryRead":true}`, string(ext["io.modelcontextprotocol/skills"]))

			caps = capabilities(t, e, without)
			require.NotContains(t, string(caps["extensions"]), "skills")
			if !e.modern {
				require.NotContains(t, caps, "resources")
				require.NotContains(t, caps, "extensions")
			}
			s := e.open(t, without)
			for _, method := range []string{"skills/list", "skills/get", "resources/directory/read"} {
				r := s.call(method, map[string]any{"uri": "skill://x/SKILL.md"})
				r.failed(t, -32601, method)
				require.Equal(t, e.pick(http.StatusOK, http.StatusNotFound), r.status)
			}
		})
	}
}

// TestSkillChangesAreServed: a skill added, replaced or deleted through
// the REST API is served at once by the warm endpoint, whose cached
// design the change replaces.
func TestSkillChangesAreServed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Skills changes")
	id := createDesign(t, owner, skillsDesign(t))
	s := modernEra.open(t, env.URL+"/api/platform/"+id+"/mcp")
	served := func(want string) bool {
		return strings.Contains(s.call("skills/list", nil).ok(t), want)
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !cond() {
			require.True(t, time.Now().Before(deadline), "%s is not served", what)
			time.Sleep(10 * time.Millisecond)
		}
	}
	require.True(t, served("skill://pdf-processing/SKILL.md"))
	skills := "/api/servers/" + id + "/skills"
	owner.Do("POST", skills, map[string]any{"name": "code-review", "description": "Review code", "body": "# Review"}).
		Status(http.StatusCreated)
	eventually("an added skill", func() bool { return served("skill://code-review/SKILL.md") })
	owner.Do("PUT", skills+"/code-review", map[string]any{"name": "code-review", "description": "Review changes", "body": "# Review"}).
		Status(http.StatusOK)
	eventually("a replaced skill", func() bool { return served("Review changes") })
	owner.Do("DELETE", skills+"/pdf-processing", nil).Status(http.StatusNoContent)
	eventually("a deletion", func() bool { return !served("pdf-processing") })
	s.call("skills/get", map[string]any{"uri": "skill://pdf-processing/SKILL.md"}).failed(t, -32602, "Skill not found")
}
