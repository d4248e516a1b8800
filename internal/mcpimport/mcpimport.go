// Package mcpimport snapshots a live MCP server into a draft mock design: it
// connects with the official MCP Go SDK client (Streamable HTTP, falling
// back to the older HTTP+SSE transport), lists the server's tools,
// resources, resource templates and prompts, reads each resource's current
// text, fetches each prompt's messages as {{argument}} templates, and may
// call chosen tools once to store their answers as scenarios. With
// Options.ListOnly it keeps only what the server lists, for comparing a
// live server with a design.
//
// Every request goes through the *http.Client the caller gives, which is
// expected to be the outbound package's guarded client: the address policy,
// its redirect rules and the service's own in-process origins all apply.
// The import adds its own bounds on top (Options.Timeout over the whole
// import, a cap on each answer and on all answers together), so a hostile
// or broken server cannot hold the service for long or make it keep much.
//
// Everything returned passes the checks a design made by hand passes
// (design.CheckServer, CheckTool, CheckResource and CheckPrompt, which hold
// the API's name and length rules too); what cannot be imported, or not
// faithfully, is dropped or adjusted with a warning that names it.
package mcpimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonenc"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// Defaults of Options.
const (
	DefaultMaxResourceBytes int64 = 256 << 10
	DefaultMaxTotalBytes    int64 = 4 << 20
	DefaultTimeout                = 30 * time.Second
)

// The transports, as Result.Transport names them.
const (
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// defaultProtocolVersion is what an imported design reports when the
// negotiated version is not one the service serves.
const defaultProtocolVersion = protocol.Default

// requestedProtocolVersion is what the client asks for in initialize: the
// newest version the service serves, so that the server's answer (that
// version or an older one) is one a mock can report. Asking for the SDK's
// newest (a later revision) would negotiate the stateless protocol, which mocks
// do not serve.
const requestedProtocolVersion = protocol.Latest

const (
	// maxPages bounds every list: a server that keeps handing out cursors
	// is cut off.
	maxPages = 100
	// maxWarnings bounds the warnings returned; the rest are counted.
	maxWarnings = 200
	// maxWarningLen bounds one warning.
	maxWarningLen = 1000
)

// Call is a tool call to record as a scenario.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// Options configures Import.
type Options struct {
	// URL is the MCP endpoint.
	URL string
	// Headers are sent on every request to the endpoint's origin (e.g.
	// Authorization). They are never logged, stored or returned, and never
	// sent to another origin (an SSE server may name a message endpoint
	// elsewhere).
	Headers map[string]string
	// RecordCalls are tool calls to make once each, in order, after the
	// snapshot; each answer becomes a scenario of its tool.
	RecordCalls []Call
	// Client carries every request; required. It is not modified: the
	// import uses a copy whose transport wraps Client's, with Client's
	// own Timeout lifted (Timeout bounds the import instead, and an SSE
	// stream lives as long as the import).
	Client *http.Client
	// Name overrides the server's name; default the server's
	// serverInfo.name (or its title).
	Name string
	// MaxResourceBytes is the most text kept of one resource: a larger one
	// is kept without its content, with a warning. Default 256 KiB.
	MaxResourceBytes int64
	// MaxTotalBytes is the most resource text kept in all; resources past
	// it are kept without content, with a warning. Default 4 MiB.
	MaxTotalBytes int64
	// Timeout bounds the whole import, connecting included. Default 30s.
	Timeout time.Duration
	// ListOnly takes what the server lists and nothing more: no resource
	// is read, no prompt fetched and no tool called (RecordCalls are not
	// made), so resources have empty content and prompts no messages. It
	// suits comparing a live server with a design, which needs only the
	// listings and should not touch the server's state.
	ListOnly bool
}

// Result is an imported design.
type Result struct {
	// Design is a draft mock server with its tools, resources and
	// prompts; ids are not set.
	Design design.Design
	// Warnings say what was not imported, or not faithfully, each naming
	// the element or call.
	Warnings []string
	// Transport is TransportStreamable or TransportSSE.
	Transport string
	// ServerInfo is what the server said of itself in initialize.
	ServerInfo struct{ Name, Version string }
}

// Import connects to the MCP server at opts.URL and snapshots it into a
// draft mock design.
//
// A server that cannot be reached, refuses the connection, is a private
// target the client refuses, does not answer within opts.Timeout, or
// fails to list what it declares, is a failure.Invalid naming "url"; a
// record_calls entry naming a tool the server does not list is one naming
// "record_calls[i].tool". When ctx itself ends, its error is returned.
func Import(ctx context.Context, opts Options) (Result, error) {
	if opts.Client == nil {
		return Result{}, errors.New("mcpimport: Options.Client is required")
	}
	if err := checkOptions(&opts); err != nil {
		return Result{}, err
	}
	imp := newImporter(opts)
	importCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	imp.ctx = importCtx
	res, err := imp.run(importCtx)
	imp.close()
	if err != nil {
		return Result{}, imp.finalError(ctx, err)
	}
	return res, nil
}

// checkOptions applies defaults and refuses options that cannot work.
func checkOptions(o *Options) error {
	var f failure.Fields
	if err := outbound.CheckURL(o.URL); err != nil {
		f.Add("url", "%s", err.Error())
	}
	for _, name := range slices.Sorted(maps.Keys(o.Headers)) {
		value := o.Headers[name]
		switch {
		case !isToken(name):
			f.Add("headers", "%q is not a valid header name", name)
		case strings.ContainsAny(value, "\r\n\x00"):
			f.Add("headers", "the value of %s must not contain line breaks or NUL", name)
		}
	}
	for i, c := range o.RecordCalls {
		if strings.TrimSpace(c.Tool) == "" {
			f.Add(fmt.Sprintf("record_calls[%d].tool", i), "must not be blank")
		}
		if _, err := json.Marshal(c.Arguments); err != nil {
			f.Add(fmt.Sprintf("record_calls[%d].arguments", i), "must be a JSON object: %v", err)
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	if o.MaxResourceBytes <= 0 {
		o.MaxResourceBytes = DefaultMaxResourceBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	o.Name = strings.TrimSpace(o.Name)
	return nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// importer is one import in progress.
type importer struct {
	opts     Options
	ctx      context.Context // the import's, bounded by Timeout
	sess     *session
	stage    string // what the import was doing, for a timeout message
	warnings []string
	dropped  int // warnings past maxWarnings
	secrets  []string
	// budget is what the server may still send over the whole import,
	// every connection included.
	budget atomic.Int64
	// reads keeps why reading an answer last failed.
	reads readFailures
}

func newImporter(opts Options) *importer {
	imp := &importer{opts: opts, stage: "connecting"}
	imp.budget.Store(maxReceivedBytes)
	for _, v := range opts.Headers {
		if v = strings.TrimSpace(v); v != "" {
			imp.secrets = append(imp.secrets, v)
			// "Bearer t0k": the token alone must not show either.
			if _, tok, ok := strings.Cut(v, " "); ok && len(strings.TrimSpace(tok)) >= 3 {
				imp.secrets = append(imp.secrets, strings.TrimSpace(tok))
			}
		}
	}
	return imp
}

func (imp *importer) warn(format string, args ...any) {
	if len(imp.warnings) >= maxWarnings {
		imp.dropped++
		return
	}
	msg := imp.hideSecrets(fmt.Sprintf(format, args...))
	if len(msg) > maxWarningLen {
		msg = strings.ToValidUTF8(msg[:maxWarningLen], "") + "…"
	}
	imp.warnings = append(imp.warnings, msg)
}

func (imp *importer) close() {
	if imp.sess != nil {
		imp.sess.close()
	}
}

// finalError turns an error that ended the import into what the caller
// sees: ctx's own error when the caller gave up, a failure naming url when
// the import ran out of time.
func (imp *importer) finalError(parent context.Context, err error) error {
	if _, ok := failure.As(err); ok {
		return err
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	if errors.Is(imp.ctx.Err(), context.DeadlineExceeded) {
		return imp.timeoutFailure()
	}
	return err
}

func (imp *importer) timeoutFailure() error {
	return failure.Invalid(failure.Field("url", "the MCP server did not answer within %s (%s)", imp.opts.Timeout, imp.stage))
}

// run does the import on a connected session.
func (imp *importer) run(ctx context.Context) (Result, error) {
	sess, err := imp.connect(ctx)
	if err != nil {
		return Result{}, err
	}
	imp.sess = sess

	var res Result
	res.Transport = sess.kind
	init := sess.cs.InitializeResult()
	caps := &mcp.ServerCapabilities{}
	if init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	res.Design.Server = imp.server(init)
	if init != nil && init.ServerInfo != nil {
		res.ServerInfo.Name, res.ServerInfo.Version = init.ServerInfo.Name, init.ServerInfo.Version
	}

	var tools []*mcp.Tool
	if caps.Tools != nil {
		imp.stage = "listing tools"
		if tools, err = listAll(ctx, imp, "tools", func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
			r, err := imp.sess.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		}); err != nil {
			return Result{}, err
		}
	}
	// Record calls naming no listed tool are refused before anything else
	// is fetched, and before any tool is called.
	if err := checkRecordCalls(imp.opts.RecordCalls, tools); err != nil {
		return Result{}, err
	}
	res.Design.Tools = imp.tools(tools)

	if caps.Resources != nil {
		imp.stage = "listing resources"
		resources, err := listAll(ctx, imp, "resources", func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
			r, err := imp.sess.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return Result{}, err
		}
		imp.stage = "listing resource templates"
		templates, err := listAll(ctx, imp, "resource templates", func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := imp.sess.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil {
			return Result{}, err
		}
		if res.Design.Resources, err = imp.resources(ctx, resources, templates); err != nil {
			return Result{}, err
		}
	}

	if caps.Prompts != nil {
		imp.stage = "listing prompts"
		prompts, err := listAll(ctx, imp, "prompts", func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
			r, err := imp.sess.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil {
			return Result{}, err
		}
		if res.Design.Prompts, err = imp.prompts(ctx, prompts); err != nil {
			return Result{}, err
		}
	}

	if !imp.opts.ListOnly {
		if err := imp.record(ctx, res.Design.Tools); err != nil {
			return Result{}, err
		}
	}

	if imp.dropped > 0 {
		imp.warnings = append(imp.warnings, fmt.Sprintf("%d more warnings not shown", imp.dropped))
	}
	res.Warnings = imp.warnings
	return res, nil
}

// server is the draft server the design belongs to.
func (imp *importer) server(init *mcp.InitializeResult) design.Server {
	info := &mcp.Implementation{}
	if init != nil && init.ServerInfo != nil {
		info = init.ServerInfo
	}
	s := design.ServerDefaults()
	s.Type, s.AuthMode, s.ProtocolVersion = "mock", "none", defaultProtocolVersion
	if init != nil && protocol.Supported(init.ProtocolVersion) {
		s.ProtocolVersion = init.ProtocolVersion
	}
	s.Name = imp.opts.Name
	for _, n := range []string{info.Name, info.Title} {
		if s.Name == "" {
			s.Name = strings.TrimSpace(strings.ReplaceAll(n, "\x00", ""))
		}
	}
	if s.Name == "" {
		u, _ := url.Parse(imp.opts.URL)
		s.Name = "MCP server at " + u.Hostname()
	}
	s.Name = imp.clip("the server's name", s.Name, design.MaxName)

	desc := info.Description
	if desc == "" && info.Title != "" && info.Title != s.Name {
		desc = info.Title
	}
	if init != nil && strings.TrimSpace(init.Instructions) != "" {
		if desc == "" {
			desc = init.Instructions
			imp.warn("the server's instructions are kept as the design's description: mock servers do not send instructions")
		} else {
			imp.warn("the server's instructions are not kept: mock servers do not send instructions")
		}
	}
	s.Description = imp.clip("the server's description", strings.ReplaceAll(desc, "\x00", ""), design.MaxDescription)

	s.Version = strings.TrimSpace(strings.ReplaceAll(info.Version, "\x00", ""))
	if s.Version == "" {
		s.Version = "1.0.0"
	}
	s.Version = imp.clip("the server's version", s.Version, design.MaxVersion)

	if w := info.WebsiteURL; w != "" {
		if u, err := url.Parse(w); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(w) <= design.MaxProviderURL {
			s.ProviderURL = &w
		} else {
			imp.warn("the server's websiteUrl is not kept as the provider URL: not an http or https URL")
		}
	}
	return s
}

// clip returns s cut to max characters, warning when it had more.
func (imp *importer) clip(what, s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	imp.warn("%s was cut to %d characters (the limit)", what, max)
	return string([]rune(s)[:max])
}

// listAll follows NextCursor through at most maxPages pages. A server
// without the method (-32601) lists nothing; any other error ends the
// import, which would otherwise be silently incomplete.
func listAll[T any](ctx context.Context, imp *importer, what string, page func(context.Context, string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor := ""
	for range maxPages {
		items, next, err := page(ctx, cursor)
		if err != nil {
			var we *jsonrpc.Error
			if errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound {
				return out, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, failure.Invalid(failure.Field("url", "the MCP server failed to list its %s: %s", what, imp.describe(err, nil)))
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			imp.warn("listing %s: the server repeated a page cursor; the listing stops there", what)
			return out, nil
		}
		seen[next] = true
		cursor = next
	}
	imp.warn("listing %s: the server's listing has more than %d pages; only the first %d are imported", what, maxPages, maxPages)
	return out, nil
}

// checkRecordCalls refuses record calls naming no tool of the server.
func checkRecordCalls(calls []Call, tools []*mcp.Tool) error {
	listed := make(map[string]bool, len(tools))
	for _, t := range tools {
		if t != nil {
			listed[t.Name] = true
		}
	}
	var f failure.Fields
	for i, c := range calls {
		if !listed[c.Tool] {
			f.Add(fmt.Sprintf("record_calls[%d].tool", i), "the MCP server lists no tool named %q", c.Tool)
		}
	}
	return f.Err()
}

// tools maps the listed tools, in order.
func (imp *importer) tools(listed []*mcp.Tool) []design.Tool {
	out := make([]design.Tool, 0, min(len(listed), design.MaxTools))
	firsts := imp.newListing("tools", design.MaxTools)
	for _, t := range listed {
		if t == nil {
			continue
		}
		take, stop := firsts.admit(fmt.Sprintf("tool %q", t.Name), t.Name, len(out))
		if stop {
			break
		}
		if !take {
			continue
		}
		if !design.ToolNamePattern.MatchString(t.Name) || len(t.Name) > design.MaxToolName {
			imp.warn("tool %q is not imported: a tool name must be 1 to %d letters, digits, '_', '-' or '.'", t.Name, design.MaxToolName)
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		tool := design.Tool{Name: t.Name, Description: imp.clip(fmt.Sprintf("the description of tool %q", t.Name), desc, design.MaxDescription)}
		var err error
		if tool.InputSchema, err = schemaJSON(t.InputSchema); err != nil || tool.InputSchema == nil {
			if err == nil {
				imp.warn("tool %q lists no input schema; it accepts any arguments object", t.Name)
			}
			tool.InputSchema = design.DefaultInputSchema
		}
		if tool.OutputSchema, err = schemaJSON(t.OutputSchema); err != nil {
			tool.OutputSchema = nil
		}
		if err := design.CheckTool(tool); err != nil {
			if f, ok := failure.As(err); ok && onlyFields(f, "output_schema") {
				imp.warn("tool %q is imported without its output schema: %s", t.Name, fieldProblems(f))
				tool.OutputSchema = nil
				err = design.CheckTool(tool)
			}
			if err != nil {
				imp.warn("tool %q is not imported: %s", t.Name, problems(err))
				continue
			}
		}
		out = append(out, tool)
	}
	return out
}

// listing keeps the first item of each key a server lists, up to a
// limit, warning of the items it drops.
type listing struct {
	imp   *importer
	what  string // the items, plural, for the warning at the limit
	limit int
	twice string // the warning of a key listed again, of the item's %s
	seen  map[string]bool
	full  bool
}

// newListing starts a listing of what (plural), of at most limit items.
func (imp *importer) newListing(what string, limit int) *listing {
	return &listing{imp: imp, what: what, limit: limit, seen: map[string]bool{},
		twice: "%s is listed twice; only the first is imported"}
}

// admit reports whether the item what, with key, is imported after kept
// others: not when its key was listed before (take is false), and not, nor
// any after it, when the limit is reached (stop is true). Each drop is
// warned of; the limit once.
func (f *listing) admit(what, key string, kept int) (take, stop bool) {
	if f.seen[key] {
		f.imp.warn(f.twice, what)
		return false, false
	}
	f.seen[key] = true
	if kept < f.limit {
		return true, false
	}
	if !f.full {
		f.imp.warn("the server lists more than %d %s; only the first %d (the limit) are imported", f.limit, f.what, f.limit)
		f.full = true
	}
	return false, true
}

// schemaJSON is a listed schema as JSON; nil when absent.
func schemaJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := jsonenc.Marshal(v)
	if err != nil || string(raw) == "null" {
		return nil, err
	}
	return raw, nil
}

// onlyFields reports whether every field at fault is one of names or
// under one of them.
func onlyFields(f *failure.Error, names ...string) bool {
	if len(f.Fields) == 0 {
		return false
	}
	for _, fe := range f.Fields {
		ok := false
		for _, n := range names {
			if fe.Field == n || strings.HasPrefix(fe.Field, n+".") || strings.HasPrefix(fe.Field, n+"[") {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// problems quotes why a check failed: "input_schema: ...; name: ...".
func problems(err error) string {
	if f, ok := failure.As(err); ok && len(f.Fields) > 0 {
		return fieldProblems(f)
	}
	return err.Error()
}

func fieldProblems(f *failure.Error) string {
	parts := make([]string, len(f.Fields))
	for i, fe := range f.Fields {
		parts[i] = fe.Field + ": " + fe.Message
	}
	return strings.Join(parts, "; ")
}

// resources maps the listed resources, with their contents, then the
// templates, in order, within design.MaxResources in all.
func (imp *importer) resources(ctx context.Context, listed []*mcp.Resource, templates []*mcp.ResourceTemplate) ([]design.Resource, error) {
	var out []design.Resource
	var kept int64
	firsts := imp.newListing("resources and resource templates", design.MaxResources)
	for _, r := range listed {
		if r == nil {
			continue
		}
		what := fmt.Sprintf("resource %q", r.URI)
		res, take, stop := imp.listedResource(firsts, what, r.URI, r.Name, r.Title, r.Description, r.MIMEType, len(out))
		if stop {
			break
		}
		if !take {
			continue
		}
		var text, mime string
		var ok bool
		if !imp.opts.ListOnly {
			imp.stage = "reading " + what
			var err error
			if text, mime, ok, err = imp.readResource(ctx, r.URI, what); err != nil {
				return nil, err
			}
		}
		if res.MimeType == nil {
			res.MimeType = nonEmpty(mime)
		}
		if ok {
			n := int64(len(text))
			switch {
			case n > imp.opts.MaxResourceBytes:
				imp.warn("%s is kept without its content: its text is %s, more than the %s kept of one resource", what, size(n), size(imp.opts.MaxResourceBytes))
			case kept+n > imp.opts.MaxTotalBytes:
				imp.warn("%s is kept without its content: its text (%s) would pass the %s kept of all resources", what, size(n), size(imp.opts.MaxTotalBytes))
			default:
				content, err := jsonenc.Marshal(text)
				if err == nil {
					res.Content = content
					kept += n
				}
			}
		}
		if r, ok := imp.checkResource(what, res); ok {
			out = append(out, r)
		}
	}
	firsts.twice = "%s is listed twice (or as a resource); only the first is imported"
	for _, t := range templates {
		if t == nil {
			continue
		}
		what := fmt.Sprintf("resource template %q", t.URITemplate)
		res, take, stop := imp.listedResource(firsts, what, t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType, len(out))
		if stop {
			break
		}
		if !take {
			continue
		}
		if r, ok := imp.checkResource(what, res); ok {
			imp.warn("%s is imported with empty content: the contents of templated resources are not snapshotted", what)
			out = append(out, r)
		}
	}
	return out, nil
}

// listedResource admits a listed resource or resource template (what
// names it) after kept others, as firsts.admit does, and maps what the
// listing says of it, without content; take is false too for a uri past
// the limits.
func (imp *importer) listedResource(firsts *listing, what, uri, name, title, description, mime string, kept int) (res design.Resource, take, stop bool) {
	if take, stop = firsts.admit(what, uri, kept); !take {
		return res, false, stop
	}
	if msg := uriLimits(uri); msg != "" {
		imp.warn("%s is not imported: uri: %s", what, msg)
		return res, false, false
	}
	return design.Resource{Name: resourceName(name, title, uri), URI: uri, Description: description,
		MimeType: nonEmpty(mime), Content: json.RawMessage(`""`)}, true, false
}

// readResource reads a resource's text. ok is false when there is no text
// to keep (an error, binary or empty contents), each reported as a warning;
// err is set only when the import must stop.
func (imp *importer) readResource(ctx context.Context, uri, what string) (text, mime string, ok bool, err error) {
	var rr *mcp.ReadResourceResult
	if callErr := imp.sess.call(ctx, func(cs *mcp.ClientSession) (err error) {
		rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	}); callErr != nil {
		if ctx.Err() != nil {
			return "", "", false, ctx.Err()
		}
		imp.warn("%s is kept without its content: reading it failed: %s", what, imp.describe(callErr, nil))
		return "", "", false, nil
	}
	var contents []*mcp.ResourceContents
	for _, c := range rr.Contents {
		if c != nil {
			contents = append(contents, c)
		}
	}
	if len(contents) == 0 {
		imp.warn("%s is kept without its content: reading it returned no contents", what)
		return "", "", false, nil
	}
	c := contents[0]
	for _, cand := range contents {
		if cand.URI == uri {
			c = cand
			break
		}
	}
	if len(contents) > 1 {
		imp.warn("%s: reading it returned %d contents; only the first is kept", what, len(contents))
	}
	if c.Blob != nil {
		imp.warn("%s is kept without its content: binary (blob) contents are not supported yet", what)
		return "", c.MIMEType, false, nil
	}
	return c.Text, c.MIMEType, true, nil
}

// checkResource returns r as it passes design.CheckResource: a media type
// or content the check refuses is dropped with a warning; anything else
// drops the resource.
func (imp *importer) checkResource(what string, r design.Resource) (design.Resource, bool) {
	if r.MimeType != nil && len(*r.MimeType) > design.MaxMimeType {
		imp.warn("%s is imported without its media type: longer than %d characters", what, design.MaxMimeType)
		r.MimeType = nil
	}
	r.Description = imp.clip("the description of "+what, r.Description, design.MaxDescription)
	if utf8.RuneCountInString(r.Name) > design.MaxName {
		imp.warn("%s is not imported: name: longer than %d characters", what, design.MaxName)
		return r, false
	}
	err := design.CheckResource(r)
	if f, ok := failure.As(err); ok && onlyFields(f, "mime_type", "content") {
		for _, fe := range f.Fields {
			switch fe.Field {
			case "mime_type":
				imp.warn("%s is imported without its media type: %s", what, fe.Message)
				r.MimeType = nil
			case "content":
				imp.warn("%s is kept without its content: %s", what, fe.Message)
				r.Content = json.RawMessage(`""`)
			}
		}
		err = design.CheckResource(r)
	}
	if err != nil {
		imp.warn("%s is not imported: %s", what, problems(err))
		return r, false
	}
	return r, true
}

// uriLimits explains why uri is longer than the API accepts, or "".
func uriLimits(uri string) string {
	if utf8.RuneCountInString(uri) > design.MaxURI {
		return fmt.Sprintf("longer than %d characters", design.MaxURI)
	}
	return ""
}

func resourceName(name, title, uri string) string {
	for _, n := range []string{name, title, uri} {
		if n = strings.TrimSpace(n); n != "" {
			return n
		}
	}
	return uri
}

func nonEmpty(s string) *string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

// size formats n bytes for a warning.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// prompts maps the listed prompts, with messages fetched as templates.
func (imp *importer) prompts(ctx context.Context, listed []*mcp.Prompt) ([]design.Prompt, error) {
	var out []design.Prompt
	firsts := imp.newListing("prompts", design.MaxPrompts)
	for _, p := range listed {
		if p == nil {
			continue
		}
		what := fmt.Sprintf("prompt %q", p.Name)
		take, stop := firsts.admit(what, p.Name, len(out))
		if stop {
			break
		}
		if !take {
			continue
		}
		if n := utf8.RuneCountInString(p.Name); n == 0 || n > design.MaxName {
			imp.warn("%s is not imported: name: must be 1 to %d characters", what, design.MaxName)
			continue
		}
		if len(p.Arguments) > design.MaxPromptArguments {
			imp.warn("%s is not imported: it has %d arguments, more than %d (the limit)", what, len(p.Arguments), design.MaxPromptArguments)
			continue
		}
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		prompt := design.Prompt{Name: p.Name, Description: imp.clip("the description of "+what, desc, design.MaxDescription),
			Arguments: []design.PromptArgument{}, Messages: []design.PromptMessage{}}
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a == nil {
				continue
			}
			prompt.Arguments = append(prompt.Arguments, design.PromptArgument{Name: a.Name,
				Description: imp.clip(fmt.Sprintf("the description of argument %q of %s", a.Name, what), a.Description, design.MaxArgumentDescription),
				Required:    a.Required})
			args[a.Name] = "{{" + a.Name + "}}"
		}
		for _, a := range prompt.Arguments {
			if utf8.RuneCountInString(a.Name) > design.MaxName {
				imp.warn("%s is not imported: argument names must be at most %d characters", what, design.MaxName)
				prompt.Name = ""
			}
		}
		if prompt.Name == "" {
			continue
		}
		if !imp.opts.ListOnly {
			imp.stage = "getting " + what
			var got *mcp.GetPromptResult
			err := imp.sess.call(ctx, func(cs *mcp.ClientSession) (err error) {
				got, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
				return err
			})
			switch {
			case err != nil && ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil:
				imp.warn("%s is imported without messages: getting it failed: %s", what, imp.describe(err, nil))
			default:
				prompt.Messages = imp.promptMessages(what, got.Messages)
			}
		}
		if err := design.CheckPrompt(prompt); err != nil {
			f, ok := failure.As(err)
			if ok && onlyFields(f, "messages") {
				imp.warn("%s is imported without messages: %s", what, fieldProblems(f))
				prompt.Messages = []design.PromptMessage{}
				err = design.CheckPrompt(prompt)
			}
			if err != nil {
				imp.warn("%s is not imported: %s", what, problems(err))
				continue
			}
		}
		out = append(out, prompt)
	}
	return out, nil
}

// promptMessages keeps the text messages of a prompt.
func (imp *importer) promptMessages(what string, msgs []*mcp.PromptMessage) []design.PromptMessage {
	out := []design.PromptMessage{}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		tc, ok := m.Content.(*mcp.TextContent)
		if !ok {
			imp.warn("%s: message %d is skipped: only text content is supported, not %s", what, i, contentType(m.Content))
			continue
		}
		if utf8.RuneCountInString(tc.Text) > design.MaxPromptText {
			imp.warn("%s: message %d is skipped: longer than %d characters", what, i, design.MaxPromptText)
			continue
		}
		if len(out) == design.MaxPromptMessages {
			imp.warn("%s has more than %d messages; only the first %d are kept", what, design.MaxPromptMessages, design.MaxPromptMessages)
			break
		}
		out = append(out, design.PromptMessage{Role: string(m.Role), Text: tc.Text})
	}
	return out
}

// contentType names a content item's type ("image", "audio", ...).
func contentType(c mcp.Content) string {
	if c == nil {
		return "empty content"
	}
	raw, err := json.Marshal(c)
	if err == nil {
		var v struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &v) == nil && v.Type != "" {
			return v.Type + " content"
		}
	}
	return fmt.Sprintf("%T", c)
}

// recording is one record_calls entry to make.
type recording struct {
	index int
	call  Call
	args  map[string]any // as a JSON round trip gives them
	cond  json.RawMessage
	name  string
}

// record calls each record_calls entry once and stores the answers as
// scenarios of tools, in request order.
func (imp *importer) record(ctx context.Context, tools []design.Tool) error {
	byName := make(map[string]int, len(tools))
	for i, t := range tools {
		byName[t.Name] = i
	}
	seen := map[string]int{} // tool + arguments → record_calls index
	made := map[string][]recording{}
	for i, c := range imp.opts.RecordCalls {
		at := fmt.Sprintf("record_calls[%d]", i)
		ti, ok := byName[c.Tool]
		if !ok {
			imp.warn("%s: tool %q was not imported, so it is not called", at, c.Tool)
			continue
		}
		rec, problem := newRecording(i, c)
		if problem != "" {
			imp.warn("%s: tool %q is not called: %s", at, c.Tool, problem)
			continue
		}
		key := c.Tool + "\x00" + string(rec.cond)
		if first, dup := seen[key]; dup {
			imp.warn("%s repeats the arguments of record_calls[%d] for tool %q; the tool is called once", at, first, c.Tool)
			continue
		}
		seen[key] = i
		if len(tools[ti].Scenarios) >= design.MaxScenarios {
			imp.warn("%s: tool %q already has %d scenarios (the limit); it is not called", at, c.Tool, design.MaxScenarios)
			continue
		}
		imp.stage = fmt.Sprintf("calling tool %q for %s", c.Tool, at)
		var res *mcp.CallToolResult
		err := imp.sess.call(ctx, func(cs *mcp.ClientSession) (err error) {
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: rec.args})
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			imp.warn("%s: calling tool %q failed, so no scenario is recorded: %s", at, c.Tool, imp.describe(err, nil))
			continue
		}
		rec.name = fmt.Sprintf("recorded_%d", len(made[c.Tool])+1)
		response, note := scenarioResponse(res)
		if note != "" {
			imp.warn("%s: tool %q (scenario %s): %s", at, c.Tool, rec.name, note)
		}
		tools[ti].Scenarios = append(tools[ti].Scenarios, design.Scenario{Name: rec.name, Condition: rec.cond, Response: response})
		made[c.Tool] = append(made[c.Tool], rec)
	}
	// Each recorded scenario should answer its own arguments on the mock;
	// say when it cannot.
	for _, t := range tools {
		for _, rec := range made[t.Name] {
			at := fmt.Sprintf("record_calls[%d]", rec.index)
			inv, violations, err := mcpserve.Invoke(t, rec.args)
			switch {
			case err != nil:
				imp.warn("%s: tool %q (scenario %s) cannot be checked: %v", at, t.Name, rec.name, err)
			case len(violations) > 0:
				imp.warn("%s: tool %q (scenario %s): the arguments do not satisfy the tool's input schema as this service reads it (%s: %s), so the mock refuses them",
					at, t.Name, rec.name, orRoot(violations[0].Field), violations[0].Message)
			case inv.Scenario != rec.name:
				imp.warn("%s: tool %q (scenario %s) is never served for its arguments: the earlier scenario %s matches them first; reorder the scenarios to change that",
					at, t.Name, rec.name, inv.Scenario)
			}
		}
	}
	return nil
}

func orRoot(field string) string {
	if field == "" {
		return "the arguments"
	}
	return field
}

// newRecording prepares a call: its arguments as JSON gives them back, and
// the plain-object condition that requires every one of them.
func newRecording(index int, c Call) (recording, string) {
	rec := recording{index: index, call: c}
	raw, err := json.Marshal(c.Arguments)
	if err != nil {
		return rec, "the arguments are not JSON: " + err.Error()
	}
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &rec.args); err != nil {
		return rec, "the arguments are not a JSON object"
	}
	rec.cond = raw
	// An object with members named field and operator (or a misspelling
	// of one) reads as an operator condition; no condition can require
	// such arguments.
	if scenario.IsOperatorForm(slices.Collect(maps.Keys(rec.args))) {
		return rec, `arguments named "field" and "operator" (or a misspelling of one) cannot be a scenario condition`
	}
	if errs := scenario.Check(rec.cond); len(errs) > 0 {
		return rec, "the arguments cannot be a scenario condition: " + errs[0].Field + ": " + errs[0].Message
	}
	return rec, ""
}

// scenarioResponse is how a tool's answer is stored as a scenario response,
// given that the service serves a response as one text item holding its
// JSON (and as structuredContent for a tool with an output schema): the
// structured content when there is some; else the JSON object a lone text
// item holds; else {"content": [...], "isError": ...}, served as that JSON.
// note, when set, says what the mock will serve differently.
func scenarioResponse(res *mcp.CallToolResult) (json.RawMessage, string) {
	var notes []string
	if res.IsError {
		notes = append(notes, "the tool answered with an error (isError); the mock serves the answer as a success")
	}
	if res.StructuredContent != nil {
		if raw, err := jsonenc.Marshal(res.StructuredContent); err == nil && isObject(raw) {
			return raw, strings.Join(notes, "; ")
		}
	}
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok && isObject([]byte(tc.Text)) {
			return json.RawMessage(strings.TrimSpace(tc.Text)), strings.Join(notes, "; ")
		}
	}
	content := res.Content
	if content == nil {
		content = []mcp.Content{}
	}
	raw, err := jsonenc.Marshal(map[string]any{"content": content, "isError": res.IsError})
	if err != nil {
		raw = json.RawMessage(`{"content":[],"isError":false}`)
	}
	notes = append(notes, `the answer is not a JSON object, so it is stored as {"content", "isError"} and the mock serves that JSON as its text until the content model supports rich content`)
	return raw, strings.Join(notes, "; ")
}

func isObject(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{' && json.Valid(v)
}
