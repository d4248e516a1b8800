package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/kaptinlin/jsonschema"
)

// ErrInvalidSchema is wrapped by every error Compile returns. All of them are
// the schema author's to fix, so a caller can answer 422 with err.Error() as
// the message without inspecting it further.
var ErrInvalidSchema = errors.New("invalid schema")

// Option narrows what Compile accepts.
type Option uint8

const (
	// RequireObject rejects a schema whose top level is not an object schema
	// with "type": "object". MCP requires a tool's inputSchema to describe the
	// arguments object, so input schemas are compiled with it and output
	// schemas without.
	RequireObject Option = 1 << iota
	// Unchanging: the caller never changes raw after, so the schema keeps
	// it rather than a copy (a compiled design's tools/list holds it).
	Unchanging
)

// maxReported caps how many meta-schema violations one error message lists,
// so a wholly wrong schema yields a readable message rather than a wall.
const maxReported = 5

// Compile compiles one JSON Schema document. See the package documentation
// for what it rejects. It never panics and never performs I/O.
func Compile(raw []byte, opts ...Option) (s *Schema, err error) {
	defer func() {
		// The library has not been hardened against hostile documents;
		// a schema that crashes it is simply not an acceptable schema.
		if r := recover(); r != nil {
			s, err = nil, invalid("the schema could not be compiled")
		}
	}()

	var doc any
	if err := decode(raw, &doc); err != nil {
		return nil, invalid("not valid JSON: %v", err)
	}
	if nestedDeeper(doc, maxDepth) {
		return nil, invalid("nested more than %d levels deep", maxDepth)
	}
	// Before the library compiles anything: it would compile a huge
	// expression at once.
	sizes, refs, err := scanPatterns(doc)
	if err != nil {
		return nil, err
	}
	dialect, err := documentDialect(doc)
	if err != nil {
		return nil, err
	}
	if slices.Contains(opts, RequireObject) {
		if err := requireObject(doc); err != nil {
			return nil, err
		}
	}
	if err := checkMetaSchema(raw, doc, dialect); err != nil {
		return nil, err
	}
	// The library compiles the dialect's own keywords only; the caller's
	// document is stored and listed as sent.
	rewritten, err := ownKeywords(doc, dialect)
	if err != nil {
		return nil, err
	}
	src := raw
	if rewritten != nil {
		src = rewritten
	}

	tree, err := newCompiler().Compile(src)
	if err != nil {
		return nil, invalid("%s", explainCompileError(err))
	}
	if err := checkTree(tree, dialect); err != nil {
		return nil, err
	}
	// The library resolves references eagerly but quietly: one it cannot
	// resolve is left nil and then skipped during validation, which would
	// make a typo in "$ref" disable the check it was meant to apply.
	if refs := tree.UnresolvedReferenceURIs(); len(refs) > 0 {
		slices.Sort(refs)
		return nil, invalid("$ref %q cannot be resolved: only references within this schema are allowed", refs[0])
	}
	fast := buildFast(tree, sizes)
	if rewritten == nil && !slices.Contains(opts, Unchanging) {
		src = bytes.Clone(src)
	}
	out := newSchema(src, tree, fast)
	out.bounded = len(sizes) > 0 || refs
	if fast == nil {
		out.sizes = sizes // the fast path holds its own
	}
	walkTree(tree, dialect, "", func(s *jsonschema.Schema, _ string) bool {
		// Composition and conditional keywords apply several subschemas
		// to one value: many of them under "items" add up to more work
		// than a call may take, which the estimate bounds.
		if len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil || s.If != nil ||
			len(s.DependentSchemas) > 0 {
			out.bounded = true
		}
		if s.DynamicAnchor != "" {
			if out.anchors == nil {
				out.anchors = map[string][]*jsonschema.Schema{}
			}
			out.anchors[s.DynamicAnchor] = append(out.anchors[s.DynamicAnchor], s)
		}
		return true
	})
	return out, nil
}

// decode parses JSON keeping numbers exact, as the library does, so values
// shown in messages match what the author wrote. The syntax is first checked
// with the library's own, stricter parser, so that duplicate member names and
// invalid UTF-8 are reported as the JSON errors they are.
func decode(raw []byte, v any) error {
	strict := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := strict.ReadValue(); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "jsontext: "))
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("unexpected data after the top-level value")
	}
	return nil
}

// documentDialect reads the top-level "$schema", the only place the library
// takes a document's dialect from.
func documentDialect(doc any) (jsonschema.Dialect, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return defaultDialect, nil
	}
	v, ok := obj["$schema"]
	if !ok {
		return defaultDialect, nil
	}
	uri, ok := v.(string)
	if !ok {
		return "", invalid(`"$schema" must be a string`)
	}
	d, ok := lookupDialect(uri)
	if !ok {
		return "", invalid(`unsupported "$schema" %q: use draft-07, 2019-09 or 2020-12`, uri)
	}
	return d, nil
}

func requireObject(doc any) error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return invalid(`must be a JSON object with "type": "object"`)
	}
	t, ok := obj["type"]
	if !ok {
		return invalid(`must have "type": "object" at the top level`)
	}
	if t != "object" {
		got, _ := json.Marshal(t)
		return invalid(`must have "type": "object" at the top level, not %s`, got)
	}
	return nil
}

// checkMetaSchema validates the document against a meta-schema, which
// catches what the library's compiler lets through (an unknown type name, a
// negative minLength) and locates the rest precisely, where the compiler's
// decoding errors may not. The meta-schema is compiled on a compiler of its
// own, so its "$id" is not visible to the schema being checked.
//
// For 2019-09 and 2020-12, whose meta-schemas the library does not embed,
// the document is checked against Draft 7's instead, without its "$schema"
// (which would select the missing one). The two agree on every keyword
// Draft 7 defines, except that this Draft 7 meta-schema also refuses an
// empty or repetitive "enum"; keywords added since Draft 7 are left to the
// compiler.
// metaCompilers keep their compiled meta-schemas between calls: compiling
// the meta-schema anew for every schema was most of the cost of Compile.
// They are pooled because the library's compiled trees must not be
// evaluated by two goroutines at once.
var metaCompilers = sync.Pool{New: func() any { return newCompiler() }}

func checkMetaSchema(raw []byte, doc any, dialect jsonschema.Dialect) error {
	if !embedsMetaSchema(dialect) {
		obj := maps.Clone(doc.(map[string]any)) // a non-default dialect came from its "$schema"
		delete(obj, "$schema")
		var err error
		if raw, err = json.Marshal(obj); err != nil {
			return invalid("%v", err)
		}
	}
	c := metaCompilers.Get().(*jsonschema.Compiler)
	res, err := c.ValidateSchema(raw)
	metaCompilers.Put(c)
	if err != nil {
		return invalid("%v", err)
	}
	if res.IsValid() {
		return nil
	}
	vs := violations(res, doc)
	msgs := make([]string, 0, min(len(vs), maxReported)+1)
	for _, v := range vs[:min(len(vs), maxReported)] {
		msgs = append(msgs, where(v.Path)+": "+v.Message)
	}
	if len(vs) > maxReported {
		msgs = append(msgs, fmt.Sprintf("and %d more", len(vs)-maxReported))
	}
	return invalid("%s", strings.Join(msgs, "; "))
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSchema, fmt.Sprintf(format, args...))
}
