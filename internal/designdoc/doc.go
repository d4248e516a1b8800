// Package designdoc reads and writes design documents: one MCP server
// design as a file (JSON or YAML), with the field names of the REST create
// bodies (openapi/openapi.yaml, component DesignDocument), and applies one
// to an organization.
//
// A document is checked in three steps, each answering a failure that
// names fields by their path in the document (`tools[0].input_schema`):
// against the document's JSON Schema (Schema, derived from the OpenAPI
// component), which refuses unknown fields; then converted by the REST
// conversions (internal/designwire); then checked whole by
// design.CheckDesign, as an import is.
package designdoc

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// The values of apiVersion and kind a document carries.
const (
	APIVersion = "mockmcp/v1"
	Kind       = "MCPServer"
)

// Document is a parsed and checked design document.
type Document struct {
	// ID pins the server's id; uuid.Nil when the document has none.
	ID uuid.UUID
	// Enabled is the state the document asks for; nil when it names none.
	Enabled *bool
	// Design is the server with its parts, without ids.
	Design design.Design
}

// envelope is what a document holds besides the server's fields, which are
// a CreateServerRequest.
type envelope struct {
	ID        *uuid.UUID                  `json:"id"`
	Enabled   *bool                       `json:"enabled"`
	Tools     []api.CreateToolRequest     `json:"tools"`
	Resources []api.CreateResourceRequest `json:"resources"`
	Prompts   []api.CreatePromptRequest   `json:"prompts"`
}

// notServerFields are the document's members that are not a
// CreateServerRequest's.
var notServerFields = []string{"apiVersion", "kind", "id", "enabled", "tools", "resources", "prompts"}

// Parse reads a design document, JSON or YAML, and checks it. Its failures
// are failure.Invalid (422) naming fields by their path in the document,
// or failure.BadRequest for text that is neither JSON nor YAML (naming the
// line).
func Parse(raw []byte) (Document, error) {
	return parse(raw, yamljson.DefaultLimit)
}

// parse is Parse with the bound of the JSON a YAML document may expand to.
func parse(raw []byte, limit int64) (Document, error) {
	js, err := toJSON(raw, limit)
	if err != nil {
		return Document{}, err
	}
	if err := validate(js); err != nil {
		return Document{}, err
	}
	var env envelope
	if err := json.Unmarshal(js, &env); err != nil {
		return Document{}, failure.Invalid(failure.Field("body", "%s", err.Error()))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(js, &members); err != nil {
		return Document{}, failure.Invalid(failure.Field("body", "%s", err.Error()))
	}
	for _, k := range notServerFields {
		delete(members, k)
	}
	serverJSON, _ := json.Marshal(members) // raw messages always encode
	var sb api.CreateServerRequest
	if err := json.Unmarshal(serverJSON, &sb); err != nil {
		return Document{}, failure.Invalid(failure.Field("body", "%s", err.Error()))
	}

	doc := Document{Enabled: env.Enabled}
	if env.ID != nil {
		doc.ID = *env.ID
	}
	d := design.Design{Server: designwire.ServerFromCreate(sb)}
	var f failure.Fields
	for _, t := range env.Tools {
		d.Tools = append(d.Tools, designwire.ToolFromCreate(t))
	}
	for i, b := range env.Resources {
		r, err := designwire.ResourceFromCreate(b)
		if fe, ok := failure.As(err); ok {
			for _, e := range fe.Fields {
				f.Add(fmt.Sprintf("resources[%d].%s", i, e.Field), "%s", e.Message)
			}
		}
		d.Resources = append(d.Resources, r)
	}
	for _, p := range env.Prompts {
		d.Prompts = append(d.Prompts, designwire.PromptFromCreate(p))
	}
	if err := f.Err(); err != nil {
		return Document{}, err
	}
	if err := design.CheckDesign(d); err != nil {
		return Document{}, err
	}
	doc.Design = d
	return doc, nil
}

// ToJSON returns a document's JSON text: raw itself when it is JSON (its
// first character is '{'), else the JSON form of its YAML, which may
// expand to yamljson.DefaultLimit bytes.
func ToJSON(raw []byte) ([]byte, error) {
	return toJSON(raw, yamljson.DefaultLimit)
}

// toJSON is ToJSON with the bound of the JSON a YAML document may expand
// to (its aliases expanded). A JSON document must give each key of an
// object once: the last of two would silently win.
func toJSON(raw []byte, limit int64) ([]byte, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, failure.BadRequest("the document is empty", failure.Field("body", "is empty: send a design document, JSON or YAML"))
	}
	if trimmed[0] == '{' {
		if err := yamljson.CheckJSON(trimmed); err != nil {
			return nil, documentError(err)
		}
		return trimmed, nil
	}
	return toJSONFromYAML(trimmed, limit)
}
