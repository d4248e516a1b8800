package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// setLevel acknowledges logging/setLevel. The endpoint keeps no session, so
// the level is checked but not kept: scripted log notifications are sent
// whatever the level.
func setLevel(_ context.Context, _ *Exchange, _ *state, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Level *string `json:"level"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Level == nil {
		return nil, missing("level", "logging/setLevel needs a level")
	}
	if !slices.Contains(mockspec.LogLevels, *p.Level) {
		return nil, jsonrpc.WithData(invalidParams("level must be one of %s", strings.Join(mockspec.LogLevels, ", ")),
			map[string]string{"field": "level", "reason": "not a syslog level"})
	}
	return empty, nil
}

var empty = json.RawMessage(`{}`)

// subscribe acknowledges resources/subscribe and resources/unsubscribe for
// a resource the design has; the endpoint keeps no session, so no update
// notification follows.
func subscribe(_ context.Context, _ *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	var p struct {
		URI *string `json:"uri"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == nil {
		return nil, missing("uri", "the URI of the resource is required")
	}
	if _, _, ok := d.read(*p.URI); !ok {
		return nil, mcptransport.Legacy.NotFound(mcptransport.Resource, *p.URI) // a legacy method
	}
	return empty, nil
}

// maxCompletions is the most values one completion/complete answers.
const maxCompletions = 100

// complete answers completion/complete from the values stored on a prompt's
// argument or a URI template's parameter, keeping those that begin with the
// typed value (ignoring case).
func complete(_ context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	if x.Modern() && !d.hasCompletions { // server/discover does not name the completions capability
		return nil, fmt.Errorf("%w: completion/complete", jsonrpc.ErrMethodNotFound)
	}
	var p struct {
		Ref *struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument *struct {
			Name  *string `json:"name"`
			Value string  `json:"value"`
		} `json:"argument"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Ref == nil:
		return nil, missing("ref", "completion/complete needs the prompt or resource template to complete for")
	case p.Argument == nil:
		return nil, missing("argument", "completion/complete needs the argument being completed")
	case p.Argument.Name == nil:
		return nil, missing("argument.name", "completion/complete needs the argument's name")
	}
	var values []string
	switch p.Ref.Type {
	case "ref/prompt":
		pr, ok := d.prompts[p.Ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Prompt not found: " + p.Ref.Name}
		}
		for _, a := range pr.arguments {
			if a.Name == *p.Argument.Name {
				values = a.Completions
			}
		}
	case "ref/resource":
		i := slices.IndexFunc(d.templates, func(r *resource) bool { return r.uri == p.Ref.URI })
		if i < 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Resource template not found: " + p.Ref.URI}
		}
		values = d.templates[i].completions[*p.Argument.Name]
	default:
		return nil, jsonrpc.WithData(invalidParams("ref.type must be ref/prompt or ref/resource"),
			map[string]string{"field": "ref.type", "reason": "unknown reference type"})
	}
	prefix := strings.ToLower(p.Argument.Value)
	matched := []string{}
	total := 0
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			total++
			if len(matched) < maxCompletions {
				matched = append(matched, v)
			}
		}
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	return json.Marshal(map[string]completion{"completion": {Values: matched, Total: total, HasMore: total > len(matched)}})
}

// fillContent returns a prompt message's content block with {{argument}}
// placeholders filled in its strings (text, URIs, names), shaped for the
// protocol version.
func fillContent(raw json.RawMessage, values map[string]string, version string) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	filled, err := json.Marshal(fillStrings(v, values))
	if err != nil {
		return nil, err
	}
	return shapeContent(filled, version)
}

// fillStrings fills placeholders in every string of a decoded JSON value
// but base64 data, which holds none.
func fillStrings(v any, values map[string]string) any {
	switch x := v.(type) {
	case string:
		return fill(x, values)
	case map[string]any:
		for k, e := range x {
			if k == "data" || k == "blob" {
				continue
			}
			x[k] = fillStrings(e, values)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = fillStrings(e, values)
		}
		return x
	}
	return v
}
