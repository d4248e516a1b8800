// Package openapi holds the service's OpenAPI document, openapi.yaml, as
// the binary embeds it at build time: the service serves it as written at
// GET /api/openapi.yaml, and as JSON, in the same order, at
// GET /api/openapi.json.
//
// The Echo server, the request validator and the platform tools read the
// copy that oapi-codegen embeds in gen/api (api.GetSpec), which leaves out
// the operations the service answers with handlers of its own (the MCP
// endpoints; see oapi-codegen.yaml). This package's copy is the whole
// document.
package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var document []byte

// YAML returns the document as written. The caller must not modify it.
func YAML() []byte { return document }

// JSON returns the document converted to JSON, with every mapping's keys in
// the order the YAML gives them (a viewer lists paths and operations in the
// document's order). The caller must not modify it.
func JSON() []byte {
	b, err := jsonOnce()
	if err != nil {
		// The document is fixed at build time and its test converts it.
		panic(err)
	}
	return b
}

var jsonOnce = sync.OnceValues(func() ([]byte, error) { return ToJSON(document) })

// ToJSON converts one YAML document to JSON, keeping the order of mapping
// keys. Keys are written as strings; aliases are expanded.
func ToJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := writeJSON(&out, &doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func writeJSON(out *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			out.WriteString("null")
			return nil
		}
		return writeJSON(out, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(out, n.Alias)
	case yaml.MappingNode:
		out.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return fmt.Errorf("line %d: only scalar mapping keys are supported", k.Line)
			}
			if i > 0 {
				out.WriteByte(',')
			}
			key, _ := json.Marshal(k.Value)
			out.Write(key)
			out.WriteByte(':')
			if err := writeJSON(out, v); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case yaml.SequenceNode:
		out.WriteByte('[')
		for i, v := range n.Content {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeJSON(out, v); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	default: // a scalar: YAML's resolution says string, number, bool or null
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		out.Write(b)
	}
	return nil
}
