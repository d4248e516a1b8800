// Package oasimport turns an OpenAPI document into a draft MCP server
// design: one tool per operation, with its input schema built from the
// operation's parameters and JSON request body, and mock scenarios built
// from the response examples.
//
// OpenAPI 3.0, 3.1 (and 3.2, as kin-openapi reads it) documents are
// imported as they are; Swagger 2.0 documents are converted to OpenAPI 3
// first (openapi2conv). JSON and YAML are both accepted. Nothing is ever
// fetched: a $ref outside the document makes the operations that use it be
// skipped with a warning, and fetching the document itself by URL is the
// caller's business.
//
// A document that cannot be imported at all is an Invalid failure on the
// field "document" (422); anything imported imperfectly is a warning that
// names the operation ("GET /pets/{petId}: ..."), and the rest is imported.
package oasimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// Options of Import.
type Options struct {
	// Name overrides the server name; by default it is info.title.
	Name string
	// MaxOperations bounds how many operations become tools; the rest are
	// left out with a warning. 0 means design.MaxTools, the per-server
	// tool limit.
	MaxOperations int
	// MaxJSONBytes bounds the JSON a YAML document may expand to, its
	// aliases expanded (MAX_BODY_BYTES); 0 means yamljson.DefaultLimit.
	MaxJSONBytes int64
}

// Result is an imported design.
type Result struct {
	// Design holds the server (Name, Description, Version from the
	// document's info; Type "openapi", ProtocolVersion protocol.Default,
	// AuthMode "none", the default eras and caching hints, not enabled)
	// and its tools with their scenarios, each of which passes
	// design.CheckTool. IDs, the organization and Source are the caller's
	// to set.
	Design design.Design
	// Warnings list what was skipped or imported imperfectly, each naming
	// the operation ("GET /pets/{petId}: ...") or "document".
	Warnings []string
	// Format says what the document was: "openapi 3.0.3", "openapi
	// 3.1.0" or "swagger 2.0 (converted to OpenAPI 3)".
	Format string
	// Title is the document's info.title.
	Title string
}

// Server defaults of an imported design.
const (
	ServerType      = "openapi"
	ProtocolVersion = protocol.Default
	AuthMode        = "none"
	defaultName     = "Imported API"
	defaultVersion  = "1.0.0"
)

// maxValidationMsg bounds how many complaints of strict validation become
// warnings.
const maxValidationMsg = 5

// Import reads data, an OpenAPI 3.x or Swagger 2.0 document in JSON or
// YAML, and returns the design it describes. See the package
// documentation.
func Import(ctx context.Context, data []byte, opts Options) (Result, error) {
	if opts.MaxOperations <= 0 {
		opts.MaxOperations = design.MaxTools
	}
	var res Result

	raw, err := parse(data, opts.MaxJSONBytes)
	if err != nil {
		return Result{}, err
	}
	kind, version, err := detect(raw)
	if err != nil {
		return Result{}, err
	}
	normalizeInfo(raw)
	imp := &importer{ctx: ctx}
	imp.pruneExternalRefs(raw, kind)
	doc, err := load(ctx, raw, kind)
	if err != nil {
		return Result{}, err
	}
	if kind == "swagger" {
		res.Format = "swagger " + version + " (converted to OpenAPI 3)"
	} else {
		res.Format = "openapi " + version
	}
	imp.validate(doc)

	ops := operations(doc)
	if len(ops) == 0 {
		if len(imp.skipped) > 0 {
			return Result{}, invalid("the document has no operations that can be imported: %s", imp.skipped[0])
		}
		return Result{}, invalid("the document has no operations")
	}
	if len(ops) > opts.MaxOperations {
		imp.warnings = append(imp.warnings, fmt.Sprintf(
			"document: it has %d operations but a server holds at most %d tools: %s %s and the operations after it are left out",
			len(ops), opts.MaxOperations, ops[opts.MaxOperations].method, ops[opts.MaxOperations].path))
		ops = ops[:opts.MaxOperations]
	}

	if doc.Info != nil {
		res.Title = doc.Info.Title
	}
	res.Design.Server = server(doc.Info, opts.Name)
	names := map[string]bool{}
	for _, op := range ops {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if t, ok := imp.tool(op, names); ok {
			res.Design.Tools = append(res.Design.Tools, t)
		}
	}
	res.Warnings = append(imp.skipped, imp.warnings...)
	if len(res.Design.Tools) == 0 {
		reason := res.Warnings[0]
		for _, w := range res.Warnings {
			if strings.Contains(w, ": not imported: ") {
				reason = w
				break
			}
		}
		return Result{}, invalid("no operation of the document can become a tool: %s", reason)
	}
	return res, nil
}

func invalid(format string, args ...any) error {
	return failure.Invalid(failure.Field("document", format, args...))
}

// parse reads data as JSON, else YAML (its aliases expanded to at most
// limit bytes of JSON), into a generic document whose numbers are
// json.Number.
func parse(data []byte, limit int64) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, invalid("the document is empty")
	}
	text := data
	if !json.Valid(data) {
		converted, err := yamljson.Convert(data, yamljson.Options{Limit: limit, ScalarKeys: true})
		var ye *yamljson.Error
		switch {
		case errors.As(err, &ye) && ye.Syntax && (trimmed[0] == '{' || trimmed[0] == '['):
			return nil, invalid("the document is neither JSON nor YAML: %s", jsonMessage(data))
		case errors.As(err, &ye) && ye.Syntax:
			return nil, invalid("the document is neither JSON nor YAML: YAML: %s", ye.Message())
		case errors.As(err, &ye):
			return nil, invalid("the document cannot be read as YAML: %s", ye.Error())
		case err != nil:
			return nil, err
		}
		text = converted
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("the document is neither JSON nor YAML: %v", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("not an OpenAPI or Swagger document: the top level is %s, not an object with an \"openapi\" or \"swagger\" field", jsonvalue.TypeName(v))
	}
	return doc, nil
}

// jsonMessage explains why data is not JSON, with the line and column
// and without quoting it.
func jsonMessage(data []byte) string {
	var e *yamljson.Error
	if err := yamljson.CheckJSON(data); errors.As(err, &e) {
		return "JSON: " + e.Message()
	}
	return "JSON: not a single JSON value"
}

var (
	openapiVersion = regexp.MustCompile(`^3\.[0-2](\.\d+)?(-[0-9A-Za-z.-]+)?$`)
	swaggerVersion = regexp.MustCompile(`^2(\.0)?$`)
)

// detect tells an OpenAPI 3 document ("openapi") from a Swagger 2.0 one
// ("swagger"), and normalizes a version YAML read as a number.
func detect(doc map[string]any) (kind, version string, err error) {
	if v, ok := doc["openapi"]; ok {
		version = versionString(v)
		if !openapiVersion.MatchString(version) {
			return "", "", invalid("unsupported OpenAPI version %q: OpenAPI 3.0 and 3.1 and Swagger 2.0 documents can be imported", version)
		}
		doc["openapi"] = version
		return "openapi", version, nil
	}
	if v, ok := doc["swagger"]; ok {
		version = versionString(v)
		if !swaggerVersion.MatchString(version) {
			return "", "", invalid("unsupported Swagger version %q: Swagger 2.0 and OpenAPI 3.0 and 3.1 documents can be imported", version)
		}
		doc["swagger"] = "2.0"
		return "swagger", "2.0", nil
	}
	if v, ok := doc["swaggerVersion"]; ok {
		return "", "", invalid("Swagger %s documents cannot be imported: convert it to OpenAPI 3 (or Swagger 2.0) first", versionString(v))
	}
	return "", "", invalid(`not an OpenAPI or Swagger document: it has no "openapi" or "swagger" field`)
}

// normalizeInfo writes as strings the info fields YAML may have read as
// numbers ("version: 2").
func normalizeInfo(doc map[string]any) {
	info, ok := doc["info"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"title", "version"} {
		switch v := info[k].(type) {
		case json.Number, bool:
			info[k] = versionString(v)
		}
	}
}

func versionString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// load resolves the document with kin-openapi, never reading anything but
// the document itself.
func load(ctx context.Context, raw map[string]any, kind string) (doc *openapi3.T, err error) {
	defer func() {
		// The library is not hardened against hostile documents; one that
		// crashes it is simply not a document it can read.
		if r := recover(); r != nil {
			doc, err = nil, invalid("the document cannot be read as OpenAPI")
		}
	}()
	text, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = false // and ReadFromURIFunc stays nil, so this is enforced
	if kind == "swagger" {
		var doc2 openapi2.T
		if err := json.Unmarshal(text, &doc2); err != nil {
			return nil, invalid("the document cannot be read as Swagger 2.0: %s", cleanError(err))
		}
		doc, err = openapi2conv.ToV3WithLoader(&doc2, loader, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, loadError("Swagger 2.0", err)
		}
		return doc, nil
	}
	doc, err = loader.LoadFromData(text)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, loadError("OpenAPI", err)
	}
	return doc, nil
}

var disallowedRef = regexp.MustCompile(`disallowed external reference: "([^"]*)"`)

func loadError(what string, err error) error {
	if m := disallowedRef.FindStringSubmatch(err.Error()); m != nil {
		return invalid("the document refers to %q, outside the document; references are never fetched: include what it refers to in the document", m[1])
	}
	return invalid("the document cannot be read as %s: %s", what, cleanError(err))
}

var (
	// jsonPart is the JSON half of the loader's "both parsers failed"
	// error; the document given to it is always JSON.
	jsonPart = regexp.MustCompile(`failed to unmarshal data: json error: (.*?), yaml error: `)
	// typeError is encoding/json's type mismatch.
	typeError = regexp.MustCompile(`(?:json: )?cannot unmarshal (\w+) into (?:Go )?(?:value|(?:struct )?field ([\w.]+)) of type ([\w.\[\]*]+(?: \{\})?)`)
)

// cleanError rewords the library's decoding errors for the document's
// author.
func cleanError(err error) string {
	msg := err.Error()
	if m := jsonPart.FindStringSubmatch(msg); m != nil {
		msg = m[1]
	}
	return typeError.ReplaceAllStringFunc(msg, func(s string) string {
		m := typeError.FindStringSubmatch(s)
		want := typeName(m[3])
		if m[2] != "" {
			return fmt.Sprintf("%s: %s found where %s was expected", strings.NewReplacer("openapi3.", "", "openapi2.", "").Replace(m[2]), withArticle(m[1]), want)
		}
		return fmt.Sprintf("%s found where %s was expected", withArticle(m[1]), want)
	})
}

func typeName(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case strings.HasPrefix(t, "openapi3.") || strings.HasPrefix(t, "openapi2."):
		name := t[len("openapi3."):]
		if strings.ContainsRune("AEIOU", rune(name[0])) {
			return "an " + name + " object"
		}
		return "a " + name + " object"
	case strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "float"):
		return "a number"
	}
	return t
}

func withArticle(jsonType string) string {
	switch jsonType {
	case "array", "object":
		return "an " + jsonType
	}
	return "a " + jsonType
}

// validate records what strict validation finds as warnings: documents in
// the wild are often sloppy in ways that do not stop an import.
func (imp *importer) validate(doc *openapi3.T) {
	err := doc.Validate(imp.ctx,
		openapi3.EnableMultiError(),
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
		openapi3.DisableSchemaFormatValidation(),
		openapi3.AllowExtensionsWithRef(),
	)
	if err == nil {
		return
	}
	var errs []error
	var me openapi3.MultiError
	if errors.As(err, &me) {
		errs = flatten(me)
	} else {
		errs = []error{err}
	}
	for i, e := range errs {
		if i == maxValidationMsg {
			imp.warnings = append(imp.warnings, fmt.Sprintf("document: and %d more validation problems", len(errs)-i))
			break
		}
		imp.warnings = append(imp.warnings, "document: not valid OpenAPI, imported anyway: "+oneLine(e.Error()))
	}
}

func flatten(me openapi3.MultiError) []error {
	var out []error
	for _, e := range me {
		var inner openapi3.MultiError
		if errors.As(e, &inner) {
			out = append(out, flatten(inner)...)
		} else {
			out = append(out, e)
		}
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// server builds the server of the design from the document's info.
func server(info *openapi3.Info, name string) design.Server {
	var title, description, version string
	if info != nil {
		title, description, version = info.Title, info.Description, info.Version
	}
	name = strings.TrimSpace(clean(name))
	if name == "" {
		name = strings.TrimSpace(clean(title))
	}
	if name == "" {
		name = defaultName
	}
	version = strings.TrimSpace(clean(version))
	if version == "" {
		version = defaultVersion
	}
	s := design.ServerDefaults()
	s.Name = truncate(oneLine(name), design.MaxName)
	s.Description = truncate(strings.TrimSpace(clean(description)), design.MaxDescription)
	s.Version = truncate(version, design.MaxVersion)
	s.Type, s.ProtocolVersion, s.AuthMode = ServerType, ProtocolVersion, AuthMode
	return s
}

// clean removes what PostgreSQL text cannot hold.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "")
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}
