package schema

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompileDialects(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		dialect string
		valid   []string
		invalid []string
	}{
		{
			name:    "draft-07 by default: definitions and $ref",
			schema:  `{"type":"object","definitions":{"city":{"type":"string"}},"properties":{"city":{"$ref":"#/definitions/city"}}}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`{"city":"Paris"}`, `{}`},
			invalid: []string{`{"city":5}`},
		},
		{
			name:    "draft-07 numeric exclusiveMinimum",
			schema:  `{"type":"number","exclusiveMinimum":5}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`5.5`, `6`},
			invalid: []string{`5`, `4`},
		},
		{
			name:    "draft-07 $ref ignores its siblings",
			schema:  `{"definitions":{"any":{}},"properties":{"a":{"$ref":"#/definitions/any","type":"string"}}}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`{"a":1}`},
		},
		{
			name:    "draft-07 named explicitly",
			schema:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`"x"`},
			invalid: []string{`1`},
		},
		{
			name:    "draft-04 boolean exclusiveMinimum",
			schema:  `{"$schema":"http://json-schema.org/draft-04/schema#","type":"number","minimum":5,"exclusiveMinimum":true}`,
			dialect: "http://json-schema.org/draft-04/schema#",
			valid:   []string{`6`},
			invalid: []string{`5`},
		},
		{
			name:    "draft-06 const",
			schema:  `{"$schema":"http://json-schema.org/draft-06/schema#","const":"x"}`,
			dialect: "http://json-schema.org/draft-06/schema#",
			valid:   []string{`"x"`},
			invalid: []string{`"y"`},
		},
		{
			name:    "2020-12 $defs and prefixItems",
			schema:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"n":{"type":"integer"}},"type":"array","prefixItems":[{"$ref":"#/$defs/n"},{"type":"string"}],"items":false}`,
			dialect: "https://json-schema.org/draft/2020-12/schema",
			valid:   []string{`[1,"a"]`, `[1]`},
			invalid: []string{`["a"]`, `[1,"a",3]`},
		},
		{
			name:    "2020-12 $ref applies alongside its siblings",
			schema:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":2}`,
			dialect: "https://json-schema.org/draft/2020-12/schema",
			valid:   []string{`"ab"`},
			invalid: []string{`"a"`, `12`},
		},
		{
			name:    "2020-12 $anchor",
			schema:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"a":{"$anchor":"name","type":"string"}},"properties":{"n":{"$ref":"#name"}}}`,
			dialect: "https://json-schema.org/draft/2020-12/schema",
			valid:   []string{`{"n":"x"}`},
			invalid: []string{`{"n":1}`},
		},
		{
			name:    "2019-09 tuple items",
			schema:  `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"array","items":[{"type":"integer"}],"additionalItems":false}`,
			dialect: "https://json-schema.org/draft/2019-09/schema",
			valid:   []string{`[1]`},
			invalid: []string{`[1,2]`, `["a"]`},
		},
		{
			name:    "2019-09 dependentRequired",
			schema:  `{"$schema":"https://json-schema.org/draft/2019-09/schema","dependentRequired":{"card":["billing"]}}`,
			dialect: "https://json-schema.org/draft/2019-09/schema",
			valid:   []string{`{}`, `{"card":1,"billing":2}`},
			invalid: []string{`{"card":1}`},
		},
		{
			name:    "https spelling of draft-07",
			schema:  `{"$schema":"https://json-schema.org/draft-07/schema","type":"string"}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`"x"`},
		},
		{
			name:    "recursive $ref to the root",
			schema:  `{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`{"child":{"child":{"n":1}}}`},
			invalid: []string{`{"child":{"child":{"n":"x"}}}`},
		},
		{
			name:    "absolute $ref to the schema's own $id",
			schema:  `{"$id":"https://x.example/a","definitions":{"s":{"type":"string"}},"properties":{"x":{"$ref":"https://x.example/a#/definitions/s"}}}`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`{"x":"y"}`},
			invalid: []string{`{"x":1}`},
		},
		{
			name:    "boolean schema",
			schema:  `true`,
			dialect: "http://json-schema.org/draft-07/schema#",
			valid:   []string{`1`, `{}`, `null`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			require.NoError(t, err)
			require.Equal(t, tt.dialect, s.Dialect())
			for _, v := range tt.valid {
				require.Nil(t, s.Validate(decodeJSON(t, v)), "value %s", v)
			}
			for _, v := range tt.invalid {
				require.NotEmpty(t, s.Validate(decodeJSON(t, v)), "value %s", v)
			}
		})
	}
}

func TestCompileRejects(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		opts    []Option
		message string // a substring of the error
	}{
		{name: "not JSON", schema: `{"type":`, message: "not valid JSON"},
		{name: "empty", schema: ``, message: "not valid JSON"},
		{name: "trailing data", schema: `{} {}`, message: "not valid JSON"},
		{name: "trailing brace", schema: `{"type":"object"}}`, message: "not valid JSON: unexpected data after the top-level value"},
		{name: "trailing bracket", schema: `{}]`, message: "not valid JSON: unexpected data after the top-level value"},
		{name: "duplicate member", schema: `{"type":"string","type":"number"}`, message: `duplicate object member name "type"`},
		{name: "unknown $schema", schema: `{"$schema":"http://example.com/my-dialect"}`, message: `unsupported "$schema" "http://example.com/my-dialect"`},
		{name: "draft-03", schema: `{"$schema":"http://json-schema.org/draft-03/schema#"}`, message: `unsupported "$schema"`},
		{name: "$schema not a string", schema: `{"$schema":7}`, message: `"$schema" must be a string`},
		{name: "unknown nested $schema", schema: `{"properties":{"a":{"$schema":"http://example.com/x"}}}`, message: `/properties/a: unsupported "$schema"`},
		{name: "missing definitions pointer", schema: `{"properties":{"a":{"$ref":"#/definitions/missing"}}}`, message: `$ref "#/definitions/missing" cannot be resolved`},
		{name: "missing $defs pointer", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"a":{}},"$ref":"#/$defs/missing"}`, message: `$ref "#/$defs/missing" cannot be resolved`},
		{name: "missing anchor", schema: `{"items":{"$ref":"#nowhere"}}`, message: `$ref "#nowhere" cannot be resolved`},
		{name: "relative file", schema: `{"$ref":"other.json"}`, message: `$ref "other.json" cannot be resolved`},
		{name: "remote URL", schema: `{"$ref":"https://schemas.invalid/tool.json#/definitions/x"}`, message: "only references within this schema are allowed"},
		{name: "unknown type draft-07", schema: `{"properties":{"a":{"type":"strin"}}}`, message: "/properties/a/type"},
		{name: "unknown type 2020-12", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"type":"strin"}}}`, message: `/properties/a/type: Value matches none of the anyOf alternatives: Value strin should be one of the allowed values`},
		{name: "unknown type in 2020-12 $defs", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"a":{"type":"strin"}}}`, message: `/$defs/a/type: Value matches none of the anyOf alternatives: Value strin should be one of the allowed values`},
		{name: "unknown type in 2019-09 tuple items", schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"t":{"items":[{},{"type":"strin"}]}}}`, message: `/$defs/t/items: Value matches none of the anyOf alternatives`},
		{name: "2020-12 negative minLength", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"minLength":-1}}}`, message: "/properties/a/minLength: -1 should be at least 0"},
		{name: "2020-12 boolean exclusiveMinimum", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","exclusiveMinimum":true}`, message: "/exclusiveMinimum: Value is boolean but should be number"},
		{name: "2020-12 wrongly shaped $defs", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"a":5}}`, message: "/$defs/a: Value is integer but should be object, boolean"},
		{name: "type not a name", schema: `{"type":5}`, message: "/type"},
		{name: "draft-07 boolean exclusiveMinimum", schema: `{"minimum":1,"exclusiveMinimum":true}`, message: "/exclusiveMinimum"},
		{name: "negative minLength", schema: `{"minLength":-1}`, message: "/minLength"},
		{name: "required not an array", schema: `{"required":"city"}`, message: "/required"},
		{name: "top level array", schema: `[]`, message: "top level: "},
		{name: "regexp outside RE2", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","pattern":"(?=x)"}`, message: "invalid or unsupported Perl syntax"},
		{name: "nested too deeply", schema: strings.Repeat(`{"not":`, maxDepth) + `{}` + strings.Repeat(`}`, maxDepth), message: "nested more than 100 levels deep"},
		{name: "object required: missing type", schema: `{"properties":{}}`, opts: []Option{RequireObject}, message: `must have "type": "object" at the top level`},
		{name: "object required: other type", schema: `{"type":"array"}`, opts: []Option{RequireObject}, message: `must have "type": "object" at the top level, not "array"`},
		{name: "object required: type list", schema: `{"type":["object","null"]}`, opts: []Option{RequireObject}, message: `not ["object","null"]`},
		{name: "object required: boolean schema", schema: `true`, opts: []Option{RequireObject}, message: `must be a JSON object with "type": "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema), tt.opts...)
			require.ErrorIs(t, err, ErrInvalidSchema)
			require.Nil(t, s)
			require.Contains(t, err.Error(), tt.message)
			require.True(t, strings.HasPrefix(err.Error(), "invalid schema: "), err.Error())
		})
	}
}

func TestCompileRequireObjectAccepts(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object"}`), RequireObject)
	require.NoError(t, err)
	require.Nil(t, s.Validate(map[string]any{}))
}

// TestCompileNeverFetches proves that a reference to a live server is
// rejected without a request reaching it, whatever form it takes.
func TestCompileNeverFetches(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type":"string","definitions":{"x":{"type":"string"}}}`)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name   string
		schema string
	}{
		{name: "whole document", schema: `{"$ref":"` + srv.URL + `/schema.json"}`},
		{name: "fragment of a document", schema: `{"properties":{"a":{"$ref":"` + srv.URL + `/schema.json#/definitions/x"}}}`},
		{name: "relative to a remote $id", schema: `{"$id":"` + srv.URL + `/root.json","items":{"$ref":"other.json"}}`},
		{name: "2020-12 $dynamicRef", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicRef":"` + srv.URL + `/schema.json#meta"}`},
		{name: "$schema naming the server", schema: `{"$schema":"` + srv.URL + `/meta.json"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema))
			require.ErrorIs(t, err, ErrInvalidSchema)
			require.Zero(t, hits.Load())
		})
	}
}

// TestCompileIsolatesIDs guards against one organization's schema resolving
// another's "$id": each compilation must start from nothing.
func TestCompileIsolatesIDs(t *testing.T) {
	_, err := Compile([]byte(`{"$id":"https://x.example/a","type":"string","definitions":{"s":{"type":"string"}}}`))
	require.NoError(t, err)

	for _, ref := range []string{"https://x.example/a", "https://x.example/a#/definitions/s"} {
		_, err = Compile([]byte(`{"properties":{"b":{"$ref":"` + ref + `"}}}`))
		require.ErrorIs(t, err, ErrInvalidSchema, ref)
		require.Contains(t, err.Error(), ref)
	}
}

// TestCompileGarbage feeds inputs no author should write; Compile must
// answer every one without panicking, and whatever compiles must validate
// without panicking too.
func TestCompileGarbage(t *testing.T) {
	deep := func(open, leaf, close string, n int) string {
		return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
	}
	inputs := map[string]string{
		"empty array":             `[]`,
		"string":                  `"str"`,
		"null":                    `null`,
		"number":                  `0`,
		"false":                   `false`,
		"type number":             `{"type": 5}`,
		"type empty list":         `{"type": []}`,
		"properties number":       `{"properties": 5}`,
		"required numbers":        `{"required": [1]}`,
		"enum number":             `{"enum": 5}`,
		"multipleOf zero":         `{"multipleOf": 0}`,
		"huge minimum":            `{"minimum": 1e999}`,
		"tiny multipleOf":         `{"type":"integer","multipleOf":1e-400}`,
		"self $ref":               `{"$ref": "#"}`,
		"self $ref with type":     `{"$ref": "#", "type": "object"}`,
		"allOf self":              `{"allOf": [{"$ref": "#"}]}`,
		"items self":              `{"items": {"$ref": "#"}}`,
		"definition self loop":    `{"definitions":{"a":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"}`,
		"definitions mutual loop": `{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"}`,
		"2020 $defs loop":         `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a","type":"object"}`,
		"empty $ref":              `{"$ref": ""}`,
		"bad escape $ref":         `{"$ref": "%zz"}`,
		"bad pointer escape":      `{"$ref": "#/definitions/%zz"}`,
		"bad $id":                 `{"$id": "::::", "$ref": "#"}`,
		"fragment $id":            `{"$id": "#foo", "$ref": "#foo"}`,
		"dynamicRef":              `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicRef":"#meta"}`,
		"recursiveRef":            `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`,
		"dependencies number":     `{"dependencies": {"a": 5}}`,
		"bad patternProperties":   `{"patternProperties": {"[": {}}}`,
		"content":                 `{"contentEncoding":"base64","contentMediaType":"application/json"}`,
		"2020 contentSchema":      `{"$schema":"https://json-schema.org/draft/2020-12/schema","contentMediaType":"application/json","contentSchema":{"type":"object","required":["a"]}}`,
		"if true then false":      `{"if": true, "then": false}`,
		"invalid UTF-8":           "{\"title\": \"\xff\"}",
		"deep not":                deep(`{"not":`, `{}`, `}`, 5000),
		"deep arrays":             deep(`[`, ``, `]`, 100000),
		"deep properties":         deep(`{"properties":{"a":`, `{"type":"integer"}`, `}}`, 2000),
	}
	values := []string{`null`, `{}`, `[]`, `"x"`, `1.5`, `{"a":{"a":{"a":1}}}`, `[[1,2],{"a":"eyJhIjoxfQ=="}]`, `"eyJhIjoxfQ=="`}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var s *Schema
			require.NotPanics(t, func() { s, _ = Compile([]byte(in)) })
			if s == nil {
				return
			}
			for _, v := range values {
				require.NotPanics(t, func() { s.Validate(decodeJSON(t, v)) }, v)
			}
		})
	}
}

// TestCompileAcceptsValidSchemas guards the save-time checks (meta-schema,
// tree walk) against refusing schemas that are correct.
func TestCompileAcceptsValidSchemas(t *testing.T) {
	const s2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	const s2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	schemas := map[string]string{
		"empty":                   `{}`,
		"false":                   `false`,
		"draft-07 kitchen sink":   `{"$id":"https://x.example/tool","$comment":"c","title":"t","description":"d","type":["object","null"],"properties":{"a":{"type":"string","format":"email","minLength":1,"maxLength":5,"pattern":"^a"},"b":{"type":"array","items":[{"type":"integer"}],"additionalItems":false,"contains":{"const":1},"uniqueItems":true},"c":{"enum":[1,"x",null]}},"patternProperties":{"^x-":{}},"propertyNames":{"maxLength":20},"dependencies":{"a":["b"],"b":{"required":["c"]}},"if":{"required":["a"]},"then":{"minProperties":1},"else":{"maxProperties":9},"allOf":[{}],"anyOf":[{}],"oneOf":[{}],"not":{"required":["zz"]},"default":{},"examples":[{}],"readOnly":false,"contentMediaType":"application/json","contentEncoding":"base64"}`,
		"draft-07 $ref chain":     `{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/a"}}}`,
		"draft-07 $id anchor":     `{"definitions":{"a":{"$id":"#name","type":"string"}},"properties":{"x":{"$ref":"#name"}}}`,
		"2020-12 modern keywords": `{` + s2020 + `"$defs":{"n":{"$anchor":"n","type":"number"}},"prefixItems":[{"$ref":"#n"}],"items":false,"minContains":1,"maxContains":2,"contains":{"type":"number"},"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["c"]}},"unevaluatedProperties":false,"unevaluatedItems":false,"properties":{"a":{},"b":{},"c":{}}}`,
		"2020-12 dynamic refs":    `{` + s2020 + `"$dynamicAnchor":"node","type":"object","properties":{"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		"2019-09 recursive refs":  `{` + s2019 + `"$recursiveAnchor":true,"type":"object","properties":{"children":{"type":"array","items":{"$recursiveRef":"#"}}}}`,
		"2019-09 $defs":           `{` + s2019 + `"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a","minLength":1}`,
	}
	for name, raw := range schemas {
		t.Run(name, func(t *testing.T) {
			_, err := Compile([]byte(raw))
			require.NoError(t, err)
		})
	}
}

// TestCompileCopiesRawUnlessUnchanging: a schema keeps a copy of the text
// it was compiled from, unless told the text never changes.
func TestCompileCopiesRawUnlessUnchanging(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	copied, err := Compile(raw, RequireObject)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := Compile(raw, RequireObject, Unchanging)
	if err != nil {
		t.Fatal(err)
	}
	if &copied.raw[0] == &raw[0] || &kept.raw[0] != &raw[0] {
		t.Fatal("Compile copies the text only without Unchanging")
	}
}
