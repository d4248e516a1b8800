package designdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// decimal is an integer as JSON writes it.
var decimal = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// maxYAMLNodes bounds the nodes one YAML document may expand to, so that
// aliases cannot make a small body a huge one.
const maxYAMLNodes = 1_000_000

// yamlToJSON converts one YAML document to JSON text, keeping the order of
// mapping keys and the text of numbers. Keys must be strings and appear
// once per mapping; tags other than YAML's core ones are refused.
func yamlToJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return nil, failure.BadRequest("the document is neither JSON nor valid YAML",
			failure.Field("body", "%s", strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, failure.BadRequest("the body holds more than one YAML document",
			failure.Field("body", "line %d: a second document starts; send one server per document", extra.Line))
	}
	var b bytes.Buffer
	c := converter{out: &b}
	if err := c.node(&doc, ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type converter struct {
	out   *bytes.Buffer
	nodes int
}

func (c *converter) fail(n *yaml.Node, at, format string, args ...any) error {
	if at == "" {
		at = "body"
	}
	f := failure.Field(at, format, args...)
	f.Message = "line " + strconv.Itoa(n.Line) + ": " + f.Message
	return failure.Invalid(f)
}

func (c *converter) node(n *yaml.Node, at string) error {
	if c.nodes++; c.nodes > maxYAMLNodes {
		return c.fail(n, at, "the document expands to more than %d values", maxYAMLNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out.WriteString("null")
			return nil
		}
		return c.node(n.Content[0], at)
	case yaml.AliasNode:
		return c.node(n.Alias, at)
	case yaml.MappingNode:
		c.out.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				return c.fail(k, at, "merge keys (<<) are not supported")
			}
			if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.ShortTag() != "!!str") {
				return c.fail(k, at, "mapping keys must be strings")
			}
			field := k.Value
			if at != "" {
				field = at + "." + k.Value
			}
			if seen[k.Value] {
				return c.fail(k, field, "the key %q appears twice", k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				c.out.WriteByte(',')
			}
			kb, _ := json.Marshal(k.Value) // a string always encodes
			c.out.Write(kb)
			c.out.WriteByte(':')
			if err := c.node(v, field); err != nil {
				return err
			}
		}
		c.out.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		c.out.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				c.out.WriteByte(',')
			}
			if err := c.node(e, at+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		c.out.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n, at)
	}
	return c.fail(n, at, "unsupported YAML node")
}

func (c *converter) scalar(n *yaml.Node, at string) error {
	switch n.ShortTag() {
	case "!!null":
		c.out.WriteString("null")
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return c.fail(n, at, "%s", err.Error())
		}
		c.out.WriteString(strconv.FormatBool(b))
	case "!!int":
		if text := strings.ReplaceAll(n.Value, "_", ""); decimal.MatchString(text) {
			c.out.WriteString(text) // the digits as written, however many
			return nil
		}
		var i int64
		if err := n.Decode(&i); err != nil {
			return c.fail(n, at, "%s", err.Error())
		}
		c.out.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		if json.Valid([]byte(n.Value)) {
			c.out.WriteString(n.Value)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return c.fail(n, at, "%s", err.Error())
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return c.fail(n, at, "%s is not a JSON number", n.Value)
		}
		c.out.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case "!!str", "!!timestamp", "!!binary":
		// A date stays the text it was written as.
		b, err := json.Marshal(n.Value)
		if err != nil {
			return c.fail(n, at, "%s", err.Error())
		}
		c.out.Write(b)
	default:
		return c.fail(n, at, "the tag %s is not supported", n.Tag)
	}
	return nil
}

// ToYAML encodes JSON text as YAML in block style, keeping the order of
// object members, with multi-line strings as literal blocks.
func ToYAML(js []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if b.Len() == 0 {
		return nil, errors.New("empty YAML")
	}
	return b.Bytes(), nil
}

// blockStyle turns the flow style JSON text parses to into block style.
func blockStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		n.Style = 0
		if n.Tag == "!!str" && strings.Contains(n.Value, "\n") {
			n.Style = yaml.LiteralStyle
		}
	case yaml.MappingNode, yaml.SequenceNode:
		n.Style = 0
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}
