package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
)

// metaSchemaFiles are the 2019-09 and 2020-12 meta-schemas as published by
// json-schema.org: each dialect's schema.json and the vocabulary
// meta-schemas it references under meta/; and those of Draft 4, 6 and 7,
// as the library embeds them (it embeds no others, and Compile never
// fetches anything).
//
//go:embed metaschemas
var metaSchemaFiles embed.FS

// metaSchemaDirs name the directory of metaSchemaFiles holding each
// dialect's meta-schema. Those of Draft 4, 6 and 7 are the library's own,
// copied: the library compiles its embedded meta-schema anew on every
// ValidateSchema, most of the time of compiling a small schema, where
// these are compiled once.
var metaSchemaDirs = map[jsonschema.Dialect]string{
	jsonschema.Draft4:      "metaschemas/draft-04",
	jsonschema.Draft6:      "metaschemas/draft-06",
	jsonschema.Draft7:      "metaschemas/draft-07",
	jsonschema.Draft201909: "metaschemas/2019-09",
	jsonschema.Draft202012: "metaschemas/2020-12",
}

// maxReported caps how many meta-schema violations one error message lists,
// so a wholly wrong schema yields a readable message rather than a wall.
const maxReported = 5

// metaChecker validates schema documents against the meta-schema of their
// dialect. It keeps the meta-schemas it compiled: compiling one anew for
// every schema was most of the cost of Compile. Its compiler compiles
// meta-schemas only, so no "$id" of a checked schema is ever visible to it.
type metaChecker struct {
	c *jsonschema.Compiler
	// compiled holds the meta-schemas compiled, each on first use.
	compiled map[jsonschema.Dialect]*jsonschema.Schema
}

// metaCheckers are pooled because the library's compiled trees must not be
// evaluated by two goroutines at once.
var metaCheckers = sync.Pool{New: func() any {
	return &metaChecker{c: newCompiler(), compiled: map[jsonschema.Dialect]*jsonschema.Schema{}}
}}

// validate evaluates raw, a document of the given dialect, against that
// dialect's meta-schema.
func (m *metaChecker) validate(raw []byte, dialect jsonschema.Dialect) (*jsonschema.EvaluationResult, error) {
	meta, ok := m.compiled[dialect]
	if !ok {
		dir, known := metaSchemaDirs[dialect]
		if !known {
			return nil, fmt.Errorf("no meta-schema for %s", dialect)
		}
		var err error
		if meta, err = compileMetaSchema(m.c, dir); err != nil {
			return nil, err
		}
		m.compiled[dialect] = meta
	}
	return meta.ValidateJSON(raw), nil
}

// compileMetaSchema compiles the vocabulary meta-schemas under dir/meta and
// then dir/schema.json, which references them, and returns the latter.
func compileMetaSchema(c *jsonschema.Compiler, dir string) (*jsonschema.Schema, error) {
	vocabularies, err := fs.Glob(metaSchemaFiles, path.Join(dir, "meta", "*.json"))
	if err != nil {
		return nil, err
	}
	var meta *jsonschema.Schema
	for _, name := range append(vocabularies, path.Join(dir, "schema.json")) {
		data, err := metaSchemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if meta, err = c.Compile(data); err != nil {
			return nil, fmt.Errorf("meta-schema %s: %w", name, err)
		}
	}
	if refs := meta.UnresolvedReferenceURIs(); len(refs) > 0 {
		return nil, fmt.Errorf("meta-schema %s: unresolved %v", dir, refs)
	}
	return meta, nil
}

// checkMetaSchema validates the document against its dialect's meta-schema,
// which catches what the library's compiler lets through (an unknown type
// name, a negative minLength, a "dependentRequired" that is not an object
// of string arrays under 2019-09 and 2020-12) and locates it precisely,
// where the compiler's decoding errors may not. The error is a KeywordError
// at the first violation, its message listing the first few. A Draft 7
// document of the common keywords is checked directly (draft7Valid).
func checkMetaSchema(raw []byte, doc any, dialect jsonschema.Dialect) error {
	if dialect == jsonschema.Draft7 && draft7Valid(doc) {
		return nil
	}
	m := metaCheckers.Get().(*metaChecker)
	res, err := m.validate(raw, dialect)
	metaCheckers.Put(m)
	if err != nil {
		return invalid("%v", err)
	}
	if res.IsValid() {
		return nil
	}
	vs := violations(res, doc)
	if len(vs) == 0 {
		return invalid("not valid against the meta-schema of %s", dialect)
	}
	msgs := make([]string, 0, min(len(vs), maxReported)+1)
	msgs = append(msgs, firstMessage(doc, vs[0], dialect))
	for _, v := range vs[1:min(len(vs), maxReported)] {
		msgs = append(msgs, where(v.Path)+": "+v.Message)
	}
	if len(vs) > maxReported {
		msgs = append(msgs, fmt.Sprintf("and %d more", len(vs)-maxReported))
	}
	return &KeywordError{Pointer: vs[0].Path, Field: vs[0].Field, Message: strings.Join(msgs, "; ")}
}

// firstMessage words the first meta-schema violation, saying how to write a
// tuple when it is a 2020-12 "items" written as an array, as earlier
// dialects had it.
func firstMessage(doc any, v Violation, dialect jsonschema.Dialect) string {
	tokens, _ := jsonptr.Tokens(v.Path)
	n := len(tokens)
	if dialect == jsonschema.Draft202012 && n > 0 && tokens[n-1] == "items" &&
		(n == 1 || !slices.Contains(schemaMapKeywords, tokens[n-2])) {
		if value, ok := jsonptr.Get(doc, v.Path); ok {
			if _, isArray := value.([]any); isArray {
				return tupleHint
			}
		}
	}
	return v.Message
}
