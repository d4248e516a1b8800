package design

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// MCPHeaderKeyword annotates an input schema property whose value a client
// repeats in the Mcp-Param-{name} header of a tools/call request.
const MCPHeaderKeyword = "x-mcp-header"

// headerTypes are the property types a header can carry: a number other
// than an integer has no single text form.
var headerTypes = []string{"string", "integer", "boolean"}

// valueKeywords hold instances, not schemas: an object there with an
// x-mcp-header member annotates nothing.
var valueKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkMCPHeaders reports the x-mcp-header annotations of a valid input
// schema that a client must refuse (and so would drop the tool): a value
// that is not an HTTP header name token, one that repeats another
// case-insensitively, one on a property that is not a string, integer or
// boolean, and one anywhere but on a property reached from the root
// through properties alone (not through items, $defs, allOf, anyOf,
// oneOf, not, if, then, else or a $ref).
func checkMCPHeaders(f *failure.Fields, field string, inputSchema json.RawMessage) {
	if !strings.Contains(string(inputSchema), `"`+MCPHeaderKeyword+`"`) {
		return
	}
	var root any
	if json.Unmarshal(inputSchema, &root) != nil {
		return // reported by the schema check
	}
	c := headerCheck{f: f, seen: map[string]string{}}
	c.walk(root, field, true, false)
}

type headerCheck struct {
	f *failure.Fields
	// seen maps each header name, lower case, to the field annotated
	// with it first.
	seen map[string]string
}

// walk checks the schema v at field. reachable says that v is the root or
// a property reached from it through properties alone; property that v is
// a property.
func (c *headerCheck) walk(v any, field string, reachable, property bool) {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			c.walk(e, fmt.Sprintf("%s[%d]", field, i), false, false)
		}
	case map[string]any:
		if h, ok := v[MCPHeaderKeyword]; ok {
			c.annotation(v, h, field, reachable && property)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			switch {
			case valueKeywords[k] || k == MCPHeaderKeyword:
			case k == "properties":
				props, ok := v[k].(map[string]any)
				if !ok {
					continue
				}
				for _, name := range slices.Sorted(maps.Keys(props)) {
					c.walk(props[name], field+".properties."+name, reachable, true)
				}
			default:
				c.walk(v[k], field+"."+k, false, false)
			}
		}
	}
}

// annotation checks one x-mcp-header member h of schema s at field.
func (c *headerCheck) annotation(s map[string]any, h any, field string, allowed bool) {
	at := field + "." + MCPHeaderKeyword
	if !allowed {
		c.f.Add(at, "only a property reached from the root through properties may be mirrored in a header "+
			"(not one inside items, $defs, allOf, anyOf, oneOf, not, if, then, else or a $ref target, nor the root)")
		return
	}
	name, ok := h.(string)
	switch {
	case !ok || name == "":
		c.f.Add(at, "must be a header name: a non-empty string")
		return
	case !isToken(name):
		c.f.Add(at, "must be a header name token (letters, digits and !#$%%&'*+-.^_`|~), got %q", name)
		return
	}
	if typ, _ := s["type"].(string); !slices.Contains(headerTypes, typ) {
		c.f.Add(at, "only a property of type string, integer or boolean may be mirrored in a header, this one has type %s", typeText(s["type"]))
	}
	key := strings.ToLower(name)
	if first, dup := c.seen[key]; dup {
		c.f.Add(at, "header name %q is already used by %s (header names are case-insensitive)", name, first)
		return
	}
	c.seen[key] = at
}

// typeText shows a schema's type member in a message.
func typeText(t any) string {
	if t == nil {
		return "none"
	}
	b, _ := json.Marshal(t)
	return string(b)
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// MCPHeader is a tool argument a tools/call request repeats in a
// Mcp-Param-{Name} header.
type MCPHeader struct {
	Name string   // the x-mcp-header value
	Path []string // property names from the arguments' root
	Type string   // string, integer or boolean
}

// MCPHeaders lists the x-mcp-header annotations of an input schema that
// name a header: those on properties reached from the root through
// properties alone, in the order of their property names. Annotations
// checkMCPHeaders refuses elsewhere are not listed.
func MCPHeaders(inputSchema json.RawMessage) []MCPHeader {
	if !strings.Contains(string(inputSchema), `"`+MCPHeaderKeyword+`"`) {
		return nil
	}
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil
	}
	var out []MCPHeader
	var walk func(schema map[string]any, path []string)
	walk = func(schema map[string]any, path []string) {
		props, _ := schema["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			sub, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			at := append(slices.Clip(path), name)
			if h, ok := sub[MCPHeaderKeyword].(string); ok && isToken(h) {
				typ, _ := sub["type"].(string)
				out = append(out, MCPHeader{Name: h, Path: at, Type: typ})
			}
			walk(sub, at)
		}
	}
	walk(root, nil)
	return out
}
