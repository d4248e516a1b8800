package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kaptinlin/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// reference compiles raw as Compile did before the fast path: every value
// goes to the library.
func reference(t testing.TB, raw string) *Schema {
	t.Helper()
	s := mustCompile(t, raw)
	tree := libraryTree(t, raw)
	var doc any
	require.NoError(t, decode([]byte(raw), &doc))
	sizes, _, err := scanPatterns(doc)
	require.NoError(t, err)
	r := newSchema([]byte(raw), tree, nil)
	r.bounded, r.sizes, r.anchors = s.bounded, sizes, s.anchors
	return r
}

// libraryTree is the library's compilation of raw, after the keywords its
// dialect does not define are removed, as Compile does.
func libraryTree(t testing.TB, raw string) *jsonschema.Schema {
	t.Helper()
	var doc any
	require.NoError(t, decode([]byte(raw), &doc))
	dialect, err := documentDialect(doc)
	require.NoError(t, err)
	src, err := ownKeywords(doc, dialect)
	require.NoError(t, err)
	if src == nil {
		src = []byte(raw)
	}
	tree, err := newCompiler().Compile(src)
	require.NoError(t, err)
	return tree
}

// footprintSound checks that Footprint counts a schema as having no tree
// only when it has none.
func footprintSound(t testing.TB, s *Schema, raw string) {
	t.Helper()
	require.GreaterOrEqual(t, Footprint([]byte(raw)), s.Footprint(), "schema %s", raw)
}

// agree checks that s, with its fast path, reports exactly what ref does
// for the JSON text value, decoded both ways, and that the fast path's
// verdict, when it has one, is the library's. It returns how many of the
// two decodings the fast path decided.
func agree(t testing.TB, s, ref *Schema, raw, value string) int {
	t.Helper()
	decided := 0
	values := []any{decodeNumbers(t, value)}
	var v any
	if json.Unmarshal([]byte(value), &v) == nil { // 1e400 is no float64
		values = append(values, v)
	}
	for _, v := range values {
		got := s.fast.check(v)
		if got != undecided {
			decided++
			want := libraryTree(t, raw).ValidateStruct(v).IsValid()
			require.Equal(t, want, got == accepted, "schema %s\nvalue %s (%T numbers)", raw, value, v)
		}
		b1, b2 := regexlimit.NewBudget(), regexlimit.NewBudget()
		require.Equal(t, ref.ValidateWithin(v, &b1), s.ValidateWithin(v, &b2), "schema %s\nvalue %s", raw, value)
		require.Equal(t, b1, b2, "budget after schema %s\nvalue %s", raw, value)
	}
	return decided
}

func TestFastPathEdgeCases(t *testing.T) {
	tests := []struct {
		schema string
		values []string
	}{
		{`{"type":"integer"}`, []string{`1`, `1.0`, `1.5`, `-0`, `-0.0`, `1e300`, `12345678901234567890`, `1.5e1`, `"1"`, `null`, `9007199254740993`}},
		{`{"type":"number","minimum":0.1}`, []string{`0.1`, `0.10000000000000001`, `0.09999999999999999`, `0`, `1e-400`, `1e400`}},
		{`{"type":"number","maximum":5,"exclusiveMinimum":-0}`, []string{`0`, `-0`, `5`, `5.0000000000000001`, `5.000000000000001`, `1e-320`}},
		{`{"type":"integer","multipleOf":3}`, []string{`0`, `3`, `-9`, `4`, `3.0`, `1.5`, `9007199254740993`, `1e20`}},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"number","minimum":1,"exclusiveMinimum":true,"maximum":3,"exclusiveMaximum":false}`,
			[]string{`1`, `1.5`, `3`, `3.1`}},
		{`{"type":"string","minLength":2,"maxLength":3}`, []string{`"é"`, `"éé"`, `"日本語"`, `"日本語x"`, `"😀"`, `"😀😀"`, `""`, `"\u0000\u0000"`}},
		{`{"type":"string","pattern":"^[a-z]+$"}`, []string{`"abc"`, `"ABC"`, `""`, `"é"`, `5`}},
		{`{"enum":[1,"1",null,true,2.5]}`, []string{`1`, `1.0`, `"1"`, `null`, `true`, `false`, `2.5`, `2.50`, `25e-1`, `{}`, `[]`}},
		{`{"type":"array","additionalItems":false,"items":{"type":"integer"}}`, []string{`[]`, `[1,2]`, `[1,"x"]`}},
		{`{"const":null}`, []string{`null`, `0`, `false`, `""`}},
		{`{"const":0}`, []string{`0`, `-0`, `0.0`, `1e-400`, `"0"`}},
		{`{"type":["string","null"]}`, []string{`"x"`, `null`, `1`}},
		{`{"type":["integer","boolean"]}`, []string{`1`, `1.5`, `true`, `"x"`}},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, []string{`{"a":"x"}`, `{"a":"x","b":1}`, `{"b":1}`, `{"a":1,"b":1}`, `[]`}},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
			[]string{`{"a":"x","b":1}`, `{"a":"x","b":1.5}`, `{"a":2}`, `{}`}},
		{`{"type":"object","properties":{"a":true,"b":false},"additionalProperties":false}`, []string{`{"a":1}`, `{"b":1}`, `{"c":1}`, `{}`}},
		{`{"type":"object","minProperties":1,"maxProperties":2}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":2,"c":3}`}},
		{`{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"uniqueItems":true}`,
			[]string{`[]`, `["a"]`, `["a","a"]`, `["a","b","c"]`, `["a",1]`}},
		{`{"type":"array","uniqueItems":true}`, []string{`[1,1.0]`, `[1,"1"]`, `[{"a":1},{"a":1.0}]`, `[[1],[1]]`, `[null,false]`, `[{},[]]`, `[0,-0]`}},
		{`{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"array","items":{"type":"integer","maximum":3}}},"required":["q"]}}}`,
			[]string{`{"p":{"q":[1,2,3]}}`, `{"p":{"q":[1,4]}}`, `{"p":{}}`, `{}`}},
		{`{"title":"t","description":"d","default":1,"examples":[1],"$comment":"c","readOnly":true,"deprecated":true,"format":"email","type":"string"}`,
			[]string{`"x"`, `"a@b.c"`, `1`}},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			require.NotNil(t, s.fast, "the schema should have a fast path")
			require.Nil(t, s.primary, "a fast-path schema keeps no tree")
			footprintSound(t, s, tt.schema)
			ref := reference(t, tt.schema)
			for _, v := range tt.values {
				agree(t, s, ref, tt.schema, v)
			}
		})
	}
}

func TestFastPathNotTaken(t *testing.T) {
	for _, raw := range []string{
		`{"anyOf":[{"type":"string"}]}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`,
		`{"type":"object","patternProperties":{"^a":{"type":"string"}}}`,
		`{"type":"array","items":[{"type":"string"}]}`,
		`{"type":"number","multipleOf":0.5}`,
		`{"type":"number","minimum":12345678901234567891}`,
		`{"enum":[[1],{"a":1}]}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","dependentRequired":{"a":["b"]}}`,
		`{"type":"number","maximum":1e400}`,
		`{"enum":[12345678901234567891]}`,
		`{"type":"object","propertyNames":{"maxLength":3}}`,
		`{"type":"string","contentEncoding":"base64"}`,
	} {
		s := mustCompile(t, raw)
		require.Nil(t, s.fast, raw)
		require.NotNil(t, s.primary, raw)
		require.Equal(t, treeBytes(len(raw)), Footprint([]byte(raw)), raw)
		require.Equal(t, treeBytes(len(raw)), s.Footprint(), raw)
	}
}

// TestFastPathBudget checks that a pattern schema charges the budget as
// before, and refuses an oversized value the same way.
func TestFastPathBudget(t *testing.T) {
	raw := `{"type":"object","properties":{"s":{"type":"string","pattern":"^(a|b|c|d)+$"}},"additionalProperties":{"type":"string","pattern":"x"}}`
	s, ref := mustCompile(t, raw), reference(t, raw)
	require.NotNil(t, s.fast)
	agree(t, s, ref, raw, `{"s":"abcd","t":"x"}`)
	big := strings.Repeat("a", 1<<20)
	agree(t, s, ref, raw, `{"s":"`+big+`"}`)
	agree(t, s, ref, raw, `{"s":"`+big+`","t":"`+big+`"}`)
	b := regexlimit.NewBudget()
	vs := s.ValidateWithin(decodeJSON(t, `{"s":"`+big+`"}`), &b)
	require.Len(t, vs, 1)
	require.Equal(t, "s", vs[0].Field)
	require.True(t, b.Exhausted())
}

// TestFastPathDifferential compares the fast path with the library on
// random schemas of the fast path's subset and random values near them.
func TestFastPathDifferential(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	rng := rand.New(rand.NewPCG(1, 2))
	decided, total, refused, predicted := 0, 0, 0, 0
	for range n {
		g := &gen{rng: rng}
		raw := g.document()
		s, err := Compile([]byte(raw))
		if err != nil {
			// A combination the meta-schema refuses, such as a
			// repeated "enum" member.
			refused++
			continue
		}
		require.NotNil(t, s.fast, "schema %s", raw)
		footprintSound(t, s, raw)
		if Footprint([]byte(raw)) == s.Footprint() {
			predicted++
		}
		ref := reference(t, raw)
		for range 12 {
			value := g.value(g.root, 0)
			decided += agree(t, s, ref, raw, value)
			total += 2
		}
	}
	t.Logf("the fast path decided %d of %d values; %d of %d schemas were refused", decided, total, refused, n)
	require.Greater(t, decided, total/2)
	require.Less(t, refused, n/10)
	t.Logf("Footprint foresaw the fast path of %d schemas", predicted)
	require.Greater(t, predicted, (n-refused)*9/10)
}

func FuzzFastPath(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(99))
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64) {
		g := &gen{rng: rand.New(rand.NewPCG(seed1, seed2))}
		raw := g.document()
		s, err := Compile([]byte(raw))
		if err != nil {
			return
		}
		require.NotNil(t, s.fast, "schema %s", raw)
		footprintSound(t, s, raw)
		ref := reference(t, raw)
		for range 8 {
			agree(t, s, ref, raw, g.value(g.root, 0))
		}
	})
}

// gen writes random schemas of the fast path's subset, keeping each as a
// map so values can be generated near it.
type gen struct {
	rng  *rand.Rand
	root map[string]any
}

var (
	genNames   = []string{"a", "b", "é", "c d", "x"}
	genNumbers = []any{0, 1, -1, 2.5, 0.1, 3, 100, 1e20, json.Number("-0"), json.Number("1.0"), 7}
	genStrings = []string{"", "a", "ab", "é", "日本", "😀", "abc", "A1", "zz"}
	genPattern = []string{"^[a-z]+$", "b", "^.{2}$", "[0-9]", "^(a|é)*$"}
	dialects   = []string{"", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema",
		"https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-06/schema#", "http://json-schema.org/draft-04/schema#"}
)

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) document() string {
	g.root = g.schema(0)
	d := dialects[g.pick(len(dialects))]
	if d != "" {
		g.root["$schema"] = d
	}
	draft4 := strings.Contains(d, "draft-04")
	if draft4 {
		dropNumericExclusives(g.root, g)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g.root); err != nil {
		panic(err)
	}
	return strings.TrimSpace(buf.String())
}

// dropNumericExclusives makes exclusive bounds Draft 4's booleans.
func dropNumericExclusives(s map[string]any, g *gen) {
	for _, kw := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		if bound, ok := s[kw]; ok {
			s[kw] = g.chance(0.5)
			if base := "m" + strings.TrimPrefix(kw, "exclusiveM"); s[base] == nil {
				s[base] = bound
			}
		}
	}
	for _, kw := range []string{"items", "additionalProperties"} {
		if sub, ok := s[kw].(map[string]any); ok {
			dropNumericExclusives(sub, g)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if sub, ok := p.(map[string]any); ok {
				dropNumericExclusives(sub, g)
			}
		}
	}
}

func (g *gen) number() any { return genNumbers[g.pick(len(genNumbers))] }

func (g *gen) scalar() any {
	switch g.pick(5) {
	case 0:
		return nil
	case 1:
		return g.chance(0.5)
	case 2:
		return genStrings[g.pick(len(genStrings))]
	}
	return g.number()
}

func (g *gen) schema(depth int) map[string]any {
	s := map[string]any{}
	if g.chance(0.2) {
		s["description"] = "d"
	}
	kinds := []string{"string", "integer", "number", "boolean", "null", "object", "array", "any"}
	if depth > 2 {
		kinds = kinds[:5]
	}
	kind := kinds[g.pick(len(kinds))]
	if depth == 0 {
		kind = "object"
	}
	if kind != "any" {
		if g.chance(0.2) {
			other := kinds[g.pick(5)]
			if other != kind {
				s["type"] = []string{kind, other}
			} else {
				s["type"] = kind
			}
		} else {
			s["type"] = kind
		}
	}
	if g.chance(0.15) {
		enum := []any{}
		for range g.pick(4) + 1 {
			v := g.scalar()
			if !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
				enum = append(enum, v)
			}
		}
		s["enum"] = enum
	}
	if g.chance(0.05) {
		s["const"] = g.scalar()
	}
	switch kind {
	case "integer", "number", "any":
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if g.chance(0.3) {
				s[kw] = g.number()
			}
		}
		if g.chance(0.15) {
			s["multipleOf"] = []int{1, 2, 3, 7}[g.pick(4)]
		}
	}
	switch kind {
	case "string", "any":
		if g.chance(0.4) {
			s["minLength"] = g.pick(3)
		}
		if g.chance(0.4) {
			s["maxLength"] = g.pick(4)
		}
		if g.chance(0.3) {
			s["pattern"] = genPattern[g.pick(len(genPattern))]
		}
		if g.chance(0.2) {
			s["format"] = []string{"email", "date", "uri", "made-up"}[g.pick(4)]
		}
	}
	if kind == "object" || (kind == "any" && g.chance(0.3)) {
		props := map[string]any{}
		for range g.pick(4) {
			name := genNames[g.pick(len(genNames))]
			if g.chance(0.1) {
				props[name] = g.chance(0.5)
			} else {
				props[name] = g.schema(depth + 1)
			}
		}
		if len(props) > 0 || g.chance(0.3) {
			s["properties"] = props
		}
		if g.chance(0.5) {
			var req []string
			for range g.pick(3) + 1 {
				if name := genNames[g.pick(len(genNames))]; !slices.Contains(req, name) {
					req = append(req, name)
				}
			}
			s["required"] = req
		}
		switch g.pick(4) {
		case 0:
			s["additionalProperties"] = false
		case 1:
			s["additionalProperties"] = g.schema(depth + 1)
		case 2:
			s["additionalProperties"] = true
		}
		if g.chance(0.1) {
			s["minProperties"] = g.pick(2)
		}
		if g.chance(0.1) {
			s["maxProperties"] = g.pick(3) + 1
		}
	}
	if kind == "array" || (kind == "any" && g.chance(0.3)) {
		if g.chance(0.8) {
			s["items"] = g.schema(depth + 1)
		}
		if g.chance(0.3) {
			s["minItems"] = g.pick(2)
		}
		if g.chance(0.3) {
			s["maxItems"] = g.pick(3) + 1
		}
		if g.chance(0.3) {
			s["uniqueItems"] = true
		}
	}
	return s
}

// value writes a JSON value near schema s: often valid, often just off.
func (g *gen) value(s map[string]any, depth int) string {
	if s == nil || g.chance(0.1) || depth > 5 {
		return g.anyValue(depth)
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && g.chance(0.6) {
		return g.literal(enum[g.pick(len(enum))])
	}
	kind, _ := s["type"].(string)
	if kinds, ok := s["type"].([]string); ok {
		kind = kinds[g.pick(len(kinds))]
	}
	switch kind {
	case "object":
		var parts []string
		props, _ := s["properties"].(map[string]any)
		for _, name := range genNames {
			if g.chance(0.6) {
				sub, _ := props[name].(map[string]any)
				if sub == nil {
					sub, _ = s["additionalProperties"].(map[string]any)
				}
				parts = append(parts, g.literal(name)+":"+g.value(sub, depth+1))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	case "array":
		items, _ := s["items"].(map[string]any)
		var parts []string
		for range g.pick(4) {
			if len(parts) > 0 && g.chance(0.2) {
				parts = append(parts, parts[0])
				continue
			}
			parts = append(parts, g.value(items, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case "string":
		return g.literal(genStrings[g.pick(len(genStrings))])
	case "integer", "number":
		return g.numberText()
	}
	return g.anyValue(depth)
}

var genNumberTexts = []string{"0", "-0", "1", "1.0", "1.5", "-1", "2.5", "0.1", "0.10000000000000001", "3", "6", "7", "14", "21",
	"99.99", "100", "100.0", "1e20", "1e2", "12345678901234567890", "9007199254740993", "1e400", "-1e-400", "7.000000000000001"}

func (g *gen) numberText() string { return genNumberTexts[g.pick(len(genNumberTexts))] }

func (g *gen) anyValue(depth int) string {
	switch g.pick(7) {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[g.pick(2)]
	case 2:
		return g.literal(genStrings[g.pick(len(genStrings))])
	case 3:
		if depth < 4 {
			return "[" + g.anyValue(depth+1) + "]"
		}
	case 4:
		if depth < 4 {
			return `{"a":` + g.anyValue(depth+1) + "}"
		}
	}
	return g.numberText()
}

func (g *gen) literal(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSpace(buf.String())
}

func TestFastPathGoValues(t *testing.T) {
	raw := `{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"}}}`
	s := mustCompile(t, raw)
	require.NotNil(t, s.fast)
	for _, v := range []any{math.NaN(), math.Inf(1), 3, int64(3), float32(1.5), []string{"a"}} {
		obj := map[string]any{"n": v, "i": v}
		require.Equal(t, undecided, s.fast.check(obj), "%T", v)
		require.Equal(t, reference(t, raw).Validate(obj), s.Validate(obj), "%T", v)
	}
}

func TestFastPathAllocatesNothing(t *testing.T) {
	for _, c := range typicalSchemas {
		s := mustCompile(t, c.schema, RequireObject)
		v := decodeJSON(t, c.valid)
		b := regexlimit.NewBudget()
		require.Empty(t, s.ValidateWithin(v, &b))
		allocs := testing.AllocsPerRun(100, func() {
			b = regexlimit.NewBudget()
			s.ValidateWithin(v, &b)
		})
		require.Zero(t, allocs, "%s: ValidateWithin", c.name)
		require.Zero(t, testing.AllocsPerRun(100, func() { s.Validate(v) }), "%s: Validate", c.name)
	}
}
