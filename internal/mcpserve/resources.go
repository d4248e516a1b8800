package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
)

// resource is a resource or a URI template compiled for serving.
type resource struct {
	uri      string
	mimeType string
	text     string         // the content as served
	binary   bool           // text holds base64, served as a blob
	pattern  *regexp.Regexp // templates only
	params   []string       // templates only, in order
	// completions are the values of completion/complete per template
	// parameter.
	completions map[string][]string
	// jsonContent: the content is JSON, not text, so template values
	// substituted into it are escaped.
	jsonContent bool
	// ask, when set, is the first round of questions asked before the
	// resource is read.
	ask *round
	// meta is the resource's _meta, served with its contents; nil when
	// none.
	meta json.RawMessage
}

// compileResources compiles every resource and encodes resources/list and
// resources/templates/list.
func (c *compiled) compileResources(resources []design.Resource, skills *skillSet) error {
	type resourceInfo struct {
		URI         string          `json:"uri,omitempty"`
		URITemplate string          `json:"uriTemplate,omitempty"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		MimeType    string          `json:"mimeType"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}
	c.resources = make(map[string]*resource, len(resources))
	plain, templated := []resourceInfo{}, []resourceInfo{}
	for _, r := range resources {
		cr, err := compileResource(r)
		if err != nil {
			return fmt.Errorf("resource %q: %w", r.URI, err)
		}
		if r.Ask != nil {
			if cr.ask, err = compileRound(nil, "", r.Ask, r.Then, c.version, false); err != nil {
				return fmt.Errorf("resource %q: %w", r.URI, err)
			}
			c.size += cr.ask.size()
		}
		info := resourceInfo{Name: r.Name, Description: r.Description, MimeType: cr.mimeType, Meta: cr.meta}
		c.apps = c.apps || design.IsAppResource(r.URI)
		if cr.pattern != nil {
			info.URITemplate = r.URI
			templated = append(templated, info)
			c.templates = append(c.templates, cr)
		} else {
			info.URI = r.URI
			plain = append(plain, info)
			c.resources[r.URI] = cr
		}
		c.size += len(cr.text) + len(cr.meta) + len(r.URI) + 256
	}
	// Each skill's SKILL.md is listed too, named and described from its
	// front matter; its other files are found from skills/list.
	if skills != nil {
		for _, m := range skills.manifests {
			plain = append(plain, resourceInfo{URI: m.uri, Name: m.name, Description: m.description, MimeType: "text/markdown"})
		}
	}
	var err error
	if c.resourcesList, err = json.Marshal(map[string]any{"resources": plain}); err != nil {
		return err
	}
	c.templatesList, err = json.Marshal(map[string]any{"resourceTemplates": templated})
	return err
}

var templateParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// compileResource decodes a resource's content as served and, for a URI
// template, builds the pattern its URIs match.
func compileResource(r design.Resource) (*resource, error) {
	cr := &resource{uri: r.URI, binary: r.Binary, completions: r.Completions}
	if len(r.Meta) > 0 && string(r.Meta) != "null" {
		var compact bytes.Buffer
		if err := json.Compact(&compact, r.Meta); err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
		cr.meta = compact.Bytes()
	}
	content := bytes.TrimSpace(r.Content)
	if r.Binary {
		if err := json.Unmarshal(content, &cr.text); err != nil {
			return nil, err
		}
		cr.mimeType = "application/octet-stream"
	} else if len(content) > 0 && content[0] == '"' {
		if err := json.Unmarshal(content, &cr.text); err != nil {
			return nil, err
		}
		cr.mimeType = "text/plain"
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, content); err != nil {
			return nil, err
		}
		cr.text = compact.String()
		cr.mimeType = "application/json"
		cr.jsonContent = true
	}
	if design.IsAppResource(r.URI) {
		cr.mimeType = design.AppMimeType
	}
	if r.MimeType != nil && *r.MimeType != "" {
		cr.mimeType = *r.MimeType
	}
	if locs := templateParam.FindAllStringSubmatchIndex(r.URI, -1); len(locs) > 0 {
		var pat strings.Builder
		pat.WriteByte('^')
		last := 0
		for _, l := range locs {
			pat.WriteString(regexp.QuoteMeta(r.URI[last:l[0]]))
			pat.WriteString(`([^/?#]+)`)
			cr.params = append(cr.params, r.URI[l[2]:l[3]])
			last = l[1]
		}
		pat.WriteString(regexp.QuoteMeta(r.URI[last:]))
		pat.WriteByte('$')
		var err error
		if cr.pattern, err = regexp.Compile(pat.String()); err != nil {
			return nil, err
		}
	}
	return cr, nil
}
