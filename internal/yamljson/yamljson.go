// Package yamljson converts the YAML documents the service reads (design
// documents, imported OpenAPI documents, its own OpenAPI document) to JSON
// text, and checks JSON documents for keys given twice.
//
// A YAML document is a graph, not a tree: an alias repeats the node its
// anchor names, so a few bytes can stand for gigabytes ("billion laughs"),
// and an alias inside its own anchor never ends. Convert refuses the cycle
// and counts the JSON it writes as it writes it, stopping at a limit of
// bytes, so a hostile document costs at most the limit, in milliseconds.
//
// Errors never quote the document: they name a line, a field path and, for
// aliases, the anchor.
package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultLimit is the JSON a document may expand to when the caller names
// no limit: the default of MAX_BODY_BYTES.
const DefaultLimit = 1 << 20

// maxDepth bounds how deeply values nest, aliases included, as
// encoding/json bounds what it decodes.
const maxDepth = 10_000

// Error is why a document cannot be converted. Its text never quotes the
// document's content.
type Error struct {
	// Line is the line at fault (1-based), 0 when there is none.
	Line int
	// Column is the column at fault (1-based, in bytes), 0 when unknown.
	Column int
	// Path is the field at fault (`tools[0].name`), empty for the document
	// itself.
	Path string
	// Reason says what is wrong.
	Reason string
	// Syntax reports text that is not YAML at all (a 400 rather than a
	// 422).
	Syntax bool
	// TooLarge reports a document that expands past the limit.
	TooLarge bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Message())
	return b.String()
}

// Message is the error without its path: the line, when known, and the
// reason.
func (e *Error) Message() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Reason
	case e.Line > 0:
		return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return e.Reason
}

// Options of Convert.
type Options struct {
	// Limit bounds the JSON text in bytes; 0 means DefaultLimit.
	Limit int64
	// ScalarKeys accepts mapping keys of any scalar type (`200:` in an
	// OpenAPI document's responses), written as their text; otherwise a
	// key must be a string.
	ScalarKeys bool
}

// Convert converts src, one YAML document, to JSON text, keeping the order
// of mapping keys and the text of numbers. It refuses a second document,
// a key given twice in one mapping, merge keys (<<), tags other than
// YAML's core ones, an alias inside its own anchor, nesting deeper than
// 10,000 levels, and JSON longer than opts.Limit. Its errors are *Error.
func Convert(src []byte, opts Options) ([]byte, error) {
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return []byte("null"), nil // no document: YAML's null
	} else if err != nil {
		return nil, syntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Line: extra.Line, Syntax: true,
			Reason: "a second document starts; send one document per body or file"}
	}
	c := converter{opts: opts, active: map[*yaml.Node]bool{}, done: map[*yaml.Node]span{}}
	if err := c.node(&doc); err != nil {
		return nil, err
	}
	return c.out.Bytes(), nil
}

// yamlLine is the position yaml.v3 puts before its parser's messages, which
// are fixed texts; the one that names something (an unknown anchor) is
// rewritten, and any other that quotes is replaced.
var yamlLine = regexp.MustCompile(`^line (\d+): `)

func syntaxError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{Syntax: true}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	if strings.HasPrefix(msg, "unknown anchor '") {
		msg = "an alias names an anchor that is not defined before it"
	} else if strings.ContainsAny(msg, "\n`") {
		msg = "the text is not valid YAML" // not one of the parser's fixed messages
	}
	e.Reason = msg
	return e
}

type converter struct {
	opts Options
	out  bytes.Buffer
	// active holds the nodes being converted: an alias to one of them is
	// a document that contains itself.
	active map[*yaml.Node]bool
	// done holds the JSON written for each anchored node converted whole:
	// its aliases copy it, so that an expansion costs its bytes and
	// nothing more.
	done map[*yaml.Node]span
	// deepest is the deepest level reached by the node being converted.
	deepest int
	// path is where the conversion is, written out only for an error
	// (building it at every value would cost the square of the depth).
	path []step
}

// span is the JSON written for one node: from and to an offset, and how
// many levels deep its values nest.
type span struct{ from, to, depth int }

// step is one level of a path: a mapping key, or else a sequence index.
type step struct {
	key   *string
	index int
}

func (c *converter) at() string { return pathString(c.path) }

// pathString writes a path as errors name fields: `tools[0].name`.
func pathString(path []step) string {
	var b strings.Builder
	for _, s := range path {
		if s.key == nil {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(*s.key)
	}
	return b.String()
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	return &Error{Line: n.Line, Path: c.at(), Reason: fmt.Sprintf(format, args...)}
}

// over reports whether the JSON written so far passed the limit.
func (c *converter) over(n *yaml.Node) error {
	if int64(c.out.Len()) <= c.opts.Limit {
		return nil
	}
	return c.tooLarge(n)
}

func (c *converter) tooLarge(n *yaml.Node) error {
	return &Error{Line: n.Line, Path: c.at(), TooLarge: true, Reason: fmt.Sprintf(
		"the document expands to more than %d bytes of JSON, the limit (every use of an alias counts)", c.opts.Limit)}
}

func (c *converter) node(n *yaml.Node) error {
	level := len(c.path)
	if level > maxDepth {
		return c.fail(n, "values nest more than %d levels deep", maxDepth)
	}
	c.deepest = max(c.deepest, level)
	if n.Anchor != "" {
		c.active[n] = true
		from, outer := c.out.Len(), c.deepest
		c.deepest = level
		defer func() {
			delete(c.active, n)
			c.done[n] = span{from, c.out.Len(), c.deepest - level}
			c.deepest = max(outer, c.deepest)
		}()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out.WriteString("null")
			return nil
		}
		return c.node(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return c.fail(n, "unknown anchor")
		}
		if c.active[n.Alias] {
			return c.fail(n, "anchor '%s' contains itself", n.Value)
		}
		if s, ok := c.done[n.Alias]; ok {
			if level+s.depth > maxDepth {
				return c.fail(n, "values nest more than %d levels deep", maxDepth)
			}
			if int64(c.out.Len()+s.to-s.from) > c.opts.Limit {
				return c.tooLarge(n)
			}
			c.deepest = max(c.deepest, level+s.depth)
			// The buffer only grows: the stretch stays readable even when
			// the write moves the buffer.
			c.out.Write(c.out.Bytes()[s.from:s.to])
			return nil
		}
		return c.node(n.Alias)
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.SequenceNode:
		c.out.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				c.out.WriteByte(',')
			}
			c.path = append(c.path, step{index: i})
			if err := c.node(e); err != nil {
				return err
			}
			c.path = c.path[:len(c.path)-1]
		}
		c.out.WriteByte(']')
		return c.over(n)
	case yaml.ScalarNode:
		if err := c.scalar(n); err != nil {
			return err
		}
		return c.over(n)
	}
	return c.fail(n, "unsupported YAML node")
}

func (c *converter) mapping(n *yaml.Node) error {
	c.out.WriteByte('{')
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			return c.fail(k, "merge keys (<<) are not supported")
		}
		if k.Kind != yaml.ScalarNode || (!c.opts.ScalarKeys && k.ShortTag() != "!!str") {
			return c.fail(k, "mapping keys must be strings")
		}
		c.path = append(c.path, step{key: &k.Value})
		if seen[k.Value] {
			return c.fail(k, "the key appears twice in its mapping")
		}
		seen[k.Value] = true
		if i > 0 {
			c.out.WriteByte(',')
		}
		kb, _ := json.Marshal(k.Value) // a string always encodes
		c.out.Write(kb)
		c.out.WriteByte(':')
		if err := c.node(v); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.out.WriteByte('}')
	return c.over(n)
}

// decimal is an integer as JSON writes it.
var decimal = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

func (c *converter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		c.out.WriteString("null")
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return c.fail(n, "is not a boolean")
		}
		c.out.WriteString(strconv.FormatBool(b))
	case "!!int":
		if text := strings.ReplaceAll(n.Value, "_", ""); decimal.MatchString(text) {
			c.out.WriteString(text) // the digits as written, however many
			return nil
		}
		var i int64
		if err := n.Decode(&i); err != nil {
			return c.fail(n, "is not an integer JSON can hold")
		}
		c.out.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		if json.Valid([]byte(n.Value)) {
			c.out.WriteString(n.Value)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return c.fail(n, "is not a number")
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return c.fail(n, "is not a JSON number (infinite or not a number)")
		}
		c.out.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case "!!str", "!!timestamp", "!!binary":
		// A date stays the text it was written as.
		b, err := json.Marshal(n.Value)
		if err != nil {
			return c.fail(n, "is not a string JSON can hold")
		}
		c.out.Write(b)
	default:
		return c.fail(n, "has a tag other than YAML's core ones (!!str, !!int, !!float, !!bool, !!null), which is not supported")
	}
	return nil
}
