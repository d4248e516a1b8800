package yamljson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// aliasedString is a string of size bytes anchored once and aliased n
// times: a body of about size + 5n bytes that expands to n*size.
func aliasedString(size, n int) string {
	var b strings.Builder
	b.WriteString("name: &s " + strings.Repeat("x", size) + "\ntools:\n")
	for range n {
		b.WriteString("- *s\n")
	}
	return b.String()
}

// laughs is the "billion laughs": levels of anchors, each a list of ten
// aliases of the one before, expanding to 10^levels strings.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 lol\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func convertError(t *testing.T, src string, opts yamljson.Options) *yamljson.Error {
	t.Helper()
	start := time.Now()
	out, err := yamljson.Convert([]byte(src), opts)
	// Milliseconds in a normal build; parsing the body takes most of it,
	// and the race detector slows that part tenfold.
	require.Less(t, time.Since(start), 3*time.Second, "refused in milliseconds, not after the expansion")
	require.Error(t, err)
	require.Nil(t, out)
	var e *yamljson.Error
	require.True(t, errors.As(err, &e), "%T %v", err, err)
	return e
}

func TestConvertRefusesAliasCycles(t *testing.T) {
	for name, src := range map[string]string{
		"the 67-byte document":   "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools: &t [ *t ]\n",
		"a mapping":              "a: &t {b: {c: *t}}\n",
		"deeper in a sequence":   "a: &t [1, [2, {x: [*t]}]]\n",
		"through another anchor": "a: &t [&u [*t]]\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := convertError(t, src, yamljson.Options{})
			require.Equal(t, "anchor 't' contains itself", e.Reason)
			require.False(t, e.Syntax)
			require.Positive(t, e.Line)
		})
	}
}

func TestConvertBoundsExpansionByBytes(t *testing.T) {
	const limit = 1 << 20
	for name, src := range map[string]string{
		"a 100 KB string aliased 2,000 times": aliasedString(100_000, 2_000),
		"50,000 aliases of a 4 KB string":     aliasedString(4_000, 50_000),
		"billion laughs":                      laughs(9),
		"laughs in mappings":                  "a: &a {k: [1, 2, 3, 4, 5, 6, 7, 8, 9]}\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
	} {
		t.Run(name, func(t *testing.T) {
			e := convertError(t, src, yamljson.Options{Limit: limit})
			require.True(t, e.TooLarge)
			require.Contains(t, e.Reason, "more than 1048576 bytes of JSON")
		})
	}

	// Within the limit, aliases are expanded.
	out, err := yamljson.Convert([]byte(aliasedString(1_000, 100)), yamljson.Options{Limit: limit})
	require.NoError(t, err)
	var v struct{ Tools []string }
	require.NoError(t, json.Unmarshal(out, &v))
	require.Len(t, v.Tools, 100)
	require.Len(t, v.Tools[99], 1_000)

	// The limit is of the JSON: the same document passes a larger one.
	_, err = yamljson.Convert([]byte(aliasedString(1_000, 100)), yamljson.Options{Limit: 50_000})
	require.Error(t, err)
}

func TestConvertRefusesDeepNesting(t *testing.T) {
	// 1,000 levels written out, each level aliased 20 times deeper.
	var b strings.Builder
	b.WriteString("a0: &a0 " + strings.Repeat("[", 999) + strings.Repeat("]", 999) + "\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "a%d: &a%d %s*a%d%s\n", i, i, strings.Repeat("[", 999), i-1, strings.Repeat("]", 999))
	}
	e := convertError(t, b.String(), yamljson.Options{})
	require.Contains(t, e.Reason, "nest more than 10000 levels")
}

func TestConvert(t *testing.T) {
	out, err := yamljson.Convert([]byte("a: 12345678901234567890123\nb: 1.50\nc: 2024-11-05\nd: 0x1F\ne: ~\nf: yes\ng: true\nh: '007'\ni: &x {k: 1}\nj: *x\nk: [*x, *x]\n"), yamljson.Options{})
	require.NoError(t, err)
	require.Equal(t, `{"a":12345678901234567890123,"b":1.50,"c":"2024-11-05","d":31,"e":null,"f":"yes","g":true,"h":"007","i":{"k":1},"j":{"k":1},"k":[{"k":1},{"k":1}]}`, string(out))

	for _, empty := range []string{"", "# a comment\n", "\n\n"} {
		out, err = yamljson.Convert([]byte(empty), yamljson.Options{})
		require.NoError(t, err)
		require.Equal(t, "null", string(out))
	}

	// Keys of other scalar types, as OpenAPI responses have them.
	_, err = yamljson.Convert([]byte("200: ok\n"), yamljson.Options{})
	require.ErrorContains(t, err, "mapping keys must be strings")
	out, err = yamljson.Convert([]byte("responses:\n  200: ok\n  default: no\n"), yamljson.Options{ScalarKeys: true})
	require.NoError(t, err)
	require.Equal(t, `{"responses":{"200":"ok","default":"no"}}`, string(out))
}

// TestConvertErrorsQuoteNothing: a document's content (here a file a
// symbolic link led to) never appears in an error; the line and the
// field path do.
func TestConvertErrorsQuoteNothing(t *testing.T) {
	const secret = "s3cr3tHASH"
	for _, tc := range []struct {
		src, path string
		line      int
	}{
		{"root:$6$" + secret + ":19000:0:99999:7:::\nbin: [" + secret + "\n", "", 0},
		{"a:\n  b: !" + secret + " x\n", "a.b", 2},
		{"a: !!int " + secret + "\n", "a", 1},
		{"a: !!bool " + secret + "\n", "a", 1},
		{"a: !!float " + secret + "\n", "a", 1},
		{"a: 1\n" + secret + ": [\n", "", 0},
		{"a: 1\n---\n" + secret + ": 2\n", "", 2},
		{"a: *" + secret + "\n", "", 0},
		{"a: &" + secret + " [*" + secret + "]\n", "a[0]", 1},
		{"x: 1\nx: " + secret + "\n", "x", 2},
		{"? [" + secret + "]\n: 1\n", "", 1},
	} {
		_, err := yamljson.Convert([]byte(tc.src), yamljson.Options{})
		var e *yamljson.Error
		require.True(t, errors.As(err, &e), "%q: %v", tc.src, err)
		if strings.Contains(tc.src, "&"+secret) {
			// The one name an error gives: the anchor of a cycle.
			require.Equal(t, "anchor '"+secret+"' contains itself", e.Reason)
			continue
		}
		require.NotContains(t, err.Error(), secret, "%q", tc.src)
		require.NotContains(t, err.Error(), "19000", "%q", tc.src)
		require.Equal(t, tc.path, e.Path, "%q: %v", tc.src, err)
		if tc.line > 0 {
			require.Equal(t, tc.line, e.Line, "%q: %v", tc.src, err)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	require.NoError(t, yamljson.CheckJSON([]byte(`{"a":[{"x":1},{"x":2}],"b":{"x":1}}`)))

	err := yamljson.CheckJSON([]byte("{\"name\": \"a\",\n \"tools\": [{\"name\": \"t\",\n \"name\": \"s3cr3t\"}]}"))
	var e *yamljson.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, "tools[0].name", e.Path)
	require.Equal(t, 3, e.Line)
	require.False(t, e.Syntax)
	require.NotContains(t, err.Error(), "s3cr3t")

	for src, want := range map[string]string{
		`{"a": s3cr3t}`:            "line 1, column 7: invalid character looking for beginning of value",
		`{"a": 1} {"s3cr3t"`:       "line 1: unexpected data after the JSON value",
		`{"a": [1, 2`:              "the JSON text ends early",
		"{\"a\":\n\"s3cr3t\x01\"}": "line 2, column 8: invalid character in string literal",
	} {
		err := yamljson.CheckJSON([]byte(src))
		require.True(t, errors.As(err, &e), "%q: %v", src, err)
		require.True(t, e.Syntax)
		require.Equal(t, want, err.Error(), "%q", src)
	}
}

// TestCheckJSONBoundsDepth: a megabyte of brackets is refused at 10,000
// levels, without recursing a million times.
func TestCheckJSONBoundsDepth(t *testing.T) {
	start := time.Now()
	err := yamljson.CheckJSON([]byte(strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20)))
	require.ErrorContains(t, err, "values nest more than 10000 levels deep")
	require.Less(t, time.Since(start), time.Second)
	require.NoError(t, yamljson.CheckJSON([]byte(`{"a":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`)))
}
