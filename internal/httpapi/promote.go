package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/credential"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// maxPromoteRecords bounds how many journal records one promote reads.
const maxPromoteRecords = 10_000

// maxRecordedName bounds a promoted scenario's name, in characters.
const maxRecordedName = 80

// redacted replaces a value under a credential-like name.
const redacted = "****"

// errPromoteDryRun rolls back the transaction of a dry run.
var errPromoteDryRun = errors.New("dry run")

// PromoteRecordings turns the server's proxied journal records into
// scenarios, resources and prompts of its design, in one transaction
// (rolled back for a dry run).
func (s *Server) PromoteRecordings(ctx context.Context, req api.PromoteRecordingsRequestObject) (api.PromoteRecordingsResponseObject, error) {
	var body api.PromoteRequest
	if req.Body != nil {
		body = *req.Body
	}
	if body.Tool != nil && *body.Tool == "" {
		return nil, failure.Invalid(failure.Field("tool", "must not be empty"))
	}
	if body.Since != nil && body.Until != nil && !body.Since.Before(*body.Until) {
		return nil, failure.Invalid(failure.Field("until", "must be after since"))
	}
	dry := deref(body.DryRun)
	var out api.PromoteResult
	err := s.inServer(ctx, req.ServerId, func(tx *store.Tx, counts store.Counts) error {
		records, err := promotable(ctx, tx, req.ServerId, body)
		if err != nil {
			return err
		}
		out, err = promote(ctx, tx, req.ServerId, counts, records)
		if err == nil && dry {
			return errPromoteDryRun
		}
		return err
	})
	if errors.Is(err, errPromoteDryRun) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	out.DryRun = dry
	return api.PromoteRecordings200JSONResponse(out), nil
}

// promotable reads the server's proxied records the filter selects,
// newest first.
func promotable(ctx context.Context, tx *store.Tx, server uuid.UUID, body api.PromoteRequest) ([]store.JournalRecord, error) {
	f := store.JournalFilter{Outcome: journal.OutcomeProxied, Since: body.Since, Limit: 500}
	if body.Tool != nil {
		f.Method, f.Tool = "tools/call", *body.Tool
	}
	var ids map[uuid.UUID]bool
	if body.JournalIds != nil {
		ids = make(map[uuid.UUID]bool, len(*body.JournalIds))
		for _, id := range *body.JournalIds {
			ids[id] = true
		}
	}
	var out []store.JournalRecord
	for n := 0; n < maxPromoteRecords; {
		page, err := tx.Journal(ctx, server, f)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Records {
			n++
			if body.Until != nil && !r.ReceivedAt.Before(*body.Until) {
				continue
			}
			if ids != nil && !ids[r.ID] {
				continue
			}
			out = append(out, r)
		}
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	return out, nil
}

// promotion is the state of one promote: the design as it is being
// changed.
type promotion struct {
	tools     map[string]*design.Tool
	newTools  []string
	changed   map[string]bool
	resources map[string]bool // URIs
	prompts   map[string]bool
	seen      map[string]string // tool + arguments → the scenario the newest record made
	out       []api.PromoteItem
}

func promote(ctx context.Context, tx *store.Tx, server uuid.UUID, counts store.Counts, records []store.JournalRecord) (api.PromoteResult, error) {
	p := promotion{tools: map[string]*design.Tool{}, changed: map[string]bool{}, resources: map[string]bool{},
		prompts: map[string]bool{}, seen: map[string]string{}}
	tools, err := tx.Tools(ctx, server)
	if err != nil {
		return api.PromoteResult{}, err
	}
	for i := range tools {
		p.tools[tools[i].Name] = &tools[i]
	}
	resources, err := tx.Resources(ctx, server)
	if err != nil {
		return api.PromoteResult{}, err
	}
	for _, r := range resources {
		p.resources[r.URI] = true
	}
	prompts, err := tx.Prompts(ctx, server)
	if err != nil {
		return api.PromoteResult{}, err
	}
	for _, pr := range prompts {
		p.prompts[pr.Name] = true
	}
	var newResources []design.Resource
	var newPrompts []design.Prompt
	for _, r := range records {
		switch r.Method {
		case "tools/call":
			p.tool(server, r)
		case "resources/read":
			if res, ok := p.resource(server, r); ok {
				newResources = append(newResources, res)
			}
		case "prompts/get":
			if pr, ok := p.prompt(server, r); ok {
				newPrompts = append(newPrompts, pr)
			}
		}
	}
	if counts.Tools+int64(len(p.newTools)) > design.MaxTools {
		return api.PromoteResult{}, design.Limit("tools", design.MaxTools)
	}
	if counts.Resources+int64(len(newResources)) > design.MaxResources {
		return api.PromoteResult{}, design.Limit("resources", design.MaxResources)
	}
	if counts.Prompts+int64(len(newPrompts)) > design.MaxPrompts {
		return api.PromoteResult{}, design.Limit("prompts", design.MaxPrompts)
	}
	names := make([]string, 0, len(p.changed))
	for name := range p.changed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := p.tools[name]
		if len(t.Scenarios) > design.MaxScenarios {
			return api.PromoteResult{}, failure.Invalid(failure.Field("tool",
				"promoting would give tool %q %d scenarios, over the limit of %d", name, len(t.Scenarios), design.MaxScenarios))
		}
		if err := design.CheckTool(*t); err != nil {
			return api.PromoteResult{}, naming("tool", name, err)
		}
		if t.ID == uuid.Nil {
			t.ID = uuid.New()
			_, err = tx.CreateTool(ctx, *t)
		} else {
			_, err = tx.UpdateTool(ctx, *t)
		}
		if err != nil {
			return api.PromoteResult{}, fmt.Errorf("tool %q: %w", name, err)
		}
	}
	for _, r := range newResources {
		if err := design.CheckResource(r); err != nil {
			return api.PromoteResult{}, naming("resource", r.URI, err)
		}
		if _, err := tx.CreateResource(ctx, r); err != nil {
			return api.PromoteResult{}, err
		}
	}
	for _, pr := range newPrompts {
		if err := design.CheckPrompt(pr); err != nil {
			return api.PromoteResult{}, naming("prompt", pr.Name, err)
		}
		if _, err := tx.CreatePrompt(ctx, pr); err != nil {
			return api.PromoteResult{}, err
		}
	}
	created := append([]string{}, p.newTools...)
	if p.out == nil {
		p.out = []api.PromoteItem{}
	}
	return api.PromoteResult{Promoted: p.out, ToolsCreated: created}, nil
}

// naming is a check's failure of a promoted tool, resource or prompt as
// the request's: each field error under the field kind, naming the item
// and its own field.
func naming(kind, name string, err error) error {
	f, ok := failure.As(err)
	if !ok || len(f.Fields) == 0 {
		return err
	}
	fields := make([]failure.FieldError, len(f.Fields))
	for i, fe := range f.Fields {
		fields[i] = failure.Field(kind, "%s %q: %s: %s", kind, name, fe.Field, fe.Message)
	}
	return failure.Invalid(fields...)
}

// skip notes a record left out.
func (p *promotion) skip(r store.JournalRecord, kind api.PromoteItemKind, name, reason string) {
	p.out = append(p.out, api.PromoteItem{JournalId: r.ID, Kind: kind, Name: name, Action: "skipped", Reason: &reason})
}

// answer is a record's upstream answer: a result or a JSON-RPC error;
// ok false (with why) when it cannot be promoted.
func answer(r store.JournalRecord) (result json.RawMessage, rpcErr *mockspec.RPCError, why string) {
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

// tool promotes a tools/call record into a scenario of its tool.
func (p *promotion) tool(server uuid.UUID, r store.JournalRecord) {
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &params); err != nil || params.Name == "" {
		p.skip(r, "tool", r.Tool, "the recorded request names no tool")
		return
	}
	name := params.Name
	// Decoded by jsonvalue's rule, so large integers keep their digits.
	arguments := map[string]any{}
	if !empty(params.Arguments) {
		v, err := jsonvalue.Decode(params.Arguments)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			p.skip(r, "tool", name, "the recorded arguments are not an object")
			return
		}
		arguments = m
	}
	if _, ok := arguments["field"].(string); ok {
		if _, ok := arguments["operator"].(string); ok {
			p.skip(r, "tool", name, "arguments named field and operator cannot be a plain equality condition")
			return
		}
	}
	result, rpcErr, why := answer(r)
	if why != "" {
		p.skip(r, "tool", name, why)
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
		reason := "the same call was recorded later; the latest record's answer is kept"
		p.out = append(p.out, api.PromoteItem{JournalId: r.ID, Kind: "tool", Name: name, Scenario: &sc, Action: "merged", Reason: &reason})
		return
	}
	t, ok := p.tools[name]
	if !ok {
		t = &design.Tool{ServerID: server, Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
		p.tools[name] = t
		p.newTools = append(p.newTools, name)
	}
	sc := mockspec.Scenario{Condition: cond, Result: result, Error: rpcErr}
	item := api.PromoteItem{JournalId: r.ID, Kind: "tool", Name: name, Action: "created"}
	for i := range t.Scenarios {
		old := &t.Scenarios[i]
		if !sameJSON(old.Condition, cond) {
			continue
		}
		p.seen[key] = old.Name
		item.Scenario = &old.Name
		if sameJSON(old.Result, result) && sameError(old.Error, rpcErr) && len(old.Response) == 0 && old.Sequence == nil {
			reason := "scenario " + old.Name + " already answers this call identically"
			item.Action, item.Reason = "skipped", &reason
			p.out = append(p.out, item)
			return
		}
		reason := "replaced the answer of scenario " + old.Name
		if len(cond) == 0 {
			// A recorded call without arguments would shadow every
			// scenario after it; it never replaces a fallback.
			reason = "the call has no arguments and the tool already has a fallback scenario, " + old.Name
			item.Action, item.Reason = "skipped", &reason
			p.out = append(p.out, item)
			return
		}
		sc.Name = old.Name
		*old = sc
		p.changed[name] = true
		item.Action, item.Reason = "merged", withNotes(reason, notes)
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
	item.Scenario = &sc.Name
	item.Reason = withNotes("", notes)
	p.out = append(p.out, item)
}

// resource promotes a resources/read record into a resource the design
// lacks.
func (p *promotion) resource(server uuid.UUID, r store.JournalRecord) (design.Resource, bool) {
	var params struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(r.Params, &params)
	if params.URI == "" {
		p.skip(r, "resource", "", "the recorded request names no uri")
		return design.Resource{}, false
	}
	result, rpcErr, why := answer(r)
	switch {
	case why != "":
		p.skip(r, "resource", params.URI, why)
		return design.Resource{}, false
	case rpcErr != nil:
		p.skip(r, "resource", params.URI, "the upstream answered an error")
		return design.Resource{}, false
	case p.resources[params.URI]:
		p.skip(r, "resource", params.URI, "the design already has a resource of this uri")
		return design.Resource{}, false
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
		p.skip(r, "resource", params.URI, "the recorded answer has no contents")
		return design.Resource{}, false
	}
	c := read.Contents[0]
	res := design.Resource{ID: uuid.New(), ServerID: server, Name: params.URI, URI: params.URI, MimeType: c.MimeType}
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
		p.skip(r, "resource", params.URI, "the recorded contents hold neither text nor blob")
		return design.Resource{}, false
	}
	p.resources[params.URI] = true
	reason := "created from the first of the recorded contents"
	if len(read.Contents) == 1 {
		reason = ""
	}
	p.out = append(p.out, api.PromoteItem{JournalId: r.ID, Kind: "resource", Name: params.URI, Action: "created",
		Reason: withNotes(reason, notes)})
	return res, true
}

// prompt promotes a prompts/get record into a prompt the design lacks.
func (p *promotion) prompt(server uuid.UUID, r store.JournalRecord) (design.Prompt, bool) {
	var params struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(r.Params, &params)
	if params.Name == "" {
		p.skip(r, "prompt", "", "the recorded request names no prompt")
		return design.Prompt{}, false
	}
	result, rpcErr, why := answer(r)
	switch {
	case why != "":
		p.skip(r, "prompt", params.Name, why)
		return design.Prompt{}, false
	case rpcErr != nil:
		p.skip(r, "prompt", params.Name, "the upstream answered an error")
		return design.Prompt{}, false
	case p.prompts[params.Name]:
		p.skip(r, "prompt", params.Name, "the design already has a prompt of this name")
		return design.Prompt{}, false
	}
	var got struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(result, &got); err != nil || len(got.Messages) == 0 {
		p.skip(r, "prompt", params.Name, "the recorded answer has no messages")
		return design.Prompt{}, false
	}
	pr := design.Prompt{ID: uuid.New(), ServerID: server, Name: params.Name, Description: got.Description}
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
	p.prompts[params.Name] = true
	p.out = append(p.out, api.PromoteItem{JournalId: r.ID, Kind: "prompt", Name: params.Name, Action: "created"})
	return pr, true
}

// redact replaces, at any depth of v, the values under credential-like
// names (credential.Is) by "****", noting each one's path.
func redact(v any, at string, notes *[]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if credential.Is(k) {
				out[k] = redacted
				*notes = append(*notes, at+"."+k)
				continue
			}
			out[k] = redact(e, at+"."+k, notes)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redact(e, fmt.Sprintf("%s[%d]", at, i), notes)
		}
		return out
	}
	return v
}

// redactJSON is redact on JSON text; text that does not decode is kept.
func redactJSON(raw json.RawMessage, at string, notes *[]string) json.RawMessage {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return raw
	}
	n := len(*notes)
	v = redact(v, at, notes)
	if len(*notes) == n {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// redactStructured redacts the structuredContent of a tool result.
func redactStructured(result json.RawMessage, notes *[]string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil || len(m["structuredContent"]) == 0 {
		return result
	}
	n := len(*notes)
	m["structuredContent"] = redactJSON(m["structuredContent"], "structuredContent", notes)
	if len(*notes) == n {
		return result
	}
	out, err := json.Marshal(m)
	if err != nil {
		return result
	}
	return out
}

// withNotes is the reason with the redacted paths, nil when both are empty.
func withNotes(reason string, notes []string) *string {
	if len(notes) > 0 {
		sort.Strings(notes)
		r := "redacted " + strings.Join(notes, ", ")
		if reason != "" {
			r = reason + "; " + r
		}
		reason = r
	}
	if reason == "" {
		return nil
	}
	return &reason
}

// sameJSON reports whether two JSON texts are the same value; absent,
// null and {} conditions are the same.
func sameJSON(a, b json.RawMessage) bool {
	if empty(a) || empty(b) {
		return empty(a) && empty(b)
	}
	va, err1 := jsonvalue.Decode(a)
	vb, err2 := jsonvalue.Decode(b)
	return err1 == nil && err2 == nil && jsonvalue.Equal(va, vb)
}

func empty(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null" || s == "{}"
}

func sameError(a, b *mockspec.RPCError) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Code == b.Code && a.Message == b.Message && sameJSON(a.Data, b.Data)
}

// isFallback reports whether a scenario matches every call.
func isFallback(s mockspec.Scenario) bool {
	return empty(s.Condition)
}

// scenarioName is a readable name for a recorded call ("recorded
// city=Paris"), bounded, and unique in the tool.
func scenarioName(t *design.Tool, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		parts[i] = k + "=" + s
	}
	base := "recorded"
	if len(parts) > 0 {
		base += " " + strings.Join(parts, " ")
	} else {
		base += " call"
	}
	base = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(base, "?"))
	if utf8.RuneCountInString(base) > maxRecordedName {
		base = string([]rune(base)[:maxRecordedName-1]) + "…"
	}
	taken := map[string]bool{}
	for _, s := range t.Scenarios {
		taken[s.Name] = true
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s (%d)", base, i)
	}
	return name
}
