package answertmpl_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
)

// fuzzLimit bounds the fuzzed renderings, small enough that templates
// reach it.
const fuzzLimit = 2048

// FuzzCompile checks that any string compiles or is refused with an error
// at an offset inside it, never panicking; that what compiles renders
// within the bound, as valid JSON; and that the string compiles the same
// inside a document, and any document that compiles renders valid JSON.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"", "plain", "{a} }} {", "{{", "}}", "{{}}", "{{ }}", "{{{{seq}}}}",
		"{{args}}", "{{args.name}}", "Hi {{ args.name }}!", "{{args.items[1].id}}", "{{args.items.0.id}}",
		"{{args.a.b}}", "{{args.filter}}", "f={{args.filter}}", "{{args.missing}}", "<{{args.quote}}>",
		"{{state.user.roles[0]}}", "{{state.cart.x}}", "{{state.missing}}",
		"{{now}}", `{{now "+1h"}}`, `{{now "-90m"}}`, "{{uuid}}", "{{seq}}", "#{{seq}}",
		"{{random 1 100}}", "{{random -9223372036854775808 9223372036854775807}}",
		`{{pick "a" "b\"c" "d\\e"}}`, "{{json args.filter}}", "q={{json args.quote}}", "{{json state.user}}",
		`{{"{{"}}`, `a{{"}}"}}b`,
		// error classes
		"{{arg.name}}", "{{Seq}}", "{{city}}", "Hi {{args.name", "{{args.x { }}", "{{seq }x}}",
		"{{random 5 1}}", `{{random "a" 2}}`, "{{random 1}}", `{{now "+1x"}}`, "{{now 5}}",
		"{{pick}}", "{{pick a}}", "{{json seq}}", "{{seq 1}}", "{{uuid.x}}", "{{state}}", "{{args[0]}}",
		"{{args.a..b}}", `{{pick "a\n"}}`, `{{pick "abc}}`, `{{"a" "b"}}`, "{{answer.city}} {{seq}}",
		// documents
		`{"content":[{"type":"text","text":"Hello, {{args.name}}! seq {{seq}}"}]}`,
		`{"n":"{{args.count}}","o":"{{json args}}","k":{"{{seq}}":"\u007b\u007bseq}}"}}`,
		`["{{json args}}","{{json args}}","{{json args}}","{{json args}}"]`,
		"\"\xff{{args.name}}\xfe\"", "{{args.\xff}}",
	} {
		f.Add(s)
	}
	keep := func(name string) bool { return name == "answer" }
	f.Fuzz(func(t *testing.T, s string) {
		for _, opts := range []answertmpl.Options{{}, {Legacy: true}, {Keep: keep}} {
			tmpl, err := opts.Compile(s)
			if err != nil {
				var e *answertmpl.Error
				require.ErrorAs(t, err, &e)
				require.GreaterOrEqual(t, e.Offset, 0)
				require.LessOrEqual(t, e.Offset, len(s))
			} else {
				renderBounded(t, tmpl)
			}
			if !utf8.ValidString(s) {
				continue
			}
			doc, merr := json.Marshal(map[string]string{"text": s})
			require.NoError(t, merr)
			dt, derr := opts.CompileJSON(doc)
			require.Equal(t, err == nil, derr == nil, "%q alone: %v; in a document: %v", s, err, derr)
			if derr == nil {
				renderBounded(t, dt)
			}
		}
		q := answertmpl.AppendQuoted(nil, []byte(s))
		require.True(t, json.Valid(q), "AppendQuoted: %s", q)
		if utf8.ValidString(s) {
			var back string
			require.NoError(t, json.Unmarshal(q, &back))
			require.Equal(t, s, back)
		}
		if tmpl, err := answertmpl.CompileJSON(json.RawMessage(s)); err == nil {
			renderBounded(t, tmpl)
		}
	})
}

// renderBounded renders tmpl with the tests' call under fuzzLimit: valid
// JSON within the bound, or ErrTooLarge.
func renderBounded(t *testing.T, tmpl *answertmpl.Template) {
	t.Helper()
	in := input(t)
	in.Limit = fuzzLimit
	out, err := tmpl.Render(nil, in)
	if err != nil {
		require.ErrorIs(t, err, answertmpl.ErrTooLarge)
		return
	}
	require.LessOrEqual(t, len(out), fuzzLimit)
	require.True(t, json.Valid(out), "invalid JSON: %s", out)
}
