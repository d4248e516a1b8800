package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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
	// Nothing but white space may follow: encoding/json's More below
	// takes a stray '}' or ']' for the end of a value.
	if _, err := strict.ReadValue(); err != io.EOF {
		return errors.New("unexpected data after the top-level value")
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
		return "", invalid(`unsupported "$schema" %q: use draft-04, draft-06, draft-07, 2019-09 or 2020-12`, uri)
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

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSchema, fmt.Sprintf(format, args...))
}
