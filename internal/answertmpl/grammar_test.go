package answertmpl_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
)

func TestCompileRenders(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"plain text", "hello", `"hello"`},
		{"plain text with escapes", "a\"b\n", `"a\"b\n"`},
		{"single braces stay", "{a} }} {", `"{a} }} {"`},
		{"argument string", "{{args.name}}", `"Ada"`},
		{"argument number typed", "{{args.count}}", `3`},
		{"white space inside braces", "{{  args.count\t}}", `3`},
		{"argument bool typed", "{{args.flag}}", `true`},
		{"argument object typed, members sorted", "{{args.filter}}", `{"a":1,"b":[true,null]}`},
		{"argument present as null", "{{args.nothing}}", `null`},
		{"argument absent is null", "{{args.missing}}", `null`},
		{"large integer kept exactly", "{{args.big}}", `9007199254740993`},
		{"float", "{{args.ratio}}", `0.5`},
		{"all arguments", "{{args}}", `{"a":{"b":"nested"},"a.b":"dotted","big":9007199254740993,"count":3,"filter":{"a":1,"b":[true,null]},"flag":true,"items":[{"id":"x1"},{"id":"x2"}],"name":"Ada","nothing":null,"quote":"say \"hi\"\n\\ok","ratio":0.5}`},
		{"bracketed index", "{{args.items[1].id}}", `"x2"`},
		{"dotted index", "{{args.items.0.id}}", `"x1"`},
		{"index past the end is absent", "{{args.items[5].id}}", `null`},
		{"member named like the whole path wins", "{{args.a.b}}", `"dotted"`},
		{"text around an argument", "Hello, {{args.name}}!", `"Hello, Ada!"`},
		{"number in text", "n={{args.count}}", `"n=3"`},
		{"object in text is compact JSON", "f={{args.filter}}", `"f={\"a\":1,\"b\":[true,null]}"`},
		{"null in text", "[{{args.nothing}}]", `"[null]"`},
		{"absent in text is empty", "x{{args.missing}}y", `"xy"`},
		{"string in text is escaped", "<{{args.quote}}>", `"<say \"hi\"\n\\ok>"`},
		{"string whole is escaped", "{{args.quote}}", `"say \"hi\"\n\\ok"`},
		{"space around makes text", " {{args.count}}", `" 3"`},
		{"two placeholders make text", "{{args.count}}{{seq}}", `"37"`},
		{"state value", "{{state.greet}}", `"hello"`},
		{"state object", "{{state.user}}", `{"name":"Grace","roles":["admin"]}`},
		{"state path", "{{state.user.roles[0]}}", `"admin"`},
		{"state key named like the whole path wins", "{{state.cart.x}}", `"whole key"`},
		{"state nested", "{{state.cart.items.0.sku}}", `"A-1"`},
		{"state absent is null", "{{state.missing}}", `null`},
		{"state absent in text is empty", "<{{state.missing.x}}>", `"<>"`},
		{"now in UTC", "{{now}}", `"2026-01-02T02:04:05Z"`},
		{"now plus an hour", `{{now "+1h"}}`, `"2026-01-02T03:04:05Z"`},
		{"now minus", `at {{ now "-90m" }}`, `"at 2026-01-02T00:34:05Z"`},
		{"now unsigned duration", `{{now "2h30m"}}`, `"2026-01-02T04:34:05Z"`},
		{"seq typed", "{{seq}}", `7`},
		{"seq in text", "#{{seq}}", `"#7"`},
		{"random of one value", "{{random 5 5}}", `5`},
		{"random negative", "{{random -3 -3}}", `-3`},
		{"random in text", "r{{random +2 2}}", `"r2"`},
		{"pick of one", `{{pick "only"}}`, `"only"`},
		{"pick with escapes", `{{pick "a\"b\\c"}}`, `"a\"b\\c"`},
		{"pick in text", `[{{pick "x"}}]`, `"[x]"`},
		{"json of an object", "{{json args.filter}}", `"{\"a\":1,\"b\":[true,null]}"`},
		{"json of a string", "{{json args.name}}", `"\"Ada\""`},
		{"json of an absent value", "{{json args.missing}}", `"null"`},
		{"json in text", "q={{json args.quote}}", `"q=\"say \\\"hi\\\"\\n\\\\ok\""`},
		{"json of state", "{{json state.greet}}", `"\"hello\""`},
		{"string literal", `{{"{{"}}`, `"{{"`},
		{"string literal in text", `a{{"}}"}}b`, `"a}}b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render(t, tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"unknown name with a suggestion", "{{arg.name}}", `offset 2: unknown name "arg" (did you mean args?)`},
		{"unknown name in text", "Hello {{arg}}", `offset 8: unknown name "arg" (did you mean args?)`},
		{"unknown name in another case", "{{Seq}}", `offset 2: unknown name "Seq" (did you mean seq?)`},
		{"alias", "{{arguments.x}}", `offset 2: unknown name "arguments" (did you mean args?)`},
		{"unknown name", "{{ city }}", `offset 3: unknown name "city": want one of args, state, now, uuid, seq, random, pick, json`},
		{"unclosed braces", "Hi {{args.name", `offset 3: unclosed {{: want }} after the expression`},
		{"unclosed after a literal", `{{pick "a"`, `offset 0: unclosed {{: want }} after the expression`},
		{"empty placeholder", "x{{ }}", `offset 1: empty placeholder`},
		{"brace inside", "{{args.x { }}", `offset 9: unexpected '{' in a placeholder`},
		{"single closing brace inside", "{{seq }x}}", `offset 6: unexpected '}' in a placeholder`},
		{"random reversed", "{{random 5 1}}", `offset 9: random: the minimum 5 is greater than the maximum 1`},
		{"random of a string", `{{random "a" 2}}`, `offset 9: random takes integers: "a" is not one`},
		{"random of a fraction", `{{random 1 2.5}}`, `offset 11: random takes integers: "2.5" is not one`},
		{"random of one bound", "{{random 1}}", `offset 2: random takes two integers: random MIN MAX`},
		{"random of three", "{{random 1 2 3}}", `offset 13: random takes two integers: random MIN MAX`},
		{"now bad unit", `{{now "+1x"}}`, `offset 6: now: invalid duration "+1x": want a Go duration such as "+1h" or "-30m"`},
		{"now unquoted", `{{now 5}}`, `offset 6: now takes a quoted duration: now "+1h"`},
		{"now two", `{{now "1h" "2h"}}`, `offset 11: now takes at most one duration: now "+1h"`},
		{"pick nothing", "{{pick}}", `offset 2: pick takes one or more string literals: pick "a" "b"`},
		{"pick unquoted", `{{pick "a" b}}`, `offset 11: pick takes string literals: b is not quoted`},
		{"json of a helper", "{{json seq}}", `offset 7: json takes one value: json args.PATH or json state.KEY`},
		{"json of nothing", "{{json}}", `offset 2: json takes one value: json args.PATH or json state.KEY`},
		{"json of a path error", "{{json args..x}}", `offset 12: path ".x" must start with a key`},
		{"seq with an argument", "{{seq 1}}", `offset 6: seq takes no arguments`},
		{"uuid with members", "{{uuid.x}}", `offset 6: uuid has no members: write {{uuid}}`},
		{"args with an argument", `{{args.x "y"}}`, `offset 9: args takes no arguments`},
		{"state without a key", "{{state}}", `offset 2: state needs a key: {{state.KEY}}`},
		{"args indexed", "{{args[0]}}", `offset 6: args is an object: write args.NAME`},
		{"bad path", "{{args.a..b}}", `offset 7: path "a..b" has an empty key at offset 2`},
		{"bad index", "{{args.a[01]}}", `offset 7: path "a[01]" has an invalid array index "01" at offset 1: want a non-negative integer without leading zeros`},
		{"unknown escape", `{{pick "a\n"}}`, `offset 9: unknown escape in a string literal: only \" and \\ are allowed`},
		{"unclosed literal", `{{pick "abc}}`, `offset 7: unclosed string literal`},
		{"literal not alone", `{{"a" "b"}}`, `offset 6: a string literal stands alone: {{"text"}}`},
		{"second placeholder broken", "{{seq}} {{sq}}", `offset 10: unknown name "sq" (did you mean seq?)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(t, tt.in)
			require.EqualError(t, err, tt.want)
			var e *answertmpl.Error
			require.ErrorAs(t, err, &e)
			require.Contains(t, tt.want, "offset ")
		})
	}
}

func TestRenderRandomRepeatsWithTheSeed(t *testing.T) {
	tmpl, err := answertmpl.Compile(`{{uuid}} {{random 1 1000000}} {{pick "a" "b" "c" "d"}}`)
	require.NoError(t, err)
	require.True(t, tmpl.UsesRandom())
	first := func(seed int64) string {
		in := input(t)
		in.Rand = answertmpl.NewRand(seed)
		out, err := tmpl.Render(nil, in)
		require.NoError(t, err)
		return string(out)
	}
	require.Equal(t, first(42), first(42))
	require.NotEqual(t, first(42), first(43))
}

func TestRenderUUIDIsVersion4(t *testing.T) {
	tmpl, err := answertmpl.Compile("{{uuid}}")
	require.NoError(t, err)
	v4 := regexp.MustCompile(`^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$`)
	seen := map[string]bool{}
	in := input(t)
	for range 100 {
		out, err := tmpl.Render(nil, in)
		require.NoError(t, err)
		require.Regexp(t, v4, string(out))
		seen[string(out)] = true
	}
	require.Len(t, seen, 100)
	in.Rand = nil // the global source
	out, err := tmpl.Render(nil, in)
	require.NoError(t, err)
	require.Regexp(t, v4, string(out))
}

func TestRenderRandomStaysInItsBounds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		lo, hi int64
		expr   string
	}{
		{"small", 1, 3, "{{random 1 3}}"},
		{"negative", -2, 0, "{{random -2 0}}"},
		{"whole int64 range", -9223372036854775808, 9223372036854775807, "{{random -9223372036854775808 9223372036854775807}}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := answertmpl.Compile(tt.expr)
			require.NoError(t, err)
			in := input(t)
			seen := map[int64]bool{}
			for range 300 {
				out, err := tmpl.Render(nil, in)
				require.NoError(t, err)
				var n int64
				require.NoError(t, jsonUnmarshal(out, &n))
				require.GreaterOrEqual(t, n, tt.lo)
				require.LessOrEqual(t, n, tt.hi)
				seen[n] = true
			}
			if tt.hi-tt.lo >= 0 && tt.hi-tt.lo < 10 {
				require.Len(t, seen, int(tt.hi-tt.lo+1), "every value is drawn")
			}
		})
	}
}

func TestRenderPickDrawsEveryChoice(t *testing.T) {
	tmpl, err := answertmpl.Compile(`{{pick "a" "b" "c"}}`)
	require.NoError(t, err)
	in := input(t)
	seen := map[string]bool{}
	for range 200 {
		out, err := tmpl.Render(nil, in)
		require.NoError(t, err)
		seen[string(out)] = true
	}
	require.Equal(t, map[string]bool{`"a"`: true, `"b"`: true, `"c"`: true}, seen)
}

func TestRenderWithoutInput(t *testing.T) {
	tmpl, err := answertmpl.Compile("{{args}} {{args.x}} {{state.y}} {{seq}}")
	require.NoError(t, err)
	out, err := tmpl.Render(nil, nil)
	require.NoError(t, err)
	require.Equal(t, `"{}   0"`, string(out))
	now, err := answertmpl.Compile("{{now}}")
	require.NoError(t, err)
	out, err = now.Render(nil, &answertmpl.Input{})
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(out), `Z"`), "the clock, in UTC: %s", out)
}

func TestIsTemplate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"plain", false},
		{"{{argument}}", false},
		{"Hello {{ name }}", false},
		{"{{answer.city}}", false},
		{"{{argsx}}", false},
		{`{{"{{"}}`, false},
		{"{{", false},
		{"{{args}}", true},
		{"{{ args.city }}", true},
		{"{{args[0]}}", true},
		{"x {{name}} y {{seq}}", true},
		{`{{now "+1h"}}`, true},
		{"{{random 1 2}}", true},
		{`{{pick"a"}}`, true},
		{"{{json args.x}}", true},
		{"{{state.k}}", true},
		{"{{uuid}}", true},
		{"{{args", true},
	} {
		require.Equal(t, tt.want, answertmpl.IsTemplate(tt.in), tt.in)
	}
}

func TestTemplateTellsWhatItReads(t *testing.T) {
	for _, tt := range []struct {
		in                 string
		random, seq, state bool
	}{
		{"plain", false, false, false},
		{"{{args.x}} {{now}}", false, false, false},
		{"{{uuid}}", true, false, false},
		{"{{random 1 2}}", true, false, false},
		{`{{pick "a"}}`, true, false, false},
		{"#{{seq}}", false, true, false},
		{"{{state.k}}", false, false, true},
		{"{{json state.k}}", false, false, true},
	} {
		tmpl, err := answertmpl.Compile(tt.in)
		require.NoError(t, err)
		require.Equal(t, tt.random, tmpl.UsesRandom(), tt.in)
		require.Equal(t, tt.seq, tmpl.UsesSeq(), tt.in)
		require.Equal(t, tt.state, tmpl.UsesState(), tt.in)
	}
}

func TestSeedForDependsOnTheToolAndTheCall(t *testing.T) {
	require.Equal(t, answertmpl.SeedFor(42, "get_weather", 3), answertmpl.SeedFor(42, "get_weather", 3))
	seen := map[int64]bool{}
	for _, seed := range []int64{0, 42} {
		for _, tool := range []string{"get_weather", "get_time"} {
			for seq := range 3 {
				seen[answertmpl.SeedFor(seed, tool, seq)] = true
			}
		}
	}
	require.Len(t, seen, 12)
}

func TestIsHelper(t *testing.T) {
	for _, name := range []string{"args", "state", "now", "uuid", "seq", "random", "pick", "json"} {
		require.True(t, answertmpl.IsHelper(name), name)
	}
	for _, name := range []string{"", "arg", "Args", "args.x", "city", "answer"} {
		require.False(t, answertmpl.IsHelper(name), name)
	}
}
