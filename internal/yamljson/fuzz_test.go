package yamljson_test

import (
	"encoding/json"
	"testing"

	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// FuzzConvert: whatever the YAML, Convert never panics, and what it
// produces is valid JSON within the limit.
func FuzzConvert(f *testing.F) {
	for _, seed := range []string{
		"tools: &t [ *t ]\n",
		"a: &a {b: *a}\n",
		"a: &a x\nb: [*a, *a, *a]\n",
		aliasedString(100, 50),
		laughs(6),
		"a: &x {k: [1, 2.5, -0, 1e3, .inf, ~, yes, true, '007', 2024-11-05]}\nb: *x\n",
		"? [a]\n: 1\n",
		"a: !!binary aGVsbG8=\nb: !custom x\nc: 0x1F\nd: 1_000\n",
		"<<: *a\n",
		"a: &a [*a]\nb: *a\n",
		"- - - - - &d [*d]\n",
		"key: |\n  multi\n  line\n---\nsecond: doc\n",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, src []byte, scalarKeys bool) {
		out, err := yamljson.Convert(src, yamljson.Options{Limit: limit, ScalarKeys: scalarKeys})
		if err != nil {
			if out != nil {
				t.Fatalf("output with an error: %v", err)
			}
			return
		}
		if len(out) > limit {
			t.Fatalf("%d bytes of JSON, over the limit %d", len(out), limit)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q from %q", out, src)
		}
	})
}

// FuzzCheckJSON: CheckJSON never panics, and accepts only valid JSON.
func FuzzCheckJSON(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[{"a":[{"b":1,"b":2}]}]`, `{"a":`, `{} {}`, `"x"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if yamljson.CheckJSON(src) == nil && !json.Valid(src) {
			t.Fatalf("accepted invalid JSON %q", src)
		}
	})
}
