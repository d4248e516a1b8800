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
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/failure"
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
	js, err := ToJSON(raw)
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
// first character is '{'), else the JSON form of its YAML.
func ToJSON(raw []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, failure.BadRequest("the document is empty", failure.Field("body", "is empty: send a design document, JSON or YAML"))
	}
	if trimmed[0] == '{' {
		if err := checkJSON(trimmed); err != nil {
			return nil, err
		}
		return trimmed, nil
	}
	return yamlToJSON(trimmed)
}

// checkJSON reports JSON syntax errors with their line and column.
func checkJSON(b []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers beyond float64 are the schema check's to report
	err := dec.Decode(&v)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			return failure.BadRequest("the document is not valid JSON",
				failure.Field("body", "unexpected data after the JSON object"))
		}
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return failure.BadRequest("the document is not valid JSON", failure.Field("body", "the JSON text ends early"))
	}
	if se, ok := err.(*json.SyntaxError); ok {
		line, col := position(b, se.Offset)
		return failure.BadRequest("the document is not valid JSON",
			failure.Field("body", "line %d, column %d: %s", line, col, se.Error()))
	}
	return failure.Invalid(failure.Field("body", "%s", err.Error()))
}

func position(b []byte, offset int64) (line, col int) {
	if offset > int64(len(b)) {
		offset = int64(len(b))
	}
	before := b[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
