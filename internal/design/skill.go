package design

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// Skill is an Agent Skill the design serves through the MCP skills
// extension (io.modelcontextprotocol/skills): its SKILL.md, written from
// the front matter fields and the body, and the further files of its
// directory.
type Skill struct {
	// Name is the skill's name, the last segment of its skill:// URI.
	Name        string `json:"name"`
	Description string `json:"description"`
	// License and Metadata are optional front matter fields; metadata maps
	// keys to strings.
	License  string            `json:"license,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// Body is the Markdown of SKILL.md after its front matter.
	Body  string      `json:"body"`
	Files []SkillFile `json:"files,omitempty"`
}

// SkillFile is a further file of a skill: its path within the skill's
// directory and its content, either text or base64 (binary).
type SkillFile struct {
	Path     string  `json:"path"`
	Text     *string `json:"text,omitempty"`
	Base64   *string `json:"base64,omitempty"`
	MimeType string  `json:"mime_type,omitempty"`
}

// Limits of a design's skills; past one, a save is refused with 422. A
// skill's bytes are those of its SKILL.md and its files' raw content, far
// below the extension's own ceilings (512 files, 16 MiB a skill).
const (
	MaxSkills               = 100
	MaxSkillName            = 64
	MaxSkillDescription     = 1024
	MaxSkillLicense         = 500
	MaxSkillMetadata        = 32
	MaxSkillMetadataKey     = 128
	MaxSkillMetadataValue   = 1024
	MaxSkillFiles           = 128
	MaxSkillPath            = 512
	MaxSkillBytes           = 1 << 20
	MaxSkillsBytesPerServer = 4 << 20
)

// SkillManifest is the file name of a skill's manifest.
const SkillManifest = "SKILL.md"

// skillName is the Agent Skills naming rule: lowercase letters, digits and
// single hyphens inside.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// skillPathSegment is one segment of a file's path: URI-safe characters.
var skillPathSegment = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)

// reservedMetadataPrefix is the prefix of metadata keys the MCP extensions
// reserve for themselves.
const reservedMetadataPrefix = "io.modelcontextprotocol/"

// checkSkills checks a design's skills under field, each one naming the
// problem's place (skills[0].files[1].path).
func checkSkills(f *failure.Fields, field string, skills []Skill) {
	if len(skills) > MaxSkills {
		f.Add(field, "at most %d skills, got %d", MaxSkills, len(skills))
		return
	}
	seen := map[string]bool{}
	total := 0
	for i, s := range skills {
		at := fmt.Sprintf("%s[%d]", field, i)
		checkSkill(f, at, s)
		if seen[s.Name] {
			f.Add(at+".name", "the skill %q is given twice", s.Name)
		}
		seen[s.Name] = true
		total += s.Bytes()
	}
	if total > MaxSkillsBytesPerServer {
		f.Add(field, "at most %d bytes of skills per server, got %d", MaxSkillsBytesPerServer, total)
	}
}

// CheckSkill checks one skill on its own, its problems named from its
// root (name, files[0].path).
func CheckSkill(s Skill) error {
	var f failure.Fields
	checkSkill(&f, "", s)
	return f.Err()
}

func checkSkill(f *failure.Fields, at string, s Skill) {
	in := func(name string) string {
		if at == "" {
			return name
		}
		return at + "." + name
	}
	switch {
	case s.Name == "":
		f.Add(in("name"), "is required")
	case len(s.Name) > MaxSkillName || !skillName.MatchString(s.Name):
		f.Add(in("name"), "must be 1 to %d lowercase letters, digits and single hyphens inside (the Agent Skills naming rule)", MaxSkillName)
	}
	if strings.TrimSpace(s.Description) == "" {
		f.Add(in("description"), "must not be blank")
	}
	skillText(f, in("description"), s.Description, MaxSkillDescription)
	skillText(f, in("license"), s.License, MaxSkillLicense)
	skillText(f, in("body"), s.Body, MaxSkillBytes)
	if len(s.Metadata) > MaxSkillMetadata {
		f.Add(in("metadata"), "at most %d keys, got %d", MaxSkillMetadata, len(s.Metadata))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
		switch {
		case k == "" || len(k) > MaxSkillMetadataKey:
			f.Add(in("metadata"), "keys must be 1 to %d characters", MaxSkillMetadataKey)
		case strings.HasPrefix(k, reservedMetadataPrefix):
			f.Add(in("metadata."+k), "keys starting with %s are reserved for the MCP extensions", reservedMetadataPrefix)
		}
		skillText(f, in("metadata."+k), k, MaxSkillMetadataKey)
		skillText(f, in("metadata."+k), s.Metadata[k], MaxSkillMetadataValue)
	}
	checkSkillFiles(f, in("files"), s.Files)
	if n := s.Bytes(); n > MaxSkillBytes {
		// Named after what makes a skill large: its files, or its body.
		field := in("body")
		if len(s.Files) > 0 {
			field = in("files")
		}
		f.Add(field, "a skill holds at most %d bytes (SKILL.md and its files), got %d", MaxSkillBytes, n)
	}
}

// skillText reports text that is too long, not UTF-8 or holds NUL.
func skillText(f *failure.Fields, field, s string, max int) {
	if !utf8.ValidString(s) {
		f.Add(field, "must be UTF-8 text")
		return
	}
	maxLen(f, field, s, max)
	noNUL(f, field, s)
}

func checkSkillFiles(f *failure.Fields, field string, files []SkillFile) {
	if len(files) > MaxSkillFiles {
		f.Add(field, "at most %d files, got %d", MaxSkillFiles, len(files))
		return
	}
	paths := map[string]bool{}
	for i, file := range files {
		at := fmt.Sprintf("%s[%d]", field, i)
		if msg := skillPathProblem(file.Path); msg != "" {
			f.Add(at+".path", "%s", msg)
		} else if paths[file.Path] {
			f.Add(at+".path", "the file %q is given twice", file.Path)
		}
		paths[file.Path] = true
		switch {
		case (file.Text == nil) == (file.Base64 == nil):
			f.Add(at, "give exactly one of text and base64")
		case file.Text != nil:
			skillText(f, at+".text", *file.Text, MaxSkillBytes)
		default:
			if _, err := base64.StdEncoding.DecodeString(*file.Base64); err != nil {
				f.Add(at+".base64", "must be standard base64")
			}
		}
		if file.MimeType != "" {
			maxLen(f, at+".mime_type", file.MimeType, MaxMimeType)
			if !strings.Contains(file.MimeType, "/") {
				f.Add(at+".mime_type", "must be a media type such as text/markdown")
			}
		}
	}
	// A file cannot also be a directory of another.
	for i, file := range files {
		for dir := path.Dir(file.Path); dir != "."; dir = path.Dir(dir) {
			if paths[dir] {
				f.Add(fmt.Sprintf("%s[%d].path", field, i), "%q is a file, so it cannot also be a directory", dir)
				break
			}
		}
	}
}

// skillPathProblem explains why p is not a file path within a skill's
// directory, or returns "".
func skillPathProblem(p string) string {
	switch {
	case p == "":
		return "is required"
	case len(p) > MaxSkillPath:
		return fmt.Sprintf("at most %d characters", MaxSkillPath)
	case p == SkillManifest:
		return "SKILL.md is written from the skill's fields and cannot be a further file"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." || !skillPathSegment.MatchString(seg) {
			return "must be a relative path of segments of letters, digits and . _ ~ - (no empty, . or .. segment)"
		}
	}
	return ""
}

// Content is the file's raw bytes.
func (f SkillFile) Content() []byte {
	if f.Text != nil {
		return []byte(*f.Text)
	}
	if f.Base64 == nil {
		return nil
	}
	b, _ := base64.StdEncoding.DecodeString(*f.Base64) // checked when saved
	return b
}

// Binary reports whether the file's content is given as base64.
func (f SkillFile) Binary() bool { return f.Text == nil }

// Bytes is the size of the skill's SKILL.md and files.
func (s Skill) Bytes() int {
	n := len(s.Manifest())
	for _, f := range s.Files {
		if f.Text != nil {
			n += len(*f.Text)
		} else if f.Base64 != nil {
			n += base64.StdEncoding.DecodedLen(len(*f.Base64))
		}
	}
	return n
}

// Frontmatter is the front matter of the skill's SKILL.md as a JSON
// object: name, description, and license and metadata when set.
func (s Skill) Frontmatter() map[string]any {
	out := map[string]any{"name": s.Name, "description": s.Description}
	if s.License != "" {
		out["license"] = s.License
	}
	if len(s.Metadata) > 0 {
		out["metadata"] = s.Metadata
	}
	return out
}

// Manifest is the skill's SKILL.md: the YAML front matter written from
// the skill's fields, then the body.
func (s Skill) Manifest() string {
	var b strings.Builder
	b.WriteString("---\nname: ")
	b.WriteString(yamlScalar(s.Name))
	b.WriteString("\ndescription: ")
	b.WriteString(yamlScalar(s.Description))
	if s.License != "" {
		b.WriteString("\nlicense: ")
		b.WriteString(yamlScalar(s.License))
	}
	if len(s.Metadata) > 0 {
		b.WriteString("\nmetadata:")
		for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
			b.WriteString("\n  ")
			b.WriteString(yamlScalar(k))
			b.WriteString(": ")
			b.WriteString(yamlScalar(s.Metadata[k]))
		}
	}
	b.WriteString("\n---\n")
	if s.Body != "" {
		b.WriteString("\n")
		b.WriteString(s.Body)
	}
	return b.String()
}

// plainScalar matches text YAML reads back as the same string when
// written plain.
var plainScalar = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9 ,.()_/+'-]*[A-Za-z0-9.)_'])?$`)

// yamlKeywords are plain words YAML reads as something other than a
// string.
var yamlKeywords = []string{"true", "false", "null", "yes", "no", "on", "off", "y", "n"}

// yamlScalar is s as a YAML scalar that reads back as s: plain when that
// is unambiguous, else double-quoted (a JSON string is a valid YAML
// double-quoted scalar).
func yamlScalar(s string) string {
	if plainScalar.MatchString(s) && !slices.Contains(yamlKeywords, strings.ToLower(s)) {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
