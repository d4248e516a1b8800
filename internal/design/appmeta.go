package design

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, specification of January 2026): a tool
// names the view that shows its results in its _meta.ui.resourceUri, and
// the view is a resource of the design whose URI has the ui:// scheme and
// whose content is one HTML document.
const (
	// AppExtension names the extension in capabilities' extensions.
	AppExtension = "io.modelcontextprotocol/ui"
	// AppMimeType is the media type a view is served with.
	AppMimeType = "text/html;profile=mcp-app"
	// AppScheme begins the URI of every view.
	AppScheme = "ui://"
	// AppLegacyURIKey is the flat key older servers link a tool to its
	// view with (_meta["ui/resourceUri"]), still read by hosts.
	AppLegacyURIKey = "ui/resourceUri"
)

// MaxMeta bounds a tool's or a resource's _meta, in bytes of JSON.
const MaxMeta = 64 << 10

// IsAppResource reports whether uri names an MCP Apps view.
func IsAppResource(uri string) bool { return strings.HasPrefix(uri, AppScheme) }

// The members a ui object may have, as the extension's schemas
// (McpUiToolMeta, McpUiResourceMeta) declare them: nothing else.
var (
	toolUIMembers     = []string{"resourceUri", "visibility"}
	resourceUIMembers = []string{"csp", "permissions", "domain", "prefersBorder"}
	cspMembers        = []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"}
	permissionMembers = []string{"camera", "microphone", "geolocation", "clipboardWrite"}
	visibilities      = []string{"model", "app"}
)

// metaObject reads a tool's or a resource's meta (at field) as an object,
// checking its size; ok is false when it is absent or reported.
func metaObject(f *failure.Fields, field string, meta json.RawMessage) (map[string]json.RawMessage, bool) {
	if absent(meta) {
		return nil, false
	}
	if len(meta) > MaxMeta {
		f.Add(field, "at most %d bytes of JSON, got %d", MaxMeta, len(meta))
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil || m == nil {
		f.Add(field, "must be a JSON object")
		return nil, false
	}
	noNULJSON(f, field, meta)
	return m, true
}

// checkToolMeta checks a tool's meta: an object whose ui member, when
// present, links the tool to a view as McpUiToolMeta allows.
func checkToolMeta(f *failure.Fields, meta json.RawMessage) {
	m, ok := metaObject(f, "meta", meta)
	if !ok {
		return
	}
	if raw, ok := m[AppLegacyURIKey]; ok {
		viewURI(f, "meta."+AppLegacyURIKey, raw)
	}
	raw, ok := m["ui"]
	if !ok {
		return
	}
	ui, ok := object(f, "meta.ui", raw)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(ui)) {
		at, v := "meta.ui."+k, ui[k]
		switch k {
		case "resourceUri":
			viewURI(f, at, v)
		case "visibility":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil || list == nil {
				f.Add(at, "must be an array of %s", strings.Join(quoted(visibilities), " or "))
				continue
			}
			for i, item := range list {
				var s string
				if json.Unmarshal(item, &s) != nil || !slices.Contains(visibilities, s) {
					f.Add(fmt.Sprintf("%s[%d]", at, i), "must be %s, got %s", strings.Join(quoted(visibilities), " or "), item)
				}
			}
		case "csp", "permissions":
			f.Add(at, "belongs to the view: give it in the meta.ui of the ui:// resource, not the tool's")
		default:
			f.Add(at, "unknown member: a tool's ui has %s", strings.Join(toolUIMembers, " and "))
		}
	}
}

// ToolView is the URI of the view a tool's meta links it to: ui.resourceUri,
// else the flat ui/resourceUri key; "" when it names none.
func ToolView(meta json.RawMessage) string {
	var m struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
		Flat string `json:"ui/resourceUri"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	if m.UI.ResourceURI != "" {
		return m.UI.ResourceURI
	}
	return m.Flat
}

// viewURI checks that raw is a string naming a view (ui://...).
func viewURI(f *failure.Fields, at string, raw json.RawMessage) {
	var s string
	switch {
	case json.Unmarshal(raw, &s) != nil:
		f.Add(at, "must be a string, the URI of a ui:// resource")
	case !IsAppResource(s) || len(s) == len(AppScheme):
		f.Add(at, "must be the URI of a ui:// resource, got %q", s)
	default:
		maxLen(f, at, s, MaxURI)
	}
}

// checkResourceMeta checks a resource's meta (an object whose ui member,
// when present, describes a view's sandbox as McpUiResourceMeta allows),
// and what a view must be: a ui:// resource of text (its HTML) or a blob,
// served as AppMimeType.
func checkResourceMeta(f *failure.Fields, r Resource) {
	if IsAppResource(r.URI) {
		if r.MimeType != nil && *r.MimeType != "" && *r.MimeType != AppMimeType {
			f.Add("mime_type", "a ui:// resource is an MCP Apps view, served as %s: leave mime_type out or give that, got %q",
				AppMimeType, *r.MimeType)
		}
		if !r.Binary && !absent(r.Content) && !bytes.HasPrefix(bytes.TrimSpace(r.Content), []byte(`"`)) {
			f.Add("content", "a ui:// resource's content is its HTML document, a string (or give blob)")
		}
	}
	m, ok := metaObject(f, "meta", r.Meta)
	if !ok {
		return
	}
	raw, ok := m["ui"]
	if !ok {
		return
	}
	if !IsAppResource(r.URI) {
		f.Add("meta.ui", "describes an MCP Apps view, whose URI begins with ui://; got %q", r.URI)
	}
	ui, ok := object(f, "meta.ui", raw)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(ui)) {
		at, v := "meta.ui."+k, ui[k]
		switch k {
		case "csp":
			checkCSP(f, at, v)
		case "permissions":
			checkPermissions(f, at, v)
		case "domain":
			var s string
			if json.Unmarshal(v, &s) != nil {
				f.Add(at, "must be a string")
			} else {
				maxLen(f, at, s, MaxURI)
			}
		case "prefersBorder":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				f.Add(at, "must be true or false")
			}
		default:
			f.Add(at, "unknown member: a view's ui has %s", strings.Join(resourceUIMembers, ", "))
		}
	}
}

// checkCSP checks a view's csp: lists of origins by directive.
func checkCSP(f *failure.Fields, at string, raw json.RawMessage) {
	csp, ok := object(f, at, raw)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(csp)) {
		if !slices.Contains(cspMembers, k) {
			f.Add(at+"."+k, "unknown member: csp has %s", strings.Join(cspMembers, ", "))
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(csp[k], &list) != nil || list == nil {
			f.Add(at+"."+k, "must be an array of origins (strings)")
			continue
		}
		for i, item := range list {
			var s string
			if json.Unmarshal(item, &s) != nil {
				f.Add(fmt.Sprintf("%s.%s[%d]", at, k, i), "must be a string, an origin such as https://api.example.com")
			} else {
				maxLen(f, fmt.Sprintf("%s.%s[%d]", at, k, i), s, MaxURI)
			}
		}
	}
}

// checkPermissions checks a view's permissions: each one asked for is {}.
func checkPermissions(f *failure.Fields, at string, raw json.RawMessage) {
	perms, ok := object(f, at, raw)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(perms)) {
		if !slices.Contains(permissionMembers, k) {
			f.Add(at+"."+k, "unknown member: permissions has %s", strings.Join(permissionMembers, ", "))
			continue
		}
		if v, ok := object(f, at+"."+k, perms[k]); ok && len(v) > 0 {
			f.Add(at+"."+k, "must be {} (asking for the permission)")
		}
	}
}

// object reads raw as a JSON object, reporting at field when it is not.
func object(f *failure.Fields, field string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		f.Add(field, "must be an object")
		return nil, false
	}
	return m, true
}

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
