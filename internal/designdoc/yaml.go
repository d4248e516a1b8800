package designdoc

import (
	"bytes"
	"errors"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// toJSONFromYAML converts one YAML document to JSON text (yamljson), its
// aliases expanded within limit bytes. Keys must be strings and appear
// once per mapping; tags other than YAML's core ones are refused.
func toJSONFromYAML(src []byte, limit int64) ([]byte, error) {
	js, err := yamljson.Convert(src, yamljson.Options{Limit: limit})
	if err != nil {
		return nil, documentError(err)
	}
	return js, nil
}

// documentError is a yamljson error as the failure answered for the
// document: text that is not YAML or JSON at all is a bad request naming
// the line; anything else is invalid, naming the field and the line.
func documentError(err error) error {
	var e *yamljson.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Syntax {
		detail := "the document is neither JSON nor valid YAML"
		if e.Column > 0 || strings.Contains(e.Reason, "JSON") {
			detail = "the document is not valid JSON"
		}
		return failure.BadRequest(detail, failure.Field("body", "%s", e.Message()))
	}
	field := e.Path
	if field == "" {
		field = "body"
	}
	return failure.Invalid(failure.Field(field, "%s", e.Message()))
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
