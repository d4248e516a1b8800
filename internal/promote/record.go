package promote

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/store"
)

// promotion is the state of one promote: the design as it is being
// changed.
type promotion struct {
	server       uuid.UUID
	tools        map[string]*design.Tool
	newTools     []string
	changed      map[string]bool
	resources    map[string]bool // URIs
	prompts      map[string]bool
	newResources []design.Resource
	newPrompts   []design.Prompt
	seen         map[string]string // tool + arguments → the scenario the newest record made
	out          []Item
}

// promote turns records into the server's design and writes what changed.
func promote(ctx context.Context, st Store, server uuid.UUID, counts store.Counts, records []journal.Record) (Result, error) {
	p, err := load(ctx, st, server)
	if err != nil {
		return Result{}, err
	}
	for _, r := range records {
		switch r.Method {
		case "tools/call":
			p.tool(r)
		case "resources/read":
			p.resource(r)
		case "prompts/get":
			p.prompt(r)
		}
	}
	if err := p.write(ctx, st, counts); err != nil {
		return Result{}, err
	}
	items := p.out
	if items == nil {
		items = []Item{}
	}
	return Result{Items: items, ToolsCreated: append([]string{}, p.newTools...)}, nil
}

// load reads the server's design as a promote starts from it.
func load(ctx context.Context, st Store, server uuid.UUID) (*promotion, error) {
	p := &promotion{server: server, tools: map[string]*design.Tool{}, changed: map[string]bool{}, seen: map[string]string{}}
	have, err := st.Tools(ctx, server)
	if err != nil {
		return nil, err
	}
	for i := range have {
		p.tools[have[i].Name] = &have[i]
	}
	resourceList, err := st.Resources(ctx, server)
	if err != nil {
		return nil, err
	}
	p.resources = resources.keys(resourceList)
	promptList, err := st.Prompts(ctx, server)
	if err != nil {
		return nil, err
	}
	p.prompts = prompts.keys(promptList)
	return p, nil
}

// write checks the server's limits and writes the changed tools (in name
// order), then the new resources and prompts.
func (p *promotion) write(ctx context.Context, st Store, counts store.Counts) error {
	if err := tools.fits(counts, len(p.newTools)); err != nil {
		return err
	}
	if err := resources.fits(counts, len(p.newResources)); err != nil {
		return err
	}
	if err := prompts.fits(counts, len(p.newPrompts)); err != nil {
		return err
	}
	names := make([]string, 0, len(p.changed))
	for name := range p.changed {
		names = append(names, name)
	}
	sort.Strings(names)
	changed := make([]design.Tool, len(names))
	for i, name := range names {
		changed[i] = *p.tools[name]
	}
	err := tools.save(ctx, changed, func(ctx context.Context, t design.Tool) error {
		var err error
		if t.ID == uuid.Nil {
			t.ID = uuid.New()
			_, err = st.CreateTool(ctx, t)
		} else {
			_, err = st.UpdateTool(ctx, t)
		}
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := resources.save(ctx, p.newResources, created(st.CreateResource)); err != nil {
		return err
	}
	return prompts.save(ctx, p.newPrompts, created(st.CreatePrompt))
}

// created is a write by a store's create method, its answer dropped.
func created[T any](create func(context.Context, T) (T, error)) func(context.Context, T) error {
	return func(ctx context.Context, v T) error {
		_, err := create(ctx, v)
		return err
	}
}

// skip notes a record left out.
func (p *promotion) skip(r journal.Record, kind Kind, name, reason string) {
	p.out = append(p.out, Item{JournalID: r.ID, Kind: kind, Name: name, Action: Skipped, Reason: reason})
}

// answer is a record's upstream answer: a result or a JSON-RPC error; why
// says when it cannot be promoted.
func answer(r journal.Record) (result json.RawMessage, rpcErr *mockspec.RPCError, why string) {
	if r.Upstream == nil {
		return nil, nil, "no upstream answer recorded"
	}
	if r.Upstream.Truncated {
		return nil, nil, "the recorded answer was truncated (over 256 KiB)"
	}
	raw := json.RawMessage(r.Upstream.Answer)
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, nil, "the recorded answer is not a JSON object"
	}
	_, hasCode := probe["code"]
	_, hasMessage := probe["message"]
	if r.ErrorCode != 0 || (hasCode && hasMessage && len(probe) <= 3) {
		var e mockspec.RPCError
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, nil, "the recorded error is not a JSON-RPC error object"
		}
		return nil, &e, ""
	}
	return raw, nil, ""
}

// fresh is the recorded result of a resources/read or prompts/get record
// of an item the design lacks (taken holds the design's keys, named by
// noun); ok false, the record skipped, otherwise.
func (p *promotion) fresh(r journal.Record, kind Kind, key, noun string, taken map[string]bool) (json.RawMessage, bool) {
	result, rpcErr, why := answer(r)
	switch {
	case why != "":
		p.skip(r, kind, key, why)
	case rpcErr != nil:
		p.skip(r, kind, key, "the upstream answered an error")
	case taken[key]:
		p.skip(r, kind, key, "the design already has a "+string(kind)+" of this "+noun)
	default:
		return result, true
	}
	return nil, false
}

// named reads what a resources/read or prompts/get request names (its
// "uri" or its "name", as key says) and, through fresh, the record's
// answer; a request that names nothing is skipped.
func (p *promotion) named(r journal.Record, kind Kind, key string, taken map[string]bool) (string, json.RawMessage, bool) {
	var params struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(r.Params, &params)
	name, missing := params.Name, "the recorded request names no prompt"
	if key == "uri" {
		name, missing = params.URI, "the recorded request names no uri"
	}
	if name == "" {
		p.skip(r, kind, "", missing)
		return "", nil, false
	}
	result, ok := p.fresh(r, kind, name, key, taken)
	return name, result, ok
}

// tool promotes a tools/call record into a scenario of its tool.
func (p *promotion) tool(r journal.Record) {
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &params); err != nil || params.Name == "" {
		p.skip(r, KindTool, r.Tool, "the recorded request names no tool")
		return
	}
	name := params.Name
	// Decoded by jsonvalue's rule, so large integers keep their digits.
	arguments := map[string]any{}
	if !empty(params.Arguments) {
		v, err := jsonvalue.Decode(params.Arguments)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			p.skip(r, KindTool, name, "the recorded arguments are not an object")
			return
		}
		arguments = m
	}
	if scenario.IsOperatorForm(slices.Collect(maps.Keys(arguments))) {
		p.skip(r, KindTool, name, "arguments named field and operator (or a misspelling of one) cannot be a plain equality condition")
		return
	}
	result, rpcErr, why := answer(r)
	if why != "" {
		p.skip(r, KindTool, name, why)
		return
	}
	var notes []string
	args := redact(arguments, "arguments", &notes).(map[string]any)
	if result != nil {
		result = redactStructured(result, &notes)
	}
	if rpcErr != nil && len(rpcErr.Data) > 0 {
		rpcErr.Data = redactJSON(rpcErr.Data, "error.data", &notes)
	}
	cond, _ := json.Marshal(args)
	if len(args) == 0 {
		cond = nil
	}
	key := name + "\x00" + string(cond) // json.Marshal orders the members
	if sc, ok := p.seen[key]; ok {
		p.out = append(p.out, Item{JournalID: r.ID, Kind: KindTool, Name: name, Scenario: sc, Action: Merged,
			Reason: "the same call was recorded later; the latest record's answer is kept"})
		return
	}
	t, ok := p.tools[name]
	if !ok {
		t = &design.Tool{ServerID: p.server, Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
		p.tools[name] = t
		p.newTools = append(p.newTools, name)
	}
	sc := mockspec.Scenario{Condition: cond, Result: result, Error: rpcErr}
	item := Item{JournalID: r.ID, Kind: KindTool, Name: name, Action: Created}
	for i := range t.Scenarios {
		old := &t.Scenarios[i]
		if !sameJSON(old.Condition, cond) {
			continue
		}
		p.seen[key] = old.Name
		item.Scenario = old.Name
		if sameJSON(old.Result, result) && sameError(old.Error, rpcErr) && len(old.Response) == 0 && old.Sequence == nil {
			item.Action, item.Reason = Skipped, "scenario "+old.Name+" already answers this call identically"
			p.out = append(p.out, item)
			return
		}
		if len(cond) == 0 {
			// A recorded call without arguments would shadow every
			// scenario after it; it never replaces a fallback.
			item.Action, item.Reason = Skipped, "the call has no arguments and the tool already has a fallback scenario, "+old.Name
			p.out = append(p.out, item)
			return
		}
		sc.Name = old.Name
		*old = sc
		p.changed[name] = true
		item.Action, item.Reason = Merged, withNotes("replaced the answer of scenario "+old.Name, notes)
		p.out = append(p.out, item)
		return
	}
	sc.Name = scenarioName(t, args)
	p.seen[key] = sc.Name
	if len(cond) == 0 {
		t.Scenarios = append(t.Scenarios, sc) // the tool's fallback
	} else if n := len(t.Scenarios); n > 0 && isFallback(t.Scenarios[n-1]) {
		t.Scenarios = append(t.Scenarios[:n-1], sc, t.Scenarios[n-1])
	} else {
		t.Scenarios = append(t.Scenarios, sc)
	}
	p.changed[name] = true
	item.Scenario = sc.Name
	item.Reason = withNotes("", notes)
	p.out = append(p.out, item)
}

// resource promotes a resources/read record into a resource the design
// lacks.
func (p *promotion) resource(r journal.Record) {
	uri, result, ok := p.named(r, KindResource, "uri", p.resources)
	if !ok {
		return
	}
	var read struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MimeType *string `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(result, &read); err != nil || len(read.Contents) == 0 {
		p.skip(r, KindResource, uri, "the recorded answer has no contents")
		return
	}
	c := read.Contents[0]
	res := design.Resource{ID: uuid.New(), ServerID: p.server, Name: uri, URI: uri, MimeType: c.MimeType}
	var notes []string
	switch {
	case c.Blob != nil:
		res.Binary = true
		res.Content, _ = json.Marshal(*c.Blob)
	case c.Text != nil:
		text := *c.Text
		if c.MimeType != nil && strings.Contains(*c.MimeType, "json") && json.Valid([]byte(text)) {
			text = string(redactJSON(json.RawMessage(text), "contents.text", &notes))
		}
		res.Content, _ = json.Marshal(text)
	default:
		p.skip(r, KindResource, uri, "the recorded contents hold neither text nor blob")
		return
	}
	p.resources[uri] = true
	p.newResources = append(p.newResources, res)
	reason := "created from the first of the recorded contents"
	if len(read.Contents) == 1 {
		reason = ""
	}
	p.out = append(p.out, Item{JournalID: r.ID, Kind: KindResource, Name: uri, Action: Created,
		Reason: withNotes(reason, notes)})
}

// prompt promotes a prompts/get record into a prompt the design lacks.
func (p *promotion) prompt(r journal.Record) {
	name, result, ok := p.named(r, KindPrompt, "name", p.prompts)
	if !ok {
		return
	}
	var got struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(result, &got); err != nil || len(got.Messages) == 0 {
		p.skip(r, KindPrompt, name, "the recorded answer has no messages")
		return
	}
	pr := design.Prompt{ID: uuid.New(), ServerID: p.server, Name: name, Description: got.Description}
	for _, m := range got.Messages {
		var text struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &text)
		if text.Type == "text" && text.Text != nil {
			pr.Messages = append(pr.Messages, design.PromptMessage{Role: m.Role, Text: *text.Text})
		} else {
			pr.Messages = append(pr.Messages, design.PromptMessage{Role: m.Role, Content: m.Content})
		}
	}
	p.prompts[name] = true
	p.newPrompts = append(p.newPrompts, pr)
	p.out = append(p.out, Item{JournalID: r.ID, Kind: KindPrompt, Name: name, Action: Created})
}
