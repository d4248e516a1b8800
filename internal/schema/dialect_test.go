package schema

import (
	"errors"
	"strings"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// dialectURIs are the "$schema" values the dialect tests run each schema
// under.
var dialectURIs = map[string]string{
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
	doc, err := oracle.UnmarshalJSON(strings.NewReader(schema))
	require.NoError(t, err)
	inst, err := oracle.UnmarshalJSON(strings.NewReader(instance))
	require.NoError(t, err)
	c := oracle.NewCompiler()
	require.NoError(t, c.AddResource("mem:///schema.json", doc))
	s, err := c.Compile("mem:///schema.json")
	require.NoError(t, err)
	return s.Validate(inst) == nil
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
