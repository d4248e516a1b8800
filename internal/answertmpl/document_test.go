package answertmpl_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestCompileJSONRenders(t *testing.T) {
	for _, tt := range []struct {
		name, doc, want string
	}{
		{"text answer",
			`{"content":[{"type":"text","text":"Hello, {{args.name}}! seq {{seq}}"}]}`,
			`{"content":[{"type":"text","text":"Hello, Ada! seq 7"}]}`},
		{"typed values",
			`{"n": "{{args.count}}", "f": "{{args.filter}}", "m": "{{args.missing}}", "s": "{{seq}}"}`,
			`{"n": 3, "f": {"a":1,"b":[true,null]}, "m": null, "s": 7}`},
		{"member names stay literal",
			`{"{{args.name}}":"{{args.name}}"}`,
			`{"{{args.name}}":"Ada"}`},
		{"white space and other values kept",
			"[ 1 , true , null , \"{{seq}}\" ,\n {\"a\" : \"x\"} ]",
			"[ 1 , true , null , 7 ,\n {\"a\" : \"x\"} ]"},
		{"escaped braces are braces",
			`{"t":"\u007b\u007bseq}}"}`,
			`{"t":7}`},
		{"escapes in a templated string are rewritten",
			`{"t":"\u0041 \"{{args.name}}\" \/"}`,
			`{"t":"A \"Ada\" /"}`},
		{"a document that is one string",
			`"{{args.items}}"`,
			`[{"id":"x1"},{"id":"x2"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := answertmpl.CompileJSON(json.RawMessage(tt.doc))
			require.NoError(t, err)
			require.False(t, tmpl.Constant())
			out, err := tmpl.Render(nil, input(t))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(out))
			require.True(t, json.Valid(out))
		})
	}
}

func TestCompileJSONStringLiteralIsConstant(t *testing.T) {
	tmpl, err := answertmpl.CompileJSON(json.RawMessage(`{"t":"{{\"{{\"}}x"}`))
	require.NoError(t, err)
	require.True(t, tmpl.Constant())
	out, err := tmpl.Render(nil, nil)
	require.NoError(t, err)
	require.Equal(t, `{"t":"{{x"}`, string(out))
}

func TestCompileJSONConstantRendersTheOriginalBytes(t *testing.T) {
	for _, doc := range []string{
		`{"content":[{"type":"text","text":"sunny"}]}`,
		`{"text":"{ not a placeholder }"}`,
		`{"{{args.name}}": 1}`,
		`42`,
	} {
		raw := json.RawMessage(doc)
		tmpl, err := answertmpl.CompileJSON(raw)
		require.NoError(t, err)
		require.True(t, tmpl.Constant(), doc)
		out, err := tmpl.Render(nil, input(t))
		require.NoError(t, err)
		require.Equal(t, doc, string(out))
		require.Same(t, &raw[0], &out[0], "the original bytes, not a copy")
		in := input(t)
		allocs := testing.AllocsPerRun(100, func() {
			out, _ = tmpl.Render(nil, in)
		})
		require.Zero(t, allocs)

		// Appending to the result copies: the template is unchanged.
		_ = append(out, 'x')
		again, err := tmpl.Render(nil, in)
		require.NoError(t, err)
		require.Equal(t, doc, string(again))

		prefixed, err := tmpl.Render([]byte("> "), in)
		require.NoError(t, err)
		require.Equal(t, "> "+doc, string(prefixed))
	}
}

func TestRenderAppendsToDst(t *testing.T) {
	tmpl, err := answertmpl.CompileJSON(json.RawMessage(`{"s":"{{seq}}"}`))
	require.NoError(t, err)
	out, err := tmpl.Render([]byte("data: "), input(t))
	require.NoError(t, err)
	require.Equal(t, `data: {"s":7}`, string(out))
}

func TestCompileJSONRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []answertmpl.Error
	}{
		{"unknown name at its path",
			`{"content":[{"type":"text","text":"Hi {{arg.name}}"}]}`,
			[]answertmpl.Error{{Path: "content[0].text", Offset: 5, Message: `unknown name "arg" (did you mean args?)`}}},
		{"every string with a problem",
			`{"a":["{{seq}}","{{random 5 1}}"],"b":{"c":"{{now \"+1x\"}}"}}`,
			[]answertmpl.Error{
				{Path: "a[1]", Offset: 9, Message: "random: the minimum 5 is greater than the maximum 1"},
				{Path: "b.c", Offset: 6, Message: `now: invalid duration "+1x": want a Go duration such as "+1h" or "-30m"`},
			}},
		{"the document itself",
			`"{{x"`,
			[]answertmpl.Error{{Offset: 0, Message: "unclosed {{: want }} after the expression"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := answertmpl.CompileJSON(json.RawMessage(tt.doc))
			var errs answertmpl.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, len(tt.want))
			for i := range tt.want {
				require.Equal(t, tt.want[i], *errs[i])
			}
		})
	}
	_, err := answertmpl.CompileJSON(json.RawMessage(`{"a":`))
	require.EqualError(t, err, "offset 0: not valid JSON")

	_, err = answertmpl.CompileJSON(json.RawMessage(`{"content":[{"text":"{{arg}}"}]}`))
	require.EqualError(t, err, `content[0].text: offset 2: unknown name "arg" (did you mean args?)`)
}

func TestCompileJSONBoundsItsErrors(t *testing.T) {
	doc := "[" + strings.Repeat(`"{{x}}",`, 50) + `"{{x}}"]`
	_, err := answertmpl.CompileJSON(json.RawMessage(doc))
	var errs answertmpl.Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 20)
}

func TestLegacyOptions(t *testing.T) {
	keepAnswers := func(name string) bool { return name == "answer" || name == "seq" }
	for _, tt := range []struct {
		name string
		opts answertmpl.Options
		doc  string
		want string // the rendering, or the error
		err  bool
	}{
		{"a string without helpers stays as written",
			answertmpl.Options{Legacy: true},
			`{"text":"Hello {{ name }} from {{answer.city}}"}`,
			`{"text":"Hello {{ name }} from {{answer.city}}"}`, false},
		{"a string with helpers is strict",
			answertmpl.Options{Legacy: true},
			`{"text":"{{name}} #{{seq}}"}`,
			`text: offset 2: unknown name "name": want one of args, state, now, uuid, seq, random, pick, json`, true},
		{"a near miss is refused even without helpers",
			answertmpl.Options{Legacy: true},
			`{"text":"Hi {{arg.name}}"}`,
			`text: offset 5: unknown name "arg" (did you mean args?)`, true},
		{"a name in another case is a near miss",
			answertmpl.Options{Legacy: true},
			`{"text":"{{ UUID }}"}`,
			`text: offset 3: unknown name "UUID" (did you mean uuid?)`, true},
		{"a short word near a short helper stays",
			answertmpl.Options{Legacy: true},
			`{"text":"{{new}} {{sea}}"}`,
			`{"text":"{{new}} {{sea}}"}`, false},
		{"kept names stay as written beside helpers",
			answertmpl.Options{Keep: keepAnswers},
			`{"text":"{{answer.city}} {{ answer }} {{args.name}}"}`,
			`{"text":"{{answer.city}} {{ answer }} Ada"}`, false},
		{"a kept name wins over a helper",
			answertmpl.Options{Keep: keepAnswers},
			`{"text":"{{seq}}","n":"{{args.count}}"}`,
			`{"text":"{{seq}}","n":3}`, false},
		{"a kept near miss is no near miss",
			answertmpl.Options{Legacy: true, Keep: func(n string) bool { return n == "arg" }},
			`{"text":"{{arg.x}}"}`,
			`{"text":"{{arg.x}}"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := tt.opts.CompileJSON(json.RawMessage(tt.doc))
			if tt.err {
				require.EqualError(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			out, err := tmpl.Render(nil, input(t))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(out))
		})
	}
}

func TestRenderIsBounded(t *testing.T) {
	tmpl, err := answertmpl.CompileJSON(json.RawMessage(`["{{json args}}","{{json args}}","{{json args}}"]`))
	require.NoError(t, err)
	in := input(t)
	out, err := tmpl.Render(nil, in)
	require.NoError(t, err)
	n := len(out)

	in.Limit = n
	_, err = tmpl.Render(nil, in)
	require.NoError(t, err, "exactly the limit")

	in.Limit = n - 1
	dst := []byte("keep")
	out, err = tmpl.Render(dst, in)
	require.ErrorIs(t, err, answertmpl.ErrTooLarge)
	require.EqualError(t, err, "the rendered answer exceeds the size limit of "+itoa(n-1)+" bytes")
	require.Equal(t, "keep", string(out), "dst as it was")

	constant, err := answertmpl.CompileJSON(json.RawMessage(`{"text":"0123456789"}`))
	require.NoError(t, err)
	in.Limit = 10
	_, err = constant.Render(nil, in)
	require.ErrorIs(t, err, answertmpl.ErrTooLarge)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCompileJSONTypedOnlyWhereAsked: with Options.Typed, a string that
// is exactly one placeholder renders its typed value only at the paths
// Typed names, and text elsewhere.
func TestCompileJSONTypedOnlyWhereAsked(t *testing.T) {
	opts := answertmpl.Options{Typed: func(path string) bool { return strings.HasPrefix(path, "structuredContent") }}
	tmpl, err := opts.CompileJSON(json.RawMessage(`{"content":[{"type":"text","text":"{{args.n}}"}],"structuredContent":{"n":"{{args.n}}"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render(nil, &answertmpl.Input{Args: map[string]any{"n": 3.0}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"3"}],"structuredContent":{"n":3}}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
