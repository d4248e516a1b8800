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
	_ "embed"
	"sync"

	"github.com/mockmcp/mockmcp/internal/yamljson"
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
// keys (the one converter of YAML documents, internal/yamljson). Keys are
// written as strings; aliases are expanded, to at most maxJSON bytes.
func ToJSON(src []byte) ([]byte, error) {
	return yamljson.Convert(src, yamljson.Options{Limit: maxJSON, ScalarKeys: true})
}

// maxJSON bounds the JSON of the document: many times what it holds.
const maxJSON = 64 << 20
