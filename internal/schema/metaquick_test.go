package schema

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/kaptinlin/jsonschema"
	"github.com/stretchr/testify/require"
)

// libraryMetaValid is the library's verdict: the document evaluated
// against the Draft 7 meta-schema.
func libraryMetaValid(t testing.TB, raw []byte) bool {
	t.Helper()
	m := metaCheckers.Get().(*metaChecker)
	defer metaCheckers.Put(m)
	res, err := m.validate(raw, jsonschema.Draft7)
	require.NoError(t, err)
	return res.IsValid()
}

// quickAgrees checks that draft7Valid accepts raw only when the library
// does, and returns draft7Valid's verdict.
func quickAgrees(t testing.TB, raw []byte) bool {
	t.Helper()
	var doc any
	if decode(raw, &doc) != nil {
		return false
	}
	quick := draft7Valid(doc)
	if quick {
		require.True(t, libraryMetaValid(t, raw), "the quick check accepts what the meta-schema refuses: %s", raw)
	}
	return quick
}

// TestDraft7QuickCheckAgrees: on random Draft 7 documents of well and badly
// typed keyword values, the quick check never accepts a document the
// library's meta-schema check refuses, and it decides most of those the
// library accepts.
func TestDraft7QuickCheckAgrees(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	rng := rand.New(rand.NewPCG(3, 4))
	valid, decided := 0, 0
	for range n {
		g := metaGen{rng: rng}
		raw := g.document()
		quick := quickAgrees(t, raw)
		if libraryMetaValid(t, raw) {
			valid++
			if quick {
				decided++
			}
		}
	}
	t.Logf("the library accepted %d of %d documents; the quick check decided %d of them", valid, n, decided)
	require.Greater(t, valid, n/10)
	require.Greater(t, decided, valid/2)
}

// TestDraft7QuickCheckDecidesToolSchemas: the schemas tools are usually
// given are decided without the library, and the errors of those it
// refuses still come from the meta-schema check, worded as before.
func TestDraft7QuickCheckDecidesToolSchemas(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"city":{"type":"string","description":"A city"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"type":"string","minLength":1,"maxLength":200,"pattern":"^[a-z ]+$"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"default":"c"},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true,"maxItems":5}}}`,
		`{"type":"object","properties":{"n":{"type":["integer","null"],"multipleOf":0.5},"o":{"type":"object","properties":{},"required":[]}}}`,
		`{"type":"object","definitions":{"id":{"type":"string","format":"uuid"}},"properties":{"id":{"$ref":"#/definitions/id"}},"anyOf":[{"required":["id"]},{"required":["name"]}]}`,
		`{"type":"object","properties":{"a":true,"b":false},"dependencies":{"a":["b"],"b":{"required":["a"]}}}`,
	} {
		require.True(t, quickAgrees(t, []byte(raw)), "not decided: %s", raw)
		_, err := Compile([]byte(raw), RequireObject)
		require.NoError(t, err, raw)
	}
	for raw, field := range map[string]string{
		`{"type":"object","properties":{"city":{"type":"string","minLength":-1}}}`: "minLength",
		`{"type":"object","properties":{"city":{"type":"strin"}}}`:                 "type",
		`{"type":"object","required":["a","a"]}`:                                   "required",
		`{"type":"object","properties":{"a":{"enum":[]}}}`:                         "enum",
		`{"type":"object","multipleOf":0}`:                                         "multipleOf",
		`{"type":"object","properties":{"a":5}}`:                                   "properties",
	} {
		require.False(t, quickAgrees(t, []byte(raw)), raw)
		_, err := Compile([]byte(raw), RequireObject)
		require.ErrorContains(t, err, field, raw)
	}
}

func FuzzDraft7QuickCheck(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`))
	f.Add([]byte(`{"enum":[1,"1",true,null,-0,0]}`))
	f.Add([]byte(`{"minLength":1.0,"maxItems":1e1,"multipleOf":0.0}`))
	f.Add([]byte(`{"items":[],"allOf":[true],"dependencies":{"a":["b","b"]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var doc any
		if decode(raw, &doc) != nil || nestedDeeper(doc, maxDepth) {
			return
		}
		quickAgrees(t, raw)
	})
}

// metaGen writes random Draft 7 documents: known keywords (and a few
// unknown ones) with values of the right type and of wrong ones.
type metaGen struct{ rng *rand.Rand }

var metaKeywords = []string{"$id", "$schema", "$ref", "$comment", "title", "description", "default", "readOnly",
	"writeOnly", "examples", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
	"minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems", "contains",
	"maxProperties", "minProperties", "required", "additionalProperties", "definitions", "properties",
	"patternProperties", "dependencies", "propertyNames", "const", "enum", "type", "format", "contentMediaType",
	"contentEncoding", "if", "then", "else", "allOf", "anyOf", "oneOf", "not", "$defs", "prefixItems", "x-extra"}

var metaScalars = []string{`0`, `1`, `-1`, `-0`, `2.5`, `1.0`, `1e2`, `1E-2`, `0.0`, `1e400`, `12345678901234567890`,
	`"a"`, `"b"`, `""`, `"string"`, `"integer"`, `"object"`, `"nope"`, `"1"`, `true`, `false`, `null`}

func (g metaGen) document() []byte {
	var buf bytes.Buffer
	g.schema(&buf, 0)
	return buf.Bytes()
}

func (g metaGen) schema(buf *bytes.Buffer, depth int) {
	switch {
	case g.rng.IntN(12) == 0:
		buf.WriteString([]string{"true", "false"}[g.rng.IntN(2)])
		return
	case depth > 0 && g.rng.IntN(30) == 0:
		g.value(buf, depth+1) // not a schema, often
		return
	}
	buf.WriteByte('{')
	seen := map[string]bool{}
	for i := range g.rng.IntN(5) {
		k := metaKeywords[g.rng.IntN(len(metaKeywords))]
		if seen[k] {
			continue
		}
		seen[k] = true
		if i > 0 && buf.Bytes()[buf.Len()-1] != '{' {
			buf.WriteByte(',')
		}
		writeJSONString(buf, k)
		buf.WriteByte(':')
		g.keyword(buf, k, depth)
	}
	buf.WriteByte('}')
}

// keyword writes a value for k: mostly one of its kind, sometimes any.
func (g metaGen) keyword(buf *bytes.Buffer, k string, depth int) {
	if g.rng.IntN(6) == 0 || depth > 3 {
		g.value(buf, depth+1)
		return
	}
	switch k {
	case "additionalItems", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not":
		g.schema(buf, depth+1)
	case "items", "allOf", "anyOf", "oneOf", "prefixItems":
		if k == "items" && g.rng.IntN(2) == 0 {
			g.schema(buf, depth+1)
			return
		}
		buf.WriteByte('[')
		for i := range g.rng.IntN(3) {
			if i > 0 {
				buf.WriteByte(',')
			}
			g.schema(buf, depth+1)
		}
		buf.WriteByte(']')
	case "definitions", "properties", "patternProperties", "dependencies", "$defs":
		buf.WriteByte('{')
		for i := range g.rng.IntN(3) {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, []string{"a", "b", "c", "("}[i])
			buf.WriteByte(':')
			if k == "dependencies" && g.rng.IntN(2) == 0 {
				g.array(buf, depth+1)
			} else {
				g.schema(buf, depth+1)
			}
		}
		buf.WriteByte('}')
	case "required", "enum", "type", "examples":
		g.array(buf, depth+1)
	default:
		g.value(buf, depth+1)
	}
}

// array writes an array of scalars, repeated ones now and then.
func (g metaGen) array(buf *bytes.Buffer, depth int) {
	buf.WriteByte('[')
	n := g.rng.IntN(4)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		if g.rng.IntN(8) == 0 {
			g.value(buf, depth+1)
		} else {
			buf.WriteString(metaScalars[g.rng.IntN(len(metaScalars))])
		}
	}
	buf.WriteByte(']')
}

// value writes any JSON value.
func (g metaGen) value(buf *bytes.Buffer, depth int) {
	switch r := g.rng.IntN(10); {
	case r < 7 || depth > 5:
		buf.WriteString(metaScalars[g.rng.IntN(len(metaScalars))])
	case r < 9:
		g.array(buf, depth)
	default:
		buf.WriteString(`{"a":`)
		g.value(buf, depth+1)
		buf.WriteByte('}')
	}
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}
