package schema

import (
	"errors"
	"maps"
	"strings"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// dialectURIs are the "$schema" values the dialect tests run each schema
// under.
var dialectURIs = map[string]string{
	"draft-04": "http://json-schema.org/draft-04/schema#",
	"draft-06": "http://json-schema.org/draft-06/schema#",
	"draft-07": "http://json-schema.org/draft-07/schema#",
	"2019-09":  "https://json-schema.org/draft/2019-09/schema",
	"2020-12":  "https://json-schema.org/draft/2020-12/schema",
}

// withDialect returns the schema body, an object's members without braces,
// as a document of the named dialect.
func withDialect(dialect, body string) string {
	return `{"$schema":"` + dialectURIs[dialect] + `",` + body + `}`
}

// referenceVerdict validates instance against schema with an independent
// validator, which knows every dialect's keywords and meta-schema.
func referenceVerdict(t *testing.T, schema, instance string) bool {
	t.Helper()
	s, err := referenceCompile(t, schema)
	require.NoError(t, err)
	inst, err := oracle.UnmarshalJSON(strings.NewReader(instance))
	require.NoError(t, err)
	return s.Validate(inst) == nil
}

// referenceCompile compiles schema with the independent validator, which
// refuses a schema its dialect's meta-schema refuses.
func referenceCompile(t *testing.T, schema string) (*oracle.Schema, error) {
	t.Helper()
	doc, err := oracle.UnmarshalJSON(strings.NewReader(schema))
	require.NoError(t, err)
	c := oracle.NewCompiler()
	require.NoError(t, c.AddResource("mem:///schema.json", doc))
	return c.Compile("mem:///schema.json")
}

// Each dialect enforces its own keywords and ignores the others: a keyword
// introduced by 2019-09 or 2020-12 means nothing under Draft 7, and
// "dependencies" means nothing from 2019-09 on.
func TestDialectKeywordsEnforcedOnlyInTheirDialect(t *testing.T) {
	cases := []struct {
		name, body, instance string
		// valid is the verdict by dialect.
		valid map[string]bool
		// laterNoReference: the reference validator is asked about Draft 7
		// only, since it still applies "dependencies" from 2019-09 on,
		// where that keyword was replaced.
		laterNoReference bool
	}{
		{
			name: "dependentRequired", body: `"type":"object","dependentRequired":{"a":["b"]}`, instance: `{"a":1}`,
			valid: map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "dependentSchemas", body: `"type":"object","dependentSchemas":{"a":{"required":["b"]}}`, instance: `{"a":1}`,
			valid: map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "unevaluatedProperties", body: `"type":"object","properties":{"a":{}},"unevaluatedProperties":false`,
			instance: `{"a":1,"b":2}`,
			valid:    map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "unevaluatedItems", body: `"type":"array","unevaluatedItems":false`, instance: `[1]`,
			valid: map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "prefixItems", body: `"type":"array","prefixItems":[{"type":"string"}]`, instance: `[1]`,
			valid: map[string]bool{"draft-07": true, "2019-09": true, "2020-12": false},
		},
		{
			name: "minContains", body: `"type":"array","contains":{"type":"string"},"minContains":2`, instance: `["a",1]`,
			valid: map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "maxContains", body: `"type":"array","contains":{"type":"string"},"maxContains":1`, instance: `["a","b"]`,
			valid: map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "nested dependentRequired", body: `"type":"object","properties":{"p":{"dependentRequired":{"a":["b"]}}}`,
			instance: `{"p":{"a":1}}`,
			valid:    map[string]bool{"draft-07": true, "2019-09": false, "2020-12": false},
		},
		{
			name: "property named like a keyword", body: `"type":"object","properties":{"dependentRequired":{"type":"string"}}`,
			instance: `{"dependentRequired":1}`,
			valid:    map[string]bool{"draft-07": false, "2019-09": false, "2020-12": false},
		},
		{
			name: "dependencies", body: `"type":"object","dependencies":{"a":["b"]}`, instance: `{"a":1}`,
			valid:            map[string]bool{"draft-07": false, "2019-09": true, "2020-12": true},
			laterNoReference: true,
		},
		{
			name: "nested dependencies", body: `"type":"object","additionalProperties":{"dependencies":{"a":{"required":["b"]}}}`,
			instance:         `{"p":{"a":1}}`,
			valid:            map[string]bool{"draft-07": false, "2019-09": true, "2020-12": true},
			laterNoReference: true,
		},
	}
	for _, tc := range cases {
		for dialect, want := range tc.valid {
			t.Run(tc.name+"/"+dialect, func(t *testing.T) {
				raw := withDialect(dialect, tc.body)
				s := mustCompile(t, raw)
				got := len(s.Validate(decodeJSON(t, tc.instance))) == 0
				require.Equal(t, want, got, "%s against %s", tc.instance, raw)
				if !tc.laterNoReference || dialect == "draft-07" {
					require.Equal(t, referenceVerdict(t, raw, tc.instance), got, "disagrees with the reference validator")
				}
			})
		}
	}
}

// Without "$schema" a schema is Draft 7, whose keywords only are enforced.
func TestDefaultDialectIgnoresLaterKeywords(t *testing.T) {
	s := mustCompile(t, `{"type":"object","dependentRequired":{"a":["b"]}}`)
	require.Empty(t, s.Validate(decodeJSON(t, `{"a":1}`)))
	s = mustCompile(t, `{"type":"object","dependencies":{"a":["b"]}}`)
	require.NotEmpty(t, s.Validate(decodeJSON(t, `{"a":1}`)))
}

// A schema its dialect's meta-schema refuses is refused at compile time,
// where it is, rather than compiled under another dialect's reading.
func TestArrayItemsRefusedUnder2020(t *testing.T) {
	for _, tc := range []struct{ body, field, pointer string }{
		{`"type":"object","items":[{"type":"string"}]`, "items", "/items"},
		{`"type":"object","properties":{"q":{"items":[{"type":"string"}]}}`, "properties.q.items", "/properties/q/items"},
		{`"type":"object","$defs":{"t":{"items":[true]}}`, "$defs.t.items", "/$defs/t/items"},
	} {
		raw := withDialect("2020-12", tc.body)
		_, err := Compile([]byte(raw))
		var ke *KeywordError
		require.ErrorAs(t, err, &ke, raw)
		require.ErrorIs(t, err, ErrInvalidSchema)
		require.Equal(t, tc.field, ke.Field)
		require.Equal(t, tc.pointer, ke.Pointer)

		// The reference validator refuses it too, by the meta-schema.
		doc, derr := oracle.UnmarshalJSON(strings.NewReader(raw))
		require.NoError(t, derr)
		c := oracle.NewCompiler()
		require.NoError(t, c.AddResource("mem:///schema.json", doc))
		_, rerr := c.Compile("mem:///schema.json")
		require.Error(t, rerr, raw)

		// The same tuple is the dialect's own before 2020-12.
		for _, d := range []string{"draft-07", "2019-09"} {
			s := mustCompile(t, withDialect(d, tc.body))
			require.NotNil(t, s)
		}
	}
	s := mustCompile(t, withDialect("2019-09", `"type":"array","items":[{"type":"string"}]`))
	require.NotEmpty(t, s.Validate(decodeJSON(t, `[1]`)))
	require.Empty(t, s.Validate(decodeJSON(t, `["a",1]`)))
}

// A count the validator cannot hold is refused where it is, rather than
// wrapped around into a limit that refuses or accepts everything.
func TestCountsBeyondRangeRefused(t *testing.T) {
	for _, kw := range []string{"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"} {
		for _, n := range []string{"1e20", "9223372036854775808", "9223372036854775807", "1e400"} {
			for dialect := range dialectURIs {
				raw := withDialect(dialect, `"type":"object","properties":{"q":{"`+kw+`":`+n+`}}`)
				_, err := Compile([]byte(raw))
				var ke *KeywordError
				require.ErrorAs(t, err, &ke, raw)
				require.Equal(t, "properties.q."+kw, ke.Field)
				require.Equal(t, "/properties/q/"+kw, ke.Pointer)
			}
		}
	}
	for _, kw := range []string{"minContains", "maxContains"} {
		raw := withDialect("2020-12", `"type":"array","contains":{},"`+kw+`":1e20`)
		_, err := Compile([]byte(raw))
		var ke *KeywordError
		require.ErrorAs(t, err, &ke, raw)
		require.Equal(t, kw, ke.Field)
		// Draft 7 ignores the keyword, whatever its value.
		mustCompile(t, withDialect("draft-07", `"type":"array","contains":{},"`+kw+`":1e20`))
	}
	// Large counts that fit are kept and enforced as written.
	s := mustCompile(t, `{"type":"object","properties":{"q":{"maxLength":9007199254740992,"minLength":1}}}`)
	require.Empty(t, s.Validate(decodeJSON(t, `{"q":"abc"}`)))
	require.NotEmpty(t, s.Validate(decodeJSON(t, `{"q":""}`)))
}

// A refused keyword reaches a caller as the field it names.
func TestKeywordErrorIsPatternError(t *testing.T) {
	_, err := Compile([]byte(`{"type":"object","properties":{"q":{"maxLength":1e20}}}`))
	var pe *PatternError
	require.True(t, errors.As(err, &pe))
	require.Equal(t, "properties.q.maxLength", pe.Field)
	require.Contains(t, err.Error(), "/properties/q/maxLength")
}

// Draft 4 and Draft 6 are read as themselves, not as Draft 7: "const",
// "contains" and "propertyNames" arrived in Draft 6, "if"/"then"/"else" and
// "contentMediaType" in Draft 7, "$dynamicRef" in 2020-12, and a dialect
// ignores what it does not define.
func TestKeywordsEnforcedFromTheirDialectOn(t *testing.T) {
	later := map[string]bool{"draft-07": false, "2019-09": false, "2020-12": false}
	since := func(d4, d6 bool) map[string]bool {
		m := maps.Clone(later)
		m["draft-04"], m["draft-06"] = d4, d6
		return m
	}
	cases := []struct {
		name, body, instance string
		valid                map[string]bool
	}{
		{name: "const", body: `"type":"object","properties":{"n":{"const":1}}`, instance: `{"n":2}`,
			valid: since(true, false)},
		{name: "contains", body: `"type":"object","properties":{"l":{"contains":{"type":"string"}}}`, instance: `{"l":[1]}`,
			valid: since(true, false)},
		{name: "propertyNames", body: `"type":"object","propertyNames":{"maxLength":1}`, instance: `{"ab":1}`,
			valid: since(true, false)},
		{name: "if/then", body: `"type":"object","if":{"required":["a"]},"then":{"required":["b"]}`, instance: `{"a":1}`,
			valid: since(true, true)},
		{name: "nested if/else", body: `"type":"object","properties":{"p":{"if":{"type":"string"},"else":{"type":"null"}}}`,
			instance: `{"p":1}`, valid: since(true, true)},
		// From Draft 7 on the validator decodes the text, where the
		// reference takes the keyword as an annotation: Draft 4 and 6 only.
		{name: "contentMediaType", body: `"type":"object","properties":{"j":{"type":"string","contentMediaType":"application/json"}}`,
			instance: `{"j":"{"}`, valid: map[string]bool{"draft-04": true, "draft-06": true}},
		{name: "$dynamicRef", body: `"type":"object","$dynamicAnchor":"node","properties":{"a":{"$dynamicRef":"#node"}}`,
			instance: `{"a":1}`,
			valid:    map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": true, "2020-12": false}},
	}
	for _, tc := range cases {
		for dialect, want := range tc.valid {
			t.Run(tc.name+"/"+dialect, func(t *testing.T) {
				raw := withDialect(dialect, tc.body)
				s := mustCompile(t, raw)
				got := len(s.Validate(decodeJSON(t, tc.instance))) == 0
				require.Equal(t, want, got, "%s against %s", tc.instance, raw)
				require.Equal(t, referenceVerdict(t, raw, tc.instance), got, "disagrees with the reference validator")
			})
		}
	}
}

// Under Draft 4 "exclusiveMaximum" and "exclusiveMinimum" are booleans that
// make "maximum" and "minimum" exclusive.
func TestDraft4BooleanExclusiveBounds(t *testing.T) {
	for _, tc := range []struct{ body, instance string }{
		{`"type":"object","properties":{"n":{"maximum":5,"exclusiveMaximum":true}}`, `{"n":5}`},
		{`"type":"object","properties":{"n":{"maximum":5,"exclusiveMaximum":true}}`, `{"n":4.5}`},
		{`"type":"object","properties":{"n":{"maximum":5,"exclusiveMaximum":false}}`, `{"n":5}`},
		{`"type":"object","properties":{"n":{"minimum":5,"exclusiveMinimum":true}}`, `{"n":5}`},
		{`"type":"object","properties":{"n":{"minimum":5,"exclusiveMinimum":true}}`, `{"n":6}`},
	} {
		raw := withDialect("draft-04", tc.body)
		got := len(mustCompile(t, raw).Validate(decodeJSON(t, tc.instance))) == 0
		require.Equal(t, referenceVerdict(t, raw, tc.instance), got, "%s against %s", tc.instance, raw)
	}
	// From Draft 6 on they are numbers, and a boolean is refused.
	for _, d := range []string{"draft-06", "draft-07", "2019-09", "2020-12"} {
		_, err := Compile([]byte(withDialect(d, `"type":"object","maximum":5,"exclusiveMaximum":true`)))
		require.ErrorIs(t, err, ErrInvalidSchema, d)
	}
}

// A schema is checked against its own dialect's meta-schema when it is
// saved: a keyword the dialect defines must have the shape the dialect
// gives it, and one it does not define may hold anything. A refusal names
// the keyword's place.
func TestSaveTimeValidityPerDialect(t *testing.T) {
	cases := []struct {
		name, body string
		// valid is the verdict by dialect, where it is the reference
		// validator's.
		valid map[string]bool
		// field is where a refusal is reported.
		field string
	}{
		{name: "examples not an array", body: `"type":"object","examples":5`, field: "examples",
			// The reference's Draft 6 meta-schema lacks "examples"; the
			// published one has it.
			valid: map[string]bool{"draft-04": true, "draft-07": false, "2019-09": false, "2020-12": false}},
		{name: "$comment not a string", body: `"type":"object","$comment":5`, field: "$comment",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": false, "2019-09": false, "2020-12": false}},
		{name: "boolean subschema", body: `"type":"object","properties":{"n":false}`, field: "properties.n",
			valid: map[string]bool{"draft-04": false, "draft-06": true, "draft-07": true, "2019-09": true, "2020-12": true}},
		{name: "dependentRequired not string arrays", body: `"type":"object","dependentRequired":{"a":"b"}`,
			field: "dependentRequired.a",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "dependentRequired repeating a name", body: `"type":"object","dependentRequired":{"a":["b","b"]}`,
			field: "dependentRequired.a",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "empty prefixItems", body: `"type":"object","properties":{"t":{"prefixItems":[]}}`,
			field: "properties.t.prefixItems",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": true, "2020-12": false}},
		{name: "minContains a string", body: `"type":"array","contains":{},"minContains":"2"`, field: "minContains",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "unevaluatedProperties not a schema", body: `"type":"object","unevaluatedProperties":5`,
			field: "unevaluatedProperties",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "$defs member not a schema", body: `"type":"object","$defs":{"a":5}`, field: "$defs.a",
			valid: map[string]bool{"2019-09": false, "2020-12": false}},
		{name: "$anchor not a name", body: `"type":"object","$anchor":"1a"`, field: "$anchor",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "writeOnly not a boolean", body: `"type":"object","writeOnly":5`, field: "writeOnly",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": false, "2019-09": false, "2020-12": false}},
		{name: "contentSchema not a schema", body: `"type":"object","contentSchema":5`, field: "contentSchema",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "deprecated not a boolean", body: `"type":"object","deprecated":5`, field: "deprecated",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "$vocabulary not an object", body: `"type":"object","$vocabulary":5`, field: "$vocabulary",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": false, "2020-12": false}},
		{name: "$dynamicAnchor not a name", body: `"type":"object","$dynamicAnchor":5`, field: "$dynamicAnchor",
			valid: map[string]bool{"draft-04": true, "draft-06": true, "draft-07": true, "2019-09": true, "2020-12": false}},
		{name: "additionalItems not a schema", body: `"type":"array","additionalItems":5`, field: "additionalItems",
			valid: map[string]bool{"draft-04": false, "draft-06": false, "draft-07": false, "2019-09": false, "2020-12": true}},
		{name: "repeated enum member", body: `"type":"object","enum":[{},{}]`, field: "enum",
			valid: map[string]bool{"draft-04": false, "draft-06": false, "draft-07": false, "2019-09": true, "2020-12": true}},
	}
	for _, tc := range cases {
		for dialect, want := range tc.valid {
			t.Run(tc.name+"/"+dialect, func(t *testing.T) {
				raw := withDialect(dialect, tc.body)
				_, rerr := referenceCompile(t, raw)
				require.Equal(t, want, rerr == nil, "the reference validator's verdict on %s: %v", raw, rerr)
				_, err := Compile([]byte(raw))
				if want {
					require.NoError(t, err, raw)
					return
				}
				var ke *KeywordError
				require.ErrorAs(t, err, &ke, raw)
				require.Equal(t, tc.field, ke.Field, raw)
			})
		}
	}
}

// An empty "enum" allows no value, but the validator would read it as no
// restriction: it is refused in every dialect, where it is.
func TestEmptyEnumRefused(t *testing.T) {
	for dialect := range dialectURIs {
		raw := withDialect(dialect, `"type":"object","properties":{"e":{"enum":[]}}`)
		_, err := Compile([]byte(raw))
		var ke *KeywordError
		require.ErrorAs(t, err, &ke, raw)
		require.Equal(t, "properties.e.enum", ke.Field, raw)
	}
}
