package schema

import (
	"strings"

	"github.com/kaptinlin/jsonschema"
)

// defaultDialect applies to schemas without "$schema": the dialect MCP tools
// are conventionally written in.
const defaultDialect = jsonschema.Draft7

// lookupDialect reports which dialect a "$schema" URI names. The library
// treats an unknown URI as "use the default", which would compile a schema
// under rules its author did not ask for, so we keep our own table and reject
// what is not in it. Both http and https spellings, with or without the empty
// fragment, are accepted, as the library does.
func lookupDialect(uri string) (jsonschema.Dialect, bool) {
	u := strings.TrimSuffix(strings.TrimSpace(uri), "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft/2020-12/schema":
		return jsonschema.Draft202012, true
	case "json-schema.org/draft/2019-09/schema":
		return jsonschema.Draft201909, true
	case "json-schema.org/draft-07/schema":
		return jsonschema.Draft7, true
	case "json-schema.org/draft-06/schema":
		return jsonschema.Draft6, true
	case "json-schema.org/draft-04/schema":
		return jsonschema.Draft4, true
	}
	return "", false
}

// newCompiler returns a compiler that can reach nothing outside the schema it
// compiles. The library registers http and https loaders by default (with a
// 10s timeout); removing every loader makes a remote "$ref" fail to resolve
// instead of fetching, and a fresh compiler per schema keeps one schema's
// "$id" out of every other schema's reach.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	clear(c.Loaders)
	c.SetDefaultDialect(defaultDialect)
	return c
}
