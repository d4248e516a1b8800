package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// ComponentsTx is the part of a transaction that keeps the tools, resources
// and prompts of a server.
type ComponentsTx struct{ *txConn }

// CreateTool inserts t.
func (t ComponentsTx) CreateTool(ctx context.Context, tool design.Tool) (design.Tool, error) {
	sc, err := marshal(tool.Scenarios)
	if err != nil {
		return design.Tool{}, err
	}
	row, err := t.q.CreateTool(ctx, t.tx, db.CreateToolParams{
		ID: tool.ID, ServerID: tool.ServerID, Name: tool.Name, Description: tool.Description,
		InputSchema: tool.InputSchema, OutputSchema: jsonOrNull(tool.OutputSchema), MockScenarios: sc,
		RequiredClientCapabilities: textArray(tool.RequiredClientCapabilities), RequiredScopes: textArray(tool.RequiredScopes),
		Fault: faultJSON(tool.Fault), Meta: jsonOrNull(tool.Meta),
	})
	return converted(toolFrom)(row, err)
}

// Tool reads one tool of a server.
func (t ComponentsTx) Tool(ctx context.Context, server, id uuid.UUID) (design.Tool, error) {
	return found("tool", toolFrom)(t.q.GetTool(ctx, t.tx, db.GetToolParams{ServerID: server, ID: id}))
}

// Tools lists a server's tools in creation order.
func (t ComponentsTx) Tools(ctx context.Context, server uuid.UUID) ([]design.Tool, error) {
	return each(toolFrom)(t.q.ListTools(ctx, t.tx, server))
}

// UpdateTool writes every field of tool.
func (t ComponentsTx) UpdateTool(ctx context.Context, tool design.Tool) (design.Tool, error) {
	sc, err := marshal(tool.Scenarios)
	if err != nil {
		return design.Tool{}, err
	}
	row, err := t.q.UpdateTool(ctx, t.tx, db.UpdateToolParams{
		ID: tool.ID, ServerID: tool.ServerID, Name: tool.Name, Description: tool.Description,
		InputSchema: tool.InputSchema, OutputSchema: jsonOrNull(tool.OutputSchema), MockScenarios: sc,
		RequiredClientCapabilities: textArray(tool.RequiredClientCapabilities), RequiredScopes: textArray(tool.RequiredScopes),
		Fault: faultJSON(tool.Fault), Meta: jsonOrNull(tool.Meta),
	})
	return found("tool", toolFrom)(row, err)
}

// DeleteTool deletes a tool and its scenarios.
func (t ComponentsTx) DeleteTool(ctx context.Context, server, id uuid.UUID) error {
	return removed("tool")(t.q.DeleteTool(ctx, t.tx, db.DeleteToolParams{ServerID: server, ID: id}))
}

// CreateResource inserts r.
func (t ComponentsTx) CreateResource(ctx context.Context, r design.Resource) (design.Resource, error) {
	row, err := t.q.CreateResource(ctx, t.tx, db.CreateResourceParams{
		ID: r.ID, ServerID: r.ServerID, Name: r.Name, Uri: r.URI, Description: r.Description,
		MimeType: r.MimeType, Content: r.Content, IsBinary: r.Binary, Completions: completionsJSON(r.Completions),
		Ask: askJSON(r.Ask, r.Then), Meta: jsonOrNull(r.Meta),
	})
	return converted(infallible(resourceFrom))(row, err)
}

// Resource reads one resource of a server.
func (t ComponentsTx) Resource(ctx context.Context, server, id uuid.UUID) (design.Resource, error) {
	return found("resource", infallible(resourceFrom))(t.q.GetResource(ctx, t.tx, db.GetResourceParams{ServerID: server, ID: id}))
}

// Resources lists a server's resources in creation order.
func (t ComponentsTx) Resources(ctx context.Context, server uuid.UUID) ([]design.Resource, error) {
	return each(infallible(resourceFrom))(t.q.ListResources(ctx, t.tx, server))
}

// UpdateResource writes every field of r.
func (t ComponentsTx) UpdateResource(ctx context.Context, r design.Resource) (design.Resource, error) {
	row, err := t.q.UpdateResource(ctx, t.tx, db.UpdateResourceParams{
		ID: r.ID, ServerID: r.ServerID, Name: r.Name, Uri: r.URI, Description: r.Description,
		MimeType: r.MimeType, Content: r.Content, IsBinary: r.Binary, Completions: completionsJSON(r.Completions),
		Ask: askJSON(r.Ask, r.Then), Meta: jsonOrNull(r.Meta),
	})
	return found("resource", infallible(resourceFrom))(row, err)
}

// DeleteResource deletes a resource.
func (t ComponentsTx) DeleteResource(ctx context.Context, server, id uuid.UUID) error {
	return removed("resource")(t.q.DeleteResource(ctx, t.tx, db.DeleteResourceParams{ServerID: server, ID: id}))
}

// CreatePrompt inserts p.
func (t ComponentsTx) CreatePrompt(ctx context.Context, p design.Prompt) (design.Prompt, error) {
	args, msgs, ask, err := marshalPrompt(p)
	if err != nil {
		return design.Prompt{}, err
	}
	row, err := t.q.CreatePrompt(ctx, t.tx, db.CreatePromptParams{
		ID: p.ID, ServerID: p.ServerID, Name: p.Name, Description: p.Description, Arguments: args, Messages: msgs, Ask: ask,
	})
	return converted(promptFrom)(row, err)
}

// Prompt reads one prompt of a server.
func (t ComponentsTx) Prompt(ctx context.Context, server, id uuid.UUID) (design.Prompt, error) {
	return found("prompt", promptFrom)(t.q.GetPrompt(ctx, t.tx, db.GetPromptParams{ServerID: server, ID: id}))
}

// Prompts lists a server's prompts in creation order.
func (t ComponentsTx) Prompts(ctx context.Context, server uuid.UUID) ([]design.Prompt, error) {
	return each(promptFrom)(t.q.ListPrompts(ctx, t.tx, server))
}

// UpdatePrompt writes every field of p.
func (t ComponentsTx) UpdatePrompt(ctx context.Context, p design.Prompt) (design.Prompt, error) {
	args, msgs, ask, err := marshalPrompt(p)
	if err != nil {
		return design.Prompt{}, err
	}
	row, err := t.q.UpdatePrompt(ctx, t.tx, db.UpdatePromptParams{
		ID: p.ID, ServerID: p.ServerID, Name: p.Name, Description: p.Description, Arguments: args, Messages: msgs, Ask: ask,
	})
	return found("prompt", promptFrom)(row, err)
}

// DeletePrompt deletes a prompt.
func (t ComponentsTx) DeletePrompt(ctx context.Context, server, id uuid.UUID) error {
	return removed("prompt")(t.q.DeletePrompt(ctx, t.tx, db.DeletePromptParams{ServerID: server, ID: id}))
}

func toolFrom(r db.McpTool) (design.Tool, error) {
	t := design.Tool{ID: r.ID, ServerID: r.ServerID, Name: r.Name, Description: r.Description,
		InputSchema: r.InputSchema, OutputSchema: r.OutputSchema, RequiredClientCapabilities: textArray(r.RequiredClientCapabilities),
		RequiredScopes: textArray(r.RequiredScopes), Meta: r.Meta, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal(r.MockScenarios, &t.Scenarios); err != nil {
		return design.Tool{}, fmt.Errorf("tool %s: stored scenarios: %w", r.ID, err)
	}
	if len(r.Fault) > 0 && string(r.Fault) != "null" {
		t.Fault = new(mockspec.Fault)
		if err := json.Unmarshal(r.Fault, t.Fault); err != nil {
			return design.Tool{}, fmt.Errorf("tool %s: stored fault: %w", r.ID, err)
		}
	}
	if t.Scenarios == nil {
		t.Scenarios = []design.Scenario{}
	}
	return t, nil
}

func resourceFrom(r db.McpResource) design.Resource {
	out := design.Resource{ID: r.ID, ServerID: r.ServerID, Name: r.Name, URI: r.Uri, Description: r.Description,
		MimeType: r.MimeType, Content: r.Content, Binary: r.IsBinary, Meta: r.Meta, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	// The column is written from a map of string lists only.
	_ = json.Unmarshal(r.Completions, &out.Completions)
	if len(r.Ask) > 0 {
		var a promptAsk // written by askJSON only
		_ = json.Unmarshal(r.Ask, &a)
		out.Ask, out.Then = a.Ask, a.Then
	}
	return out
}

// completionsJSON is the jsonb of a resource's completion values, {} when
// there are none.
func completionsJSON(c map[string][]string) []byte {
	if len(c) == 0 {
		return []byte("{}")
	}
	b, _ := json.Marshal(c) // a map of string lists always encodes
	return b
}

func promptFrom(r db.McpPrompt) (design.Prompt, error) {
	p := design.Prompt{ID: r.ID, ServerID: r.ServerID, Name: r.Name, Description: r.Description,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal(r.Arguments, &p.Arguments); err != nil {
		return design.Prompt{}, fmt.Errorf("prompt %s: stored arguments: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.Messages, &p.Messages); err != nil {
		return design.Prompt{}, fmt.Errorf("prompt %s: stored messages: %w", r.ID, err)
	}
	if len(r.Ask) > 0 {
		var a promptAsk
		if err := json.Unmarshal(r.Ask, &a); err != nil {
			return design.Prompt{}, fmt.Errorf("prompt %s: stored ask: %w", r.ID, err)
		}
		p.Ask, p.Then = a.Ask, a.Then
	}
	if p.Arguments == nil {
		p.Arguments = []design.PromptArgument{}
	}
	if p.Messages == nil {
		p.Messages = []design.PromptMessage{}
	}
	return p, nil
}

func marshalPrompt(p design.Prompt) (args, msgs, ask []byte, err error) {
	if args, err = marshal(p.Arguments); err != nil {
		return nil, nil, nil, err
	}
	if msgs, err = marshal(p.Messages); err != nil {
		return nil, nil, nil, err
	}
	return args, msgs, askJSON(p.Ask, p.Then), nil
}

// askJSON is the ask column of a prompt or resource: its questions and
// branches, nil (SQL NULL) when it asks nothing.
func askJSON(ask map[string]mockspec.InputRequest, then []mockspec.Branch) []byte {
	if ask == nil {
		return nil
	}
	b, _ := json.Marshal(promptAsk{ask, then}) // maps, slices and raw JSON already checked
	return b
}

// promptAsk is the stored form of the questions of a prompt or resource:
// its ask column.
type promptAsk struct {
	Ask  map[string]mockspec.InputRequest `json:"ask"`
	Then []mockspec.Branch                `json:"then"`
}

// textArray keeps an empty list of text an empty array, never SQL NULL or
// a nil slice.
func textArray(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// marshal encodes a slice, writing an empty one as [] rather than null.
func marshal[T any](v []T) ([]byte, error) {
	if v == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(v)
}
