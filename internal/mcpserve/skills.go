package mcpserve

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// SkillsExtension is the MCP skills extension's identifier.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsSettings are the extension's settings the endpoint declares:
// resources/directory/read is served.
var skillsSettings = map[string]bool{"directoryRead": true}

// skillScheme is the scheme of skill resources: skill://<name>/<path>.
const skillScheme = "skill://"

// skillSet is a design's skills compiled for serving, shared by both views
// of the design: every answer of the extension's methods encoded once,
// and every file's content, so a warm request only looks up bytes.
type skillSet struct {
	// list is the result of skills/list; get the result of skills/get by
	// the SKILL.md URI.
	list []byte
	get  map[string][]byte
	// files are the skills' files (SKILL.md included) by URI; dirs the
	// result of resources/directory/read by directory URI.
	files map[string]*skillFile
	dirs  map[string][]byte
	// manifests are the SKILL.md resources resources/list names.
	manifests []skillManifest
	size      int
}

// skillFile is one file of a skill as resources/read serves it: text, or
// base64 for a binary file.
type skillFile struct {
	mimeType string
	content  string
	binary   bool
}

// skillManifest is a SKILL.md as resources/list names it.
type skillManifest struct {
	uri, name, description string
}

// skillEntry is a skill entry of skills/list and skills/get.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

// skillResource is one file of a skill entry: its URI, the SHA-256 of its
// raw bytes and their length.
type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// dirChild is one child of a directory in resources/directory/read.
type dirChild struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType"`
	Size     *int   `json:"size,omitempty"`
}

// directoryMimeType marks a child that is a directory.
const directoryMimeType = "inode/directory"

// compileSkills compiles a design's skills; nil when it has none.
func compileSkills(skills []design.Skill) (*skillSet, error) {
	if len(skills) == 0 {
		return nil, nil
	}
	out := &skillSet{get: map[string][]byte{}, files: map[string]*skillFile{}, dirs: map[string][]byte{}}
	entries := make([]skillEntry, 0, len(skills))
	children := map[string]map[string]dirChild{} // directory URI -> child URI -> child
	for _, sk := range skills {
		root := skillScheme + sk.Name
		manifest := sk.Manifest()
		entry := skillEntry{URI: root + "/" + design.SkillManifest, Frontmatter: sk.Frontmatter()}
		out.manifests = append(out.manifests, skillManifest{uri: entry.URI, name: sk.Name, description: sk.Description})
		add := func(rel string, raw []byte, f *skillFile) {
			uri := root + "/" + rel
			size := len(raw)
			sum := sha256.Sum256(raw)
			entry.Resources = append(entry.Resources, skillResource{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: size})
			out.files[uri] = f
			out.size += len(f.content) + len(uri) + 128
			addChild(children, root, rel, f.mimeType, size)
		}
		add(design.SkillManifest, []byte(manifest), &skillFile{mimeType: "text/markdown", content: manifest})
		for _, file := range sk.Files {
			raw := file.Content()
			f := &skillFile{mimeType: skillMimeType(file), binary: file.Binary()}
			if f.binary {
				f.content = base64.StdEncoding.EncodeToString(raw)
			} else {
				f.content = string(raw)
			}
			add(file.Path, raw, f)
		}
		get, err := json.Marshal(map[string]skillEntry{"skill": entry})
		if err != nil {
			return nil, fmt.Errorf("skill %q: %w", sk.Name, err)
		}
		out.get[entry.URI] = get
		entries = append(entries, entry)
	}
	var err error
	if out.list, err = json.Marshal(map[string][]skillEntry{"skills": entries}); err != nil {
		return nil, err
	}
	for dir, kids := range children {
		list := make([]dirChild, 0, len(kids))
		for _, k := range kids {
			list = append(list, k)
		}
		slices.SortFunc(list, func(a, b dirChild) int { return strings.Compare(a.URI, b.URI) })
		if out.dirs[dir], err = json.Marshal(map[string][]dirChild{"resources": list}); err != nil {
			return nil, err
		}
		out.size += len(out.dirs[dir])
	}
	out.size += len(out.list) * 2 // the list, and each entry again in get
	return out, nil
}

// addChild records the file at rel in the skill directory root, and each
// directory on its way, as children of their directories.
func addChild(children map[string]map[string]dirChild, root, rel, mimeType string, size int) {
	child := dirChild{URI: root + "/" + rel, Name: path.Base(rel), MimeType: mimeType, Size: &size}
	for {
		dir := path.Dir(rel)
		parent := root
		if dir != "." {
			parent = root + "/" + dir
		}
		if children[parent] == nil {
			children[parent] = map[string]dirChild{}
		}
		children[parent][child.URI] = child
		if dir == "." {
			return
		}
		rel = dir
		child = dirChild{URI: parent, Name: path.Base(dir), MimeType: directoryMimeType}
	}
}

// skillMimeTypes are the media types of common file name extensions;
// others are text/plain (text) or application/octet-stream (binary).
var skillMimeTypes = map[string]string{
	".md": "text/markdown", ".txt": "text/plain", ".json": "application/json", ".yaml": "application/yaml",
	".yml": "application/yaml", ".py": "text/x-python", ".sh": "text/x-shellscript", ".js": "text/javascript",
	".html": "text/html", ".csv": "text/csv", ".xml": "application/xml", ".png": "image/png",
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml", ".pdf": "application/pdf",
}

// skillMimeType is the file's media type: the one given, else by its
// extension.
func skillMimeType(f design.SkillFile) string {
	if f.MimeType != "" {
		return f.MimeType
	}
	if t, ok := skillMimeTypes[strings.ToLower(path.Ext(f.Path))]; ok {
		return t
	}
	if f.Binary() {
		return "application/octet-stream"
	}
	return "text/plain"
}

// skillsOf is the design's skills, or -32601 for a design that serves
// none (it declares no skills extension).
func skillsOf(d *compiled, method string) (*skillSet, error) {
	if d.skills == nil {
		return nil, fmt.Errorf("%w: %s", jsonrpc.ErrMethodNotFound, method)
	}
	return d.skills, nil
}

// listSkills answers skills/list: every skill in one page (a cursor is
// accepted and ignored, as by the other lists).
func listSkills(_ context.Context, _ *Exchange, s *state, _ json.RawMessage) (json.RawMessage, error) {
	set, err := skillsOf(s.view, "skills/list")
	if err != nil {
		return nil, err
	}
	return withHints(set.list, s.view.readHints), nil
}

// getSkill answers skills/get: the entry of the skill whose SKILL.md URI
// is given; any other URI is -32602.
func getSkill(_ context.Context, _ *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	set, err := skillsOf(s.view, "skills/get")
	if err != nil {
		return nil, err
	}
	uri, err := uriParam(params, "skills/get needs the URI of the skill's SKILL.md")
	if err != nil {
		return nil, err
	}
	out, ok := set.get[uri]
	if !ok {
		return nil, jsonrpc.WithData(&jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Skill not found: " + uri},
			map[string]string{"uri": uri})
	}
	return withHints(out, s.view.readHints), nil
}

// readDirectory answers resources/directory/read: the direct children of
// a skill directory, subdirectories marked inode/directory, in one page.
// A URI that is no directory the design serves is -32602.
func readDirectory(_ context.Context, _ *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	set, err := skillsOf(s.view, "resources/directory/read")
	if err != nil {
		return nil, err
	}
	uri, err := uriParam(params, "resources/directory/read needs the URI of a directory")
	if err != nil {
		return nil, err
	}
	out, ok := set.dirs[strings.TrimSuffix(uri, "/")]
	if !ok {
		return nil, jsonrpc.WithData(&jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Not a directory: " + uri},
			map[string]string{"uri": uri})
	}
	return withHints(out, s.view.readHints), nil
}

// uriParam reads the uri member of params, which must be given.
func uriParam(params json.RawMessage, noURI string) (string, error) {
	var p struct {
		URI    *string `json:"uri"`
		Cursor *string `json:"cursor"`
	}
	if err := decodeParams(params, &p); err != nil {
		return "", err
	}
	if p.URI == nil {
		return "", missing("uri", noURI)
	}
	return *p.URI, nil
}

// readSkillFile answers resources/read of a skill's file.
func readSkillFile(d *compiled, uri string, f *skillFile) (json.RawMessage, error) {
	type content struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text,omitempty"`
		Blob     *string `json:"blob,omitempty"`
	}
	c := content{URI: uri, MimeType: f.mimeType, Text: &f.content}
	if f.binary {
		c.Text, c.Blob = nil, &f.content
	}
	out, err := json.Marshal(map[string][]content{"contents": {c}})
	if err != nil || d.readHints == nil {
		return out, err
	}
	return withHints(out, d.readHints), nil
}

// bytes is what the set holds, for the cache's budget; 0 for none.
func (s *skillSet) bytes() int {
	if s == nil {
		return 0
	}
	return s.size
}

// skillsOffer is the extension as the capabilities declare it; nil for a
// design without skills.
func (c *core) skillsOffer() map[string]any {
	if c.skills == nil {
		return nil
	}
	return map[string]any{SkillsExtension: skillsSettings}
}
